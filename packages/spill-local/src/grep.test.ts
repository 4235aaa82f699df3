import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSpillError } from '@spillway/core';
import type { SpillRef } from '@spillway/core';
import { createLocalBackend } from './index.js';
import type { LocalBackend } from './index.js';
import { escapeRegex, grepSettings, planGrep } from './grep.js';
import { scanFile } from './grep-scan.js';
import type { ScanRequest, ScanResult } from './grep-scan.js';
import { makeRoot, request } from './test-helpers.js';

function memoryScan(text: string, pattern: string, opts: { literal?: boolean; ignoreCase?: boolean; maxMatches?: number; maxLineBytes?: number }, chunkBytes: number, maxLineSpan = 1 << 24): Promise<ScanResult> {
  const bytes = Buffer.from(text, 'utf8');
  const plan = planGrep(pattern, grepSettings(opts));
  const req: ScanRequest = { ...plan.request, chunkBytes, maxLineSpan, size: bytes.length, deadline: Date.now() + 60_000 };
  return scanFile(req, (buf, off, len, pos) => bytes.copy(buf, off, pos, Math.min(bytes.length, pos + len)), Date.now);
}

/** Independent model: split into lines, test each body. */
function modelLines(text: string, pattern: string, opts: { literal?: boolean; ignoreCase?: boolean }): { line: number; body: string; at: number; len: number }[] {
  const stored = Buffer.from(text, 'utf8').toString('utf8');
  const bodies = stored.split('\n');
  if (stored.endsWith('\n') || stored === '') bodies.pop();
  const re = new RegExp(opts.literal === true ? escapeRegex(pattern) : pattern, opts.ignoreCase === true ? 'i' : '');
  const out: { line: number; body: string; at: number; len: number }[] = [];
  bodies.forEach((body, i) => {
    const m = re.exec(body);
    if (m) out.push({ line: i + 1, body, at: m.index, len: m[0].length });
  });
  return out;
}

const textArb = fc
  .array(fc.oneof(fc.constantFrom('\n', '\r\n', 'ab', 'AB', 'a.b', 'é', '中', '😀', 'x'.repeat(40), ''), fc.string({ maxLength: 6 })), { maxLength: 80 })
  .map((p) => p.join(''));
const patternArb = fc.oneof(fc.constantFrom('a', 'b', 'ab', 'a.b', '^a', 'b$', '\\r$', '^$', 'é', '😀', 'x{3}', '[ab]+', 'A', '中'), fc.string({ maxLength: 3 }));

describe('grep scanning', () => {
  it('finds exactly the lines an independent per-line model finds, with any chunk size (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        textArb,
        patternArb,
        fc.boolean(),
        fc.boolean(),
        fc.integer({ min: 16, max: 200 }),
        fc.integer({ min: 0, max: 12 }),
        async (text, pattern, literal, ignoreCase, chunkBytes, maxMatches) => {
          let expected;
          try {
            expected = modelLines(text, pattern, { literal, ignoreCase });
          } catch {
            return; // not a valid regex: covered elsewhere
          }
          const got = await memoryScan(text, pattern, { literal, ignoreCase, maxMatches, maxLineBytes: 1_000_000 }, chunkBytes);
          expect(got.matches.map((m) => m.line)).toEqual(expected.slice(0, maxMatches).map((e) => e.line));
          expect(got.matches.map((m) => m.text)).toEqual(expected.slice(0, maxMatches).map((e) => e.body));
          if (expected.length > maxMatches) expect(got.limitReached).toBe(true);
          if (expected.length < maxMatches) expect(got.limitReached).toBe(false);
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('cuts a long line to a window of at most maxLineBytes that shows the whole match (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ maxLength: 300 }),
        fc.string({ maxLength: 300 }),
        fc.constantFrom('NEEDLE', '😀X', 'é中'),
        fc.integer({ min: 8, max: 64 }),
        fc.boolean(),
        async (before, after, needle, maxLineBytes, literal) => {
          const clean = (s: string): string => Buffer.from(s.replace(/\n/g, ' ')).toString('utf8');
          const line = `${clean(before)}${needle}${clean(after)}`;
          const got = await memoryScan(`${line}\n`, needle, { literal, maxLineBytes }, 64);
          const m = got.matches[0];
          expect(m).toBeDefined();
          if (m === undefined) return;
          expect(Buffer.byteLength(m.text)).toBeLessThanOrEqual(maxLineBytes);
          expect(line.includes(m.text)).toBe(true);
          expect(m.truncated).toBe(Buffer.byteLength(line) > maxLineBytes);
          expect(m.text.includes(needle)).toBe(true);
        },
      ),
      { numRuns: 800 },
    );
  });

  it('searches a line longer than maxLineSpan in pieces and reports it once', async () => {
    const text = `first\n${'y'.repeat(300)}hit${'y'.repeat(300)}hit${'y'.repeat(300)}\nhit last\n`;
    const got = await memoryScan(text, 'hit', { literal: true }, 64, 128);
    expect(got.matches.map((m) => m.line)).toEqual([2, 3]);
  });

  it('with maxMatches 0 returns no match but tells whether one exists', async () => {
    expect(await memoryScan('a\nb\n', 'b', { maxMatches: 0 }, 64)).toMatchObject({ matches: [], limitReached: true });
    expect(await memoryScan('a\nb\n', 'z', { maxMatches: 0 }, 64)).toMatchObject({ matches: [], limitReached: false });
  });

  it('never matches a literal holding a newline or a lone surrogate', async () => {
    expect((await memoryScan('a\nb\n', 'a\nb', { literal: true }, 64)).matches).toEqual([]);
    expect((await memoryScan('x\uD800y\n', '\uD800', { literal: true }, 64)).matches).toEqual([]);
  });
});

