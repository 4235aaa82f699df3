import { isSpillError, type SaveTextStreamSpill, type SpillBackend, type SpillCallOptions, type SpillRef, spillLocator, utf8ByteLength } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hasSpillNotice, parseSpillNotice } from './notice.js';
import { createSpillPolicy } from './policy.js';
import { lostNotice, PolicyStream } from './stream.js';
import { type Behaviour, behaviourArb, fakeBackend, locatorArb, textArb, tick } from './test-backends.js';
import type { SpillEvent, SpillPolicyOptions, ToolExecution, ToolResult } from './types.js';

const exec: ToolExecution = { toolName: 'bash', callId: 'call-1', sessionId: 'session-1' };

/** Cuts `text` at the given code-unit offsets (surrogate pairs may be split on purpose). */
function chunk(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const p of points) {
    chunks.push(text.slice(from, p));
    from = p;
  }
  chunks.push(text.slice(from));
  return chunks;
}

function onlyText(result: ToolResult): string {
  expect(result.content).toHaveLength(1);
  return (result.content[0] as { text: string }).text;
}

function withoutMs(events: SpillEvent[]): unknown[] {
  return events.map((e) => (e.type === 'spilled' ? { ...e, ms: 0 } : e));
}

async function streamed(options: SpillPolicyOptions, execution: ToolExecution, chunks: readonly string[], isError?: boolean) {
  const events: SpillEvent[] = [];
  const policy = createSpillPolicy({ ...options, onEvent: (e) => events.push(e) });
  const stream = policy.stream(execution);
  for (const c of chunks) await stream.push(c);
  const result = await stream.finish(isError === undefined ? {} : { isError });
  return { result, events };
}

async function applied(options: SpillPolicyOptions, execution: ToolExecution, text: string, isError?: boolean) {
  const events: SpillEvent[] = [];
  const policy = createSpillPolicy({ ...options, onEvent: (e) => events.push(e) });
  const input: ToolResult = isError === undefined ? { content: [{ type: 'text', text }] } : { content: [{ type: 'text', text }], isError };
  const result = await policy.applyToResult(execution, input);
  return { result, events };
}

const execArb: fc.Arbitrary<ToolExecution> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(exec) },
  fc.constant({ toolName: 'read', callId: 'c', sessionId: 's' }),
  fc.constant({ toolName: 'bash', callId: 'c', sessionId: 's', parentCallId: 'p' }),
  fc.constant({ toolName: 'bash', callId: 'c' }),
  fc.constant({ toolName: 'bash', callId: '', sessionId: 's' }),
);
// Small caps (0 up to a notice with a 200-byte locator) are where the notice may not fit.
const capArb = fc.oneof(fc.integer({ min: 0, max: 150 }), { weight: 2, arbitrary: fc.integer({ min: 50, max: 320 }) }, { weight: 3, arbitrary: fc.integer({ min: 100, max: 3000 }) });
/** Command-output-like text: many lines of very different lengths. */
const logArb = fc
  .array(fc.nat({ max: 400 }), { minLength: 10, maxLength: 120 })
  .map((lengths) => lengths.map((n, i) => `${String(i)}:${'x'.repeat(n)}`).join('\n'));