describe('grep through the backend', () => {
  let backend: LocalBackend;
  let cleanup: () => void;
  let ref: SpillRef;
  beforeAll(async () => {
    const r = makeRoot();
    cleanup = r.cleanup;
    backend = createLocalBackend({ root: r.root });
    ref = await backend.saveText(request(`${'a'.repeat(30)}!\n`.repeat(50) + 'tail\n'));
  });
  afterAll(() => {
    cleanup();
  });

  // No wall-clock thresholds: the bound on a runaway pattern is the test's own timeout
  // (it would run for minutes without the budget), and responsiveness is shown by order
  // of events: work on the main thread finishes while the regex is still running.
  it('times out a catastrophic pattern with SPILL_TIMEOUT, and the backend still works afterwards', { timeout: 30_000 }, async () => {
    const err: unknown = await backend.reader.grep(ref.locator, '(a+)+$', { timeoutMs: 300 }).catch((e: unknown) => e);
    expect(isSpillError(err, 'SPILL_TIMEOUT')).toBe(true);
    expect((await backend.reader.grep(ref.locator, 'tail')).matches).toEqual([{ line: 51, text: 'tail', truncated: false }]);
  });

  it('keeps the event loop and the backend responsive while a catastrophic regex runs', { timeout: 30_000 }, async () => {
    const ac = new AbortController();
    let settled = false;
    const running = backend.reader
      .grep(ref.locator, '(a+)+$', { timeoutMs: 600_000, signal: ac.signal })
      .catch((e: unknown) => e)
      .finally(() => { settled = true; });
    // A regex on the main thread would block these until it finished; each completes
    // while the search is still running.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    expect((await backend.reader.read(ref.locator, { offset: 51 })).text).toBe('tail\n');
    expect((await backend.reader.grep(ref.locator, 'tail', { literal: true })).matches).toHaveLength(1);
    expect(settled).toBe(false);
    ac.abort();
    expect(isSpillError(await running, 'SPILL_ABORTED')).toBe(true);
  });

  it('aborts a running regex grep with SPILL_ABORTED', async () => {
    const ac = new AbortController();
    setTimeout(() => { ac.abort(); }, 50);
    await expect(backend.reader.grep(ref.locator, '(a+)+$', { signal: ac.signal, timeoutMs: 10_000 })).rejects.toMatchObject({ code: 'SPILL_ABORTED' });
  });

  it.each(['(', '[', 'a{2,1}', '*', 'a\\', '(?<name'])('rejects the invalid pattern %j with SPILL_INVALID_PATTERN', async (pattern) => {
    await expect(backend.reader.grep(ref.locator, pattern)).rejects.toMatchObject({ code: 'SPILL_INVALID_PATTERN' });
  });

  it('rejects a pattern that is not a string, or absurdly long, with SPILL_INVALID_PATTERN', async () => {
    await expect(backend.reader.grep(ref.locator, 5 as unknown as string)).rejects.toMatchObject({ code: 'SPILL_INVALID_PATTERN' });
    await expect(backend.reader.grep(ref.locator, 'a'.repeat(10_001))).rejects.toMatchObject({ code: 'SPILL_INVALID_PATTERN' });
  });

  it.each([[{ maxMatches: -1 }], [{ maxLineBytes: 1.5 }], [{ timeoutMs: 0 }], [{ timeoutMs: Number.NaN }]])(
    'rejects bad options %j with SPILL_INVALID_INPUT',
    async (opts) => {
      await expect(backend.reader.grep(ref.locator, 'a', opts)).rejects.toMatchObject({ code: 'SPILL_INVALID_INPUT' });
    },
  );

  it('runs literal searches in process and regexes in a worker with the same answers', async () => {
    const lit = await backend.reader.grep(ref.locator, 'TAIL', { literal: true, ignoreCase: true });
    const re = await backend.reader.grep(ref.locator, 't.il');
    expect(lit.matches).toEqual(re.matches);
    expect(lit.totalBytes).toBe(32 * 50 + 5);
  });
});