describe('stream(exec)', () => {
  it('finishes with exactly what applyToResult gives for the concatenation, for any chunking, down to the smallest notice', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(textArb, logArb),
        fc.array(fc.nat(), { maxLength: 12 }),
        execArb,
        capArb,
        fc.option(fc.nat({ max: 800 }), { nil: undefined }),
        fc.record({ locator: locatorArb(), hint: fc.string({ maxLength: 70 }) }),
        fc.option(fc.boolean(), { nil: undefined }),
        fc.boolean(),
        fc.boolean(),
        async (text, cuts, execution, cap, previewBytes, ref, isError, disabled, withCatalog) => {
          const options = (backend: SpillBackend): SpillPolicyOptions => ({
            backend,
            maxInlineBytes: disabled ? undefined : cap,
            previewBytes,
            saveTimeoutMs: 1000,
          });
          const capabilities = { reader: true, catalog: withCatalog };
          const viaStream = fakeBackend({ kind: 'ok', ...ref }, capabilities);
          const viaApply = fakeBackend({ kind: 'ok', ...ref }, capabilities);
          const s = await streamed(options(viaStream), execution, chunk(text, cuts), isError);
          const a = await applied(options(viaApply), execution, text, isError);
          const first = s.events[0];
          if (first?.type === 'kept' && first.reason === 'notice-too-large' && first.locator !== undefined) {
            // The stream read its output back: the same UTF-8 (a lone surrogate comes back
            // as U+FFFD), and the stored copy is deleted when the backend can.
            expect(s.result.isError).toBe(a.result.isError);
            expect(Buffer.from(onlyText(s.result))).toEqual(Buffer.from(onlyText(a.result)));
            expect(first.removed).toBe(withCatalog);
            expect(viaStream.stored.size).toBe(withCatalog ? 0 : 1);
            const before = a.events[0];
            if (before?.type === 'kept' && before.locator === undefined) {
              // apply saw the final size, whose count has more digits than the size at
              // which the stream had to start saving: it refused before saving.
              expect(viaApply.calls).toHaveLength(0);
              expect(s.events).toEqual([{ ...before, locator: ref.locator, removed: withCatalog }]);
              return;
            }
            expect(withoutMs(s.events)).toEqual(withoutMs(a.events));
            expect(viaApply.stored.size).toBe(withCatalog ? 0 : 1);
          } else {
            expect(s.result).toEqual(a.result);
            expect(withoutMs(s.events)).toEqual(withoutMs(a.events));
          }
          expect(viaStream.calls.map((c) => c.content)).toEqual(viaApply.calls.map((c) => c.content));
          expect(viaStream.calls.every((c) => c.method === 'saveTextStream')).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('equals applyToResult at every cap boundary (cap = size − 1, size, size + 1), for any chunking', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.tuple(logArb, textArb).map(([log, tail]) => log + tail).filter((t) => utf8ByteLength(t) >= 300),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.constantFrom(-1, 0, 1),
        async (text, cuts, delta) => {
          const cap = utf8ByteLength(text) + delta;
          const options = (backend: SpillBackend): SpillPolicyOptions => ({ backend, maxInlineBytes: cap, saveTimeoutMs: 1000 });
          const ref = { kind: 'ok', locator: '/spill/s/out.txt', hint: 'Read it back.' } as const;
          const viaStream = fakeBackend(ref, { reader: true });
          const viaApply = fakeBackend(ref, { reader: true });
          const s = await streamed(options(viaStream), exec, chunk(text, cuts));
          const a = await applied(options(viaApply), exec, text);
          expect(s.result).toEqual(a.result);
          expect(withoutMs(s.events)).toEqual(withoutMs(a.events));
          // Spilled only above the cap, by both.
          expect(viaStream.calls).toHaveLength(delta < 0 ? 1 : 0);
          expect(viaApply.calls).toHaveLength(delta < 0 ? 1 : 0);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('passes a 400-byte output through at a 400-byte cap and spills it at 399, however it is chunked', async () => {
    const text = `${'x'.repeat(199)}\n${'y'.repeat(199)}\n`;
    for (const cuts of [[], [1], [200], [399], [100, 200, 300]]) {
      const at = await streamed({ backend: fakeBackend({ kind: 'ok', locator: '/l', hint: 'h' }), maxInlineBytes: 400 }, exec, chunk(text, cuts));
      expect(onlyText(at.result)).toBe(text);
      expect(at.events).toEqual([]);
      const below = await streamed({ backend: fakeBackend({ kind: 'ok', locator: '/l', hint: 'h' }), maxInlineBytes: 399 }, exec, chunk(text, cuts));
      expect(below.events.map((e) => e.type)).toEqual(['spilled']);
    }
  });

  it('never answers over the cap unless apply would keep the original too, whatever the backend and however small the cap', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(textArb, logArb),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 0, max: 320 }),
        behaviourArb,
        fc.record({ reader: fc.boolean(), catalog: fc.boolean(), pageBytes: fc.option(fc.integer({ min: 1, max: 600 }), { nil: undefined }) }),
        async (text, cuts, cap, behaviour, capabilities) => {
          const backend = fakeBackend(behaviour, capabilities);
          const s = await streamed({ backend, maxInlineBytes: cap, saveTimeoutMs: 5 }, exec, chunk(text, cuts));
          const out = onlyText(s.result);
          if (utf8ByteLength(text) <= cap) {
            expect(out).toBe(text);
            return;
          }
          const event = s.events[0];
          expect(s.events).toHaveLength(1);
          if (event?.type === 'kept') {
            // The original, as apply keeps it (read back when the stream had to).
            expect(Buffer.from(out)).toEqual(Buffer.from(text));
            const a = await applied({ backend: fakeBackend(behaviour, capabilities), maxInlineBytes: cap, saveTimeoutMs: 5 }, exec, text);
            expect(a.events[0]?.type).toBe('kept');
            return;
          }
          expect(utf8ByteLength(out)).toBeLessThanOrEqual(cap);
          if (event?.type === 'truncated') {
            expect(hasSpillNotice(out)).toBe(false);
            if (event.reason === 'notice-too-large') {
              expect(event.locator).toBeDefined();
              expect(backend.stored.size).toBe(1); // the only full copy is kept
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('answers the whole output, as apply does, when only the real locator makes the notice too large (seq 1 100, cap 150)', async () => {
    const text = Array.from({ length: 100 }, (_, i) => `${String(i + 1)}\n`).join(''); // 292 bytes
    const locator = `/root/.local/state/spillway/session-${'3f'.repeat(16)}/${'9a'.repeat(10)}-seq.txt`;
    const ref = { locator, hint: 'Use read with offset/limit, or grep this path to search within it.' };
    const backend = fakeBackend({ kind: 'ok', ...ref }, { reader: true, catalog: true, pageBytes: 64 });
    const s = await streamed({ backend, maxInlineBytes: 150 }, exec, chunk(text, [5, 60, 151, 200]));
    expect(s.result).toEqual({ content: [{ type: 'text', text }] });
    expect(s.events).toEqual([{ type: 'kept', toolName: 'bash', callId: 'call-1', reason: 'notice-too-large', bytes: 292, locator, removed: true }]);
    expect(backend.deleted).toEqual([locator]);
    expect(backend.stored.size).toBe(0);
    const a = await applied({ backend: fakeBackend({ kind: 'ok', ...ref }, { reader: true, catalog: true }), maxInlineBytes: 150 }, exec, text);
    expect(a.result).toEqual(s.result);
    expect(a.events).toEqual(s.events);
  });

  it('without a reader, answers a preview within the cap, a note without a locator, and a truncated event naming the kept artifact', async () => {
    const text = Array.from({ length: 100 }, (_, i) => `${String(i + 1)}\n`).join('');
    const locator = `/root/.local/state/spillway/session-${'3f'.repeat(16)}/${'9a'.repeat(10)}-seq.txt`;
    for (const capabilities of [{}, { catalog: true }, { reader: true, pageBytes: 1 }]) {
      const backend = fakeBackend({ kind: 'ok', locator, hint: 'Use read.' }, capabilities);
      const s = await streamed({ backend, maxInlineBytes: 150 }, exec, chunk(text, [5, 60, 151, 200]));
      const out = onlyText(s.result);
      expect(utf8ByteLength(out)).toBeLessThanOrEqual(150);
      expect(out.startsWith('1\n2\n')).toBe(true);
      expect(out).toMatch(/\(Omitted \d+ bytes(\. They were stored|, stored where)/);
      expect(hasSpillNotice(out)).toBe(false);
      expect(s.events).toMatchObject([{ type: 'truncated', reason: 'notice-too-large', bytes: 292, locator }]);
      expect(backend.stored.get(locator)).toBe(text); // the only full copy is not deleted
      expect(backend.deleted).toEqual([]);
    }
  });

  it('gives up reading back after saveTimeoutMs and answers a preview within the cap', async () => {
    const text = 'w'.repeat(400);
    const backend = fakeBackend({ kind: 'ok', locator: 'L'.repeat(150), hint: 'h' });
    const hanging: SpillBackend = { ...backend, reader: { read: () => new Promise(() => undefined), grep: () => Promise.reject(new Error('unused')) } };
    const s = await streamed({ backend: hanging, maxInlineBytes: 150, saveTimeoutMs: 20 }, exec, [text]);
    expect(utf8ByteLength(onlyText(s.result))).toBeLessThanOrEqual(150);
    expect(s.events).toMatchObject([{ type: 'truncated', reason: 'notice-too-large' }]);
    expect(isSpillError((s.events[0] as { error?: unknown }).error, 'SPILL_TIMEOUT')).toBe(true);
  });

  it('stays within the tiniest cap the stream spills at when the save fails after reading (short note, then a cut note)', async () => {
    // 58 bytes: the smallest notice for a 3-digit count fits, the long lost note does not.
    for (const cap of [58, 60, 70]) {
      let seen = 0;
      const failing: SpillBackend = {
        specificationVersion: 'v1',
        name: 'failing',
        saveText: () => Promise.reject(new Error('unused')),
        async saveTextStream(input: SaveTextStreamSpill): Promise<SpillRef> {
          for await (const c of input.content) {
            seen += c.length;
            if (seen > 100) throw new Error('disk full');
          }
          throw new Error('unreachable');
        },
      };
      const s = await streamed({ backend: failing, maxInlineBytes: cap }, exec, ['v'.repeat(70), 'v'.repeat(70), 'v'.repeat(99_860)]);
      const out = onlyText(s.result);
      expect(utf8ByteLength(out)).toBeLessThanOrEqual(cap);
      expect(s.events).toMatchObject([{ type: 'truncated', reason: 'save-rejected', bytes: 100_000 }]);
    }
  });

  it('with a failing backend: never rejects, keeps isError, stays within the cap and is honest about what was lost', async () => {
    await fc.assert(
      fc.asyncProperty(
        textArb,
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.integer({ min: 150, max: 2000 }),
        behaviourArb.filter((b) => b.kind !== 'ok'),
        fc.boolean(),
        async (text, cuts, cap, behaviour, isError) => {
          const backend = fakeBackend(behaviour);
          const s = await streamed({ backend, maxInlineBytes: cap, saveTimeoutMs: 5 }, exec, chunk(text, cuts), isError);
          expect(s.result.isError).toBe(isError);
          const out = (s.result.content[0] as { text: string }).text;
          const total = utf8ByteLength(text);
          if (total <= cap) {
            expect(out).toBe(text);
            expect(s.events).toEqual([]);
            return;
          }
          expect(s.events).toHaveLength(1);
          const event = s.events[0];
          if (event?.type === 'kept') {
            // Failed before the backend took anything: the whole text is still there.
            expect(out).toBe(text);
            return;
          }
          expect(event?.type).toBe('truncated');
          if (event?.type !== 'truncated') return;
          expect(utf8ByteLength(out)).toBeLessThanOrEqual(cap);
          expect(out.endsWith(lostNotice(total - event.shownBytes))).toBe(true);
          expect(hasSpillNotice(out)).toBe(false);
          expect(parseSpillNotice(out)).toBeUndefined();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('keeps enough of the head and tail for the widest cut, wherever the buffers were last compacted', async () => {
    // The head backs off to a line break, so the tail's share (~560 bytes) is more than
    // half the cap: buffers of only cap / 2 code units would cut it short.
    const cap = 1000;
    const ref = { locator: '/spill/x', hint: 'h' };
    const text = `${'a'.repeat(338)}\n${'b'.repeat(3000)}`;
    for (let singles = 1000; singles < 2200; singles += 5) {
      // One big chunk, then one-character chunks: compaction lands at every phase.
      const chunks = [text.slice(0, text.length - singles), ...Array.from({ length: singles }, (_, i) => text.charAt(text.length - singles + i))];
      const s = await streamed({ backend: fakeBackend({ kind: 'ok', ...ref }), maxInlineBytes: cap }, exec, chunks);
      const a = await applied({ backend: fakeBackend({ kind: 'ok', ...ref }), maxInlineBytes: cap }, exec, text);
      expect(s.result).toEqual(a.result);
    }
  });

  it('stores a surrogate pair split across chunks as one 4-byte character', async () => {
    const backend = fakeBackend({ kind: 'ok', locator: 'l', hint: 'h' });
    const text = `${'a'.repeat(300)}😀${'b'.repeat(300)}`;
    const cut = text.indexOf('😀') + 1; // between the two halves
    const { events } = await streamed({ backend, maxInlineBytes: 200 }, exec, [text.slice(0, cut), text.slice(cut)]);
    expect(backend.calls[0]?.content).toBe(text);
    expect(events[0]).toMatchObject({ type: 'spilled', bytes: 604 });
  });

  it('holds O(cap) in memory however much output streams through', async () => {
    let received = 0;
    const draining: SpillBackend = {
      specificationVersion: 'v1',
      name: 'draining',
      saveText: () => Promise.reject(new Error('unused')),
      async saveTextStream(input: SaveTextStreamSpill): Promise<SpillRef> {
        for await (const c of input.content) received += utf8ByteLength(c);
        return { locator: spillLocator('spill+test://d'), bytes: received, retrievalHint: 'h' };
      },
    };
    const cap = 2000;
    const policy = createSpillPolicy({ backend: draining, maxInlineBytes: cap });
    const stream = policy.stream(exec);
    if (!(stream instanceof PolicyStream)) throw new Error('expected the PolicyStream implementation');
    const line = `${'z'.repeat(1023)}\n`;
    let peak = 0;
    for (let i = 0; i < 8 * 1024; i++) {
      await stream.push(line); // 8 MiB in total
      peak = Math.max(peak, stream.retainedUnits);
    }
    const result = await stream.finish();
    expect(received).toBe(8 * 1024 * 1024);
    // Head and tail buffers (≤ 3 × (cap + 2)) plus the queue's high-water mark and one chunk.
    expect(peak).toBeLessThanOrEqual(3 * (cap + 2) + 64 * 1024 + line.length);
    expect(stream.retainedUnits).toBe(0);
    expect(utf8ByteLength((result.content[0] as { text: string }).text)).toBeLessThanOrEqual(cap);
  });

  it('applies backpressure: push waits while the backend has not taken earlier chunks', async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow: SpillBackend = {
      specificationVersion: 'v1',
      name: 'slow',
      saveText: () => Promise.reject(new Error('unused')),
      async saveTextStream(input: SaveTextStreamSpill): Promise<SpillRef> {
        await gate;
        let bytes = 0;
        for await (const c of input.content) bytes += utf8ByteLength(c);
        return { locator: spillLocator('spill+test://s'), bytes, retrievalHint: 'h' };
      },
    };
    const stream = createSpillPolicy({ backend: slow, maxInlineBytes: 100 }).stream(exec);
    await stream.push('x'.repeat(200)); // crosses the cap, queue below the high-water mark
    let accepted = false;
    const pending = stream.push('y'.repeat(100_000)).then(() => (accepted = true));
    await tick(20);
    expect(accepted).toBe(false);
    release();
    await pending;
    expect(accepted).toBe(true);
    expect(parseSpillNotice(((await stream.finish()).content[0] as { text: string }).text)?.omittedBytes).toBeGreaterThan(0);
  });

  it('gives up on a backend that never reads, after saveTimeoutMs, and keeps the whole output', async () => {
    const backend = fakeBackend({ kind: 'hang', honoursSignal: true });
    // This fake consumes; make one that never even reads.
    const stuck: SpillBackend = { ...backend, saveTextStream: (_input, options?: SpillCallOptions) => new Promise((_r, reject) => options?.signal?.addEventListener('abort', () => { reject(new Error('aborted')); })) };
    const text = 'q'.repeat(200_000);
    // Bounded by the test timeout, not a wall-clock assertion: the outcome is what counts.
    const { result, events } = await streamed({ backend: stuck, maxInlineBytes: 1000, saveTimeoutMs: 30 }, exec, chunk(text, [1000, 2000, 100_000]));
    expect(result.content).toEqual([{ type: 'text', text }]);
    expect(events).toMatchObject([{ type: 'kept', reason: 'timeout' }]);
  });

  it('keeps the whole output when the save rejects before reading anything, or throws synchronously', async () => {
    const text = 'r'.repeat(5000);
    for (const [behaviour, reason] of [
      [{ kind: 'throw', value: new Error('sync') }, 'save-threw'],
    ] as [Behaviour, string][]) {
      const { result, events } = await streamed({ backend: fakeBackend(behaviour), maxInlineBytes: 1000 }, exec, [text.slice(0, 2000), text.slice(2000)]);
      expect(result.content).toEqual([{ type: 'text', text }]);
      expect(events).toMatchObject([{ type: 'kept', reason }]);
    }
    const early: SpillBackend = { specificationVersion: 'v1', name: 'early', saveText: () => Promise.reject(new Error('unused')), saveTextStream: () => Promise.reject(new Error('no space')) };
    const { result, events } = await streamed({ backend: early, maxInlineBytes: 1000 }, exec, [text.slice(0, 2000), text.slice(2000)]);
    expect(result.content).toEqual([{ type: 'text', text }]);
    expect(events).toMatchObject([{ type: 'kept', reason: 'save-rejected' }]);
  });

  it('keeps every chunk when the backend stops reading before taking any, then fails', async () => {
    let fail: (error: Error) => void = () => undefined;
    const quitter: SpillBackend = {
      specificationVersion: 'v1',
      name: 'quitter',
      saveText: () => Promise.reject(new Error('unused')),
      async saveTextStream(input: SaveTextStreamSpill): Promise<SpillRef> {
        const iterator = (input.content as AsyncIterable<string>)[Symbol.asyncIterator]();
        await iterator.return?.();
        return new Promise((_resolve, reject) => (fail = reject));
      },
    };
    const events: SpillEvent[] = [];
    const stream = createSpillPolicy({ backend: quitter, maxInlineBytes: 100, onEvent: (e) => events.push(e) }).stream(exec);
    const parts = ['a'.repeat(150), 'b'.repeat(100_000), 'c'.repeat(50)];
    for (const part of parts) await stream.push(part); // no backpressure wait: nobody reads
    fail(new Error('gave up'));
    await tick(1);
    await stream.push('d');
    const result = await stream.finish();
    expect(result.content).toEqual([{ type: 'text', text: `${parts.join('')}d` }]);
    expect(events).toMatchObject([{ type: 'kept', reason: 'save-rejected' }]);
  });

  it('reports truncated, with head, tail and a lost note, when the save fails after reading part of the output', async () => {
    let seen = '';
    const failing: SpillBackend = {
      specificationVersion: 'v1',
      name: 'failing',
      saveText: () => Promise.reject(new Error('unused')),
      async saveTextStream(input: SaveTextStreamSpill): Promise<SpillRef> {
        for await (const c of input.content) {
          seen += c;
          if (seen.length > 3000) throw new Error('disk full');
        }
        throw new Error('unreachable');
      },
    };
    const text = Array.from({ length: 2000 }, (_, i) => `row ${String(i)}`).join('\n');
    const chunks = chunk(text, Array.from({ length: 40 }, (_, i) => i * 500));
    const { result, events } = await streamed({ backend: failing, maxInlineBytes: 600 }, exec, chunks, false);
    const out = (result.content[0] as { text: string }).text;
    expect(result.isError).toBe(false);
    expect(events).toMatchObject([{ type: 'truncated', reason: 'save-rejected', bytes: utf8ByteLength(text) }]);
    expect(out.startsWith('row 0\nrow 1\n')).toBe(true);
    expect(out).toContain('row 1999\n\n(Omitted ');
    expect(out.endsWith('They could not be stored, so only this preview remains.)')).toBe(true);
    expect(utf8ByteLength(out)).toBeLessThanOrEqual(600);
  });

  it('treats a save that resolves before the output ended as malformed', async () => {
    const hasty: SpillBackend = {
      specificationVersion: 'v1',
      name: 'hasty',
      saveText: () => Promise.reject(new Error('unused')),
      async saveTextStream(input: SaveTextStreamSpill): Promise<SpillRef> {
        const iterator = (input.content as AsyncIterable<string>)[Symbol.asyncIterator]();
        const first = await iterator.next();
        return { locator: spillLocator('spill+test://h'), bytes: utf8ByteLength(typeof first.value === 'string' ? first.value : ''), retrievalHint: 'h' };
      },
    };
    const stream = createSpillPolicy({ backend: hasty, maxInlineBytes: 100, onEvent: (e) => events.push(e) }).stream(exec);
    const events: SpillEvent[] = [];
    await stream.push('a'.repeat(150));
    await tick(5);
    await stream.push('b'.repeat(150));
    const out = ((await stream.finish()).content[0] as { text: string }).text;
    expect(events).toMatchObject([{ type: 'truncated', reason: 'malformed-ref' }]);
    expect(parseSpillNotice(out)).toBeUndefined();
  });

  it('holds the whole output, and reports why, when it cannot spill (no session)', async () => {
    const backend = fakeBackend({ kind: 'ok', locator: 'l', hint: 'h' });
    const text = 'n'.repeat(10_000);
    const { result, events } = await streamed({ backend, maxInlineBytes: 100 }, { toolName: 'bash', callId: 'c' }, chunk(text, [10, 5000]));
    expect(result.content).toEqual([{ type: 'text', text }]);
    expect(events).toMatchObject([{ type: 'kept', reason: 'no-session', bytes: 10_000 }]);
    expect(backend.calls).toHaveLength(0);
  });
});

describe('stream misuse and abort', () => {
  it('rejects a non-string chunk and a push after finish with a TypeError; finish twice gives the same answer', async () => {
    const stream = createSpillPolicy({ maxInlineBytes: 10 }).stream(exec);
    await expect(stream.push(42 as unknown as string)).rejects.toThrow(TypeError);
    await stream.push('ok');
    const first = stream.finish();
    expect(stream.finish()).toBe(first);
    await expect(stream.push('late')).rejects.toThrow(TypeError);
    expect((await first).content).toEqual([{ type: 'text', text: 'ok' }]);
  });

  it('abort cancels an in-flight save through its signal, and later calls reject with SPILL_ABORTED', async () => {
    let signal: AbortSignal | undefined;
    let iteratorError: unknown;
    const events: SpillEvent[] = [];
    const backend: SpillBackend = {
      specificationVersion: 'v1',
      name: 'watching',
      saveText: () => Promise.reject(new Error('unused')),
      async saveTextStream(input: SaveTextStreamSpill, options?: SpillCallOptions): Promise<SpillRef> {
        signal = options?.signal;
        try {
          for await (const _ of input.content) {
            // keep reading
          }
        } catch (error) {
          iteratorError = error;
          throw error;
        }
        return { locator: spillLocator('never'), bytes: 0, retrievalHint: '' };
      },
    };
    const stream = createSpillPolicy({ backend, maxInlineBytes: 100, onEvent: (e) => events.push(e) }).stream(exec);
    await stream.push('a'.repeat(500));
    await tick(5);
    const reason = new Error('SIGINT');
    await stream.abort(reason);
    expect(signal?.aborted).toBe(true);
    expect(isSpillError(iteratorError, 'SPILL_ABORTED')).toBe(true);
    await expect(stream.push('more')).rejects.toSatisfy((e: unknown) => isSpillError(e, 'SPILL_ABORTED') && (e as Error).cause === reason);
    await expect(stream.finish()).rejects.toSatisfy((e: unknown) => isSpillError(e, 'SPILL_ABORTED'));
    await stream.abort(); // idempotent
    expect(events).toEqual([]);
  });

  it('abort while finish waits for the backend makes finish reject with SPILL_ABORTED', async () => {
    const backend = fakeBackend({ kind: 'hang', honoursSignal: true });
    const stream = createSpillPolicy({ backend, maxInlineBytes: 100, saveTimeoutMs: 5000 }).stream(exec);
    await stream.push('h'.repeat(300));
    const finishing = stream.finish();
    await tick(5);
    await stream.abort();
    await expect(finishing).rejects.toSatisfy((e: unknown) => isSpillError(e, 'SPILL_ABORTED'));
    expect(backend.calls[0]?.signal?.aborted).toBe(true);
  });

  it('abort after finish does nothing', async () => {
    const stream = createSpillPolicy({ maxInlineBytes: 10 }).stream(exec);
    await stream.push('tiny');
    const result = await stream.finish();
    await stream.abort();
    expect(result.content).toEqual([{ type: 'text', text: 'tiny' }]);
  });
});
