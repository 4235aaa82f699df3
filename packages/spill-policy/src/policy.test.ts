import { isSpillError, type SpillBackend, utf8ByteLength } from '@spillway/core';
import { describe, expect, it, vi } from 'vitest';
import { parseSpillNotice } from './notice.js';
import { createSpillPolicy } from './policy.js';
import { fakeBackend, textBlock } from './test-backends.js';
import type { PostToolDecision, SpillEvent, SpillKeptEvent, SpillPolicyOptions, ToolExecution, ToolResult } from './types.js';

const exec: ToolExecution = { toolName: 'bash', callId: 'call-1', sessionId: 'session-1' };
const big = 'x'.repeat(5000);
const bigResult: ToolResult = { content: [textBlock(big)] };
const HINT = 'Use read with offset/limit, or grep this path to search within it.';

function setup(options: Partial<SpillPolicyOptions> = {}) {
  const backend = fakeBackend({ kind: 'ok', locator: '/spill/session-1/abc-bash.txt', hint: HINT });
  const events: SpillEvent[] = [];
  const policy = createSpillPolicy({ backend, maxInlineBytes: 1000, onEvent: (e) => events.push(e), ...options });
  return { backend, events, policy };
}

function onlyText(decision: PostToolDecision): string {
  const content = (decision as { content?: { type: string; text?: string }[] }).content;
  expect(content).toHaveLength(1);
  expect(content?.[0]?.type).toBe('text');
  return content?.[0]?.text ?? '';
}

describe('the gate', () => {
  it('spills an over-cap result into one text block of at most the cap, with the notice', async () => {
    const { backend, events, policy } = setup();
    const decision = await policy.apply(exec, bigResult);
    const text = onlyText(decision);
    expect(utf8ByteLength(text)).toBeLessThanOrEqual(1000);
    expect(parseSpillNotice(text)).toEqual({ omittedBytes: 5000 - (events[0] as { shownBytes: number }).shownBytes, locator: '/spill/session-1/abc-bash.txt', retrievalHint: HINT });
    expect(backend.calls).toHaveLength(1);
    expect(backend.calls[0]?.input).toMatchObject({ owner: { sessionId: 'session-1' }, source: { toolName: 'bash', callId: 'call-1' }, suggestedName: 'bash.txt', content: big });
    expect(events).toEqual([{ type: 'spilled', toolName: 'bash', callId: 'call-1', bytes: 5000, shownBytes: expect.any(Number) as number, locator: '/spill/session-1/abc-bash.txt', ms: expect.any(Number) as number }]);
  });

  it('names the artifact after a bounded slice of a huge tool name', async () => {
    const { backend, policy } = setup();
    const toolName = `${'\u{1F600}'.repeat(50)}${'t'.repeat(5_000_000)}`;
    await policy.apply({ ...exec, toolName }, bigResult);
    const input = backend.calls[0]?.input as { suggestedName: string; source: { label?: string; toolName: string } } | undefined;
    expect(input?.suggestedName.length).toBeLessThanOrEqual(204);
    expect(input?.suggestedName.startsWith('\u{1F600}')).toBe(true);
    expect(input?.suggestedName.endsWith('.txt')).toBe(true);
    expect(input?.source.label?.length).toBeLessThanOrEqual(210);
    // The source still says which tool it was, verbatim: it is descriptive.
    expect(input?.source.toolName).toBe(toolName);
  });

  it('passes a result at exactly the cap through, and spills one byte more', async () => {
    const { backend, policy } = setup();
    const atCap: ToolResult = { content: [textBlock('é'.repeat(500))] }; // 1000 bytes
    expect(await policy.applyToResult(exec, atCap)).toBe(atCap);
    expect(backend.calls).toHaveLength(0);
    const over = await policy.applyToResult(exec, { content: [textBlock(`${'é'.repeat(500)}a`)] });
    expect(parseSpillNotice((over.content[0] as { text: string }).text)).toBeDefined();
    expect(backend.calls).toHaveLength(1);
  });

  it('joins several text blocks with a line break, measures the join, and stores it', async () => {
    const { backend, policy } = setup();
    const result: ToolResult = { content: [textBlock('a'.repeat(500)), textBlock('b'.repeat(500))] }; // 1001 bytes joined
    const out = await policy.applyToResult(exec, result);
    expect(out.content).toHaveLength(1);
    expect(backend.calls[0]?.content).toBe(`${'a'.repeat(500)}\n${'b'.repeat(500)}`);
  });

  it('is the identity when disabled, and never touches the backend', async () => {
    const { backend, events, policy } = setup({ maxInlineBytes: undefined });
    expect(policy.enabled).toBe(false);
    const decision = { kind: 'accept' as const };
    expect(await policy.apply(exec, bigResult, decision)).toBe(decision);
    expect(await policy.applyToResult(exec, bigResult)).toBe(bigResult);
    const stream = policy.stream(exec);
    await stream.push(big);
    expect(await stream.finish()).toEqual(bigResult);
    expect(backend.calls).toHaveLength(0);
    expect(events).toHaveLength(0);
  });

  it('answers { kind: "accept" } for an unchanged result when no decision was given', async () => {
    const { policy } = setup();
    expect(await policy.apply(exec, { content: [textBlock('small')] })).toEqual({ kind: 'accept' });
  });
});

describe('pass-through answers at once', () => {
  /**
   * Which settles first: `promise`, or a callback queued on the microtask queue just after
   * it was created. A promise that is already settled when returned wins; one that still
   * awaits anything (another async function, say) comes after.
   */
  async function firstOf(promise: Promise<unknown>): Promise<string[]> {
    const order: string[] = [];
    const answered = promise.then(() => order.push('answer'));
    const next = Promise.resolve().then(() => order.push('next microtask'));
    await Promise.all([answered, next]);
    return order;
  }

  it('answers an under-cap result, an excluded tool and a non-text result with a promise already settled', async () => {
    const { backend, events, policy } = setup();
    const small: ToolResult = { content: [textBlock('small')] };
    const decision: PostToolDecision = { kind: 'accept' };
    expect(await firstOf(policy.apply(exec, small, decision))).toEqual(['answer', 'next microtask']);
    expect(await firstOf(policy.apply(exec, small))).toEqual(['answer', 'next microtask']);
    expect(await firstOf(policy.applyToResult(exec, small))).toEqual(['answer', 'next microtask']);
    expect(await firstOf(policy.apply({ ...exec, toolName: 'read' }, bigResult, decision))).toEqual(['answer', 'next microtask']);
    expect(await firstOf(policy.apply(exec, { content: [{ type: 'image' }] }))).toEqual(['answer', 'next microtask']);
    expect(await policy.apply(exec, small, decision)).toBe(decision);
    expect(backend.calls).toHaveLength(0);
    expect(events).toEqual([]);
  });

  it('answers a spill later, after the save (the order check above can fail)', async () => {
    const { backend, policy } = setup();
    expect(await firstOf(policy.apply(exec, bigResult))).toEqual(['next microtask', 'answer']);
    expect(backend.calls).toHaveLength(1);
  });
});

describe('exclusions pass through unchanged, without the backend or an event', () => {
  const cases: [string, ToolExecution, ToolResult, PostToolDecision | undefined][] = [
    ['a non-accept decision', exec, bigResult, { kind: 'block', reason: 'policy' }],
    ['an accepted value replacement', exec, bigResult, { kind: 'accept', value: { rows: 5 } }],
    ['a nested execution', { ...exec, parentCallId: 'outer' }, bigResult, undefined],
    ['a skipped tool (read, by default)', { ...exec, toolName: 'read' }, bigResult, undefined],
    ['a result with an image block', exec, { content: [textBlock(big), { type: 'image', data: 'AAAA', mimeType: 'image/png' }] }, undefined],
    ['a text block whose text is not a string', exec, { content: [{ type: 'text', text: 42 }] }, undefined],
    ['content that is not an array', exec, { content: 'nope' } as unknown as ToolResult, undefined],
    ['a decision whose replacement content has a non-text block', exec, bigResult, { kind: 'accept', content: [{ type: 'audio', data: 'x' }] }],
  ];

  it.each(cases)('%s', async (_label, execution, result, decision) => {
    const { backend, events, policy } = setup();
    const out = await policy.apply(execution, result, decision);
    expect(out).toBe(decision ?? out);
    if (decision === undefined) expect(out).toEqual({ kind: 'accept' });
    if (decision === undefined) expect(await policy.applyToResult(execution, result)).toBe(result);
    expect(backend.calls).toHaveLength(0);
    expect(events).toHaveLength(0);
  });

  it('honours a custom skipTools list (and then read is no longer skipped)', async () => {
    const { backend, policy } = setup({ skipTools: ['spill_read', 'spill_grep'] });
    expect(await policy.applyToResult({ ...exec, toolName: 'spill_read' }, bigResult)).toBe(bigResult);
    expect(backend.calls).toHaveLength(0);
    await policy.applyToResult({ ...exec, toolName: 'read' }, bigResult);
    expect(backend.calls).toHaveLength(1);
  });
});

describe('decisions', () => {
  it('measures and spills decision.content, not the original content, when a hook replaced it', async () => {
    const { backend, policy } = setup();
    const replaced = 'r'.repeat(3000);
    const decision: PostToolDecision = { kind: 'accept', content: [textBlock(replaced)], note: 'kept' };
    const out = await policy.apply(exec, { content: [textBlock('tiny')] }, decision);
    expect(backend.calls[0]?.content).toBe(replaced);
    expect(out).toMatchObject({ kind: 'accept', note: 'kept' });
    expect(onlyText(out)).toContain('(Omitted ');
    // A small replacement of a big result passes: the replacement is what is measured.
    const small: PostToolDecision = { kind: 'accept', content: [textBlock('short')] };
    expect(await policy.apply(exec, bigResult, small)).toBe(small);
  });
});

describe('best effort: the original is kept and an event says why', () => {
  async function keptReason(options: Partial<SpillPolicyOptions>, execution: ToolExecution = exec): Promise<SpillKeptEvent> {
    const events: SpillEvent[] = [];
    const policy = createSpillPolicy({ maxInlineBytes: 1000, saveTimeoutMs: 20, onEvent: (e) => events.push(e), ...options });
    const result: ToolResult = { content: [textBlock(big)], isError: true };
    const out = await policy.applyToResult(execution, result);
    expect(out).toBe(result);
    expect(await policy.apply(execution, result)).toEqual({ kind: 'accept' });
    expect(events).toHaveLength(2);
    expect(events[0]).toMatchObject({ type: 'kept', toolName: execution.toolName, bytes: 5000 });
    return events[0] as SpillKeptEvent;
  }

  it('no session id → no-session (backend untouched)', async () => {
    const backend = fakeBackend({ kind: 'ok', locator: 'l', hint: 'h' });
    expect((await keptReason({ backend }, { toolName: 'bash', callId: 'c' })).reason).toBe('no-session');
    expect(backend.calls).toHaveLength(0);
  });

  it('an empty call id → invalid-execution', async () => {
    const backend = fakeBackend({ kind: 'ok', locator: 'l', hint: 'h' });
    expect((await keptReason({ backend }, { ...exec, callId: '' })).reason).toBe('invalid-execution');
    expect(backend.calls).toHaveLength(0);
  });

  it('no backend → no-backend', async () => {
    expect((await keptReason({})).reason).toBe('no-backend');
  });

  it('a rejection → save-rejected, with the rejection value as the error', async () => {
    const value = { weird: true };
    expect(await keptReason({ backend: fakeBackend({ kind: 'reject', value }) })).toMatchObject({ reason: 'save-rejected', error: value });
  });

  it('a synchronous throw → save-threw', async () => {
    expect(await keptReason({ backend: fakeBackend({ kind: 'throw', value: 'boom' }) })).toMatchObject({ reason: 'save-threw', error: 'boom' });
  });

  it('a thenable whose then throws → save-rejected', async () => {
    expect((await keptReason({ backend: fakeBackend({ kind: 'thenable-throws', value: 7 }) })).reason).toBe('save-rejected');
  });

  it.each([
    ['undefined', undefined],
    ['a number', 42],
    ['an empty locator', { locator: '', bytes: 5000, retrievalHint: 'h' }],
    ['a numeric hint', { locator: 'l', bytes: 5000, retrievalHint: 1 }],
    ['bytes as a string', { locator: 'l', bytes: '5000', retrievalHint: 'h' }],
    ['throwing getters', Object.defineProperty({}, 'locator', { get: () => { throw new Error('getter'); }, enumerable: true })],
  ])('a ref that is %s → malformed-ref', async (_label, value) => {
    const event = await keptReason({ backend: fakeBackend({ kind: 'garbage', value }) });
    expect(event.reason).toBe('malformed-ref');
    expect(isSpillError(event.error, 'SPILL_STORAGE_FAILED')).toBe(true);
  });

  it('a ref whose byte count differs from what was handed over → malformed-ref', async () => {
    expect((await keptReason({ backend: fakeBackend({ kind: 'wrong-bytes', locator: 'l' }) })).reason).toBe('malformed-ref');
  });

  it('a save that never settles → timeout exactly at saveTimeoutMs, and the save is aborted through its signal', async () => {
    vi.useFakeTimers();
    try {
      const backend = fakeBackend({ kind: 'hang', honoursSignal: false });
      const events: SpillEvent[] = [];
      const policy = createSpillPolicy({ backend, maxInlineBytes: 1000, saveTimeoutMs: 10_000, onEvent: (e) => events.push(e) });
      const result: ToolResult = { content: [textBlock(big)] };
      let settled: ToolResult | undefined;
      void policy.applyToResult(exec, result).then((out) => (settled = out));
      await vi.advanceTimersByTimeAsync(9_999);
      expect(settled).toBeUndefined();
      expect(backend.calls[0]?.signal?.aborted).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe(result);
      expect(events).toMatchObject([{ type: 'kept', reason: 'timeout' }]);
      const event = events[0] as SpillKeptEvent;
      expect(isSpillError(event.error, 'SPILL_TIMEOUT')).toBe(true);
      expect(backend.calls[0]?.signal?.aborted).toBe(true);
      expect(isSpillError(backend.calls[0]?.signal?.reason, 'SPILL_TIMEOUT')).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a backend that answers an abort by rejecting still reports timeout', async () => {
    expect((await keptReason({ backend: fakeBackend({ kind: 'hang', honoursSignal: true }) })).reason).toBe('timeout');
  });

  it('a notice larger than the cap → notice-too-large, before saving when even the shortest notice cannot fit', async () => {
    const backend = fakeBackend({ kind: 'ok', locator: 'l', hint: 'h' });
    const event = await keptReason({ backend, maxInlineBytes: 50 });
    expect(event.reason).toBe('notice-too-large');
    expect(backend.calls).toHaveLength(0);
  });

  it('a notice that only the real locator pushes over the cap → notice-too-large after saving, naming the artifact (no catalog: kept)', async () => {
    const locator = `/very/long/${'d'.repeat(200)}`;
    const backend = fakeBackend({ kind: 'ok', locator, hint: HINT });
    const event = await keptReason({ backend, maxInlineBytes: 150 });
    expect(event).toMatchObject({ reason: 'notice-too-large', locator, removed: false });
    expect(backend.calls).toHaveLength(2);
    expect(backend.stored.has(locator)).toBe(true);
  });

  it('deletes that unreferenced artifact through the catalog, and says so in the event', async () => {
    const locator = `/very/long/${'d'.repeat(200)}`;
    const backend = fakeBackend({ kind: 'ok', locator, hint: HINT }, { catalog: true });
    const event = await keptReason({ backend, maxInlineBytes: 150 });
    expect(event).toMatchObject({ reason: 'notice-too-large', locator, removed: true });
    expect(backend.deleted).toEqual([locator, locator]);
    expect(backend.stored.size).toBe(0);
  });

  it.each([
    ['rejects', () => Promise.reject(new Error('EACCES'))],
    ['throws synchronously', () => {
      throw new Error('sync');
    }],
    ['answers "already gone"', () => Promise.resolve(false)],
    ['never settles (bounded by saveTimeoutMs)', () => new Promise<boolean>(() => undefined)],
  ])('keeps the original and reports removed: false when the delete %s', async (_label, remove) => {
    const locator = `/very/long/${'d'.repeat(200)}`;
    const base = fakeBackend({ kind: 'ok', locator, hint: HINT }, { catalog: true });
    const backend = { ...base, catalog: { ...base.catalog, delete: remove } } as unknown as SpillBackend;
    const event = await keptReason({ backend, maxInlineBytes: 150 });
    expect(event).toMatchObject({ reason: 'notice-too-large', locator, removed: false });
  });

  it('never changes isError', async () => {
    const { policy } = setup();
    for (const isError of [true, false, undefined]) {
      const result: ToolResult = isError === undefined ? { content: [textBlock(big)] } : { content: [textBlock(big)], isError };
      const out = await policy.applyToResult(exec, result);
      expect(out.isError).toBe(isError);
      expect('isError' in out).toBe(isError !== undefined);
    }
  });
});

describe('events', () => {
  it('a throwing or rejecting onEvent never breaks the call', async () => {
    for (const onEvent of [
      () => {
        throw new Error('listener bug');
      },
      () => Promise.reject(new Error('async listener bug')),
    ]) {
      const unhandled = vi.fn();
      process.on('unhandledRejection', unhandled);
      // eslint-disable-next-line @typescript-eslint/no-misused-promises -- an async listener is exactly what is tested
      const policy = createSpillPolicy({ backend: fakeBackend({ kind: 'ok', locator: 'l', hint: 'h' }), maxInlineBytes: 1000, onEvent });
      const out = await policy.applyToResult(exec, bigResult);
      expect(parseSpillNotice((out.content[0] as { text: string }).text)?.locator).toBe('l');
      await new Promise((resolve) => setTimeout(resolve, 10));
      process.off('unhandledRejection', unhandled);
      expect(unhandled).not.toHaveBeenCalled();
    }
  });
});

describe('hostile inputs', () => {
  it('apply resolves, unchanged, for garbage executions, results and decisions', async () => {
    const { policy } = setup();
    // Every property read throws, except `then`: resolving a promise with an object reads
    // its `then`, so a thenable cannot be passed through by any async function (README).
    const hostile = new Proxy(
      {},
      {
        get(_target, key) {
          if (key === 'then') return undefined;
          throw new Error('trap');
        },
        ownKeys() {
          throw new Error('trap');
        },
      },
    );
    for (const [e, r, d] of [
      [null, bigResult, undefined],
      [exec, null, undefined],
      [exec, bigResult, null],
      [exec, bigResult, 'accept'],
      [hostile, bigResult, undefined],
      [exec, hostile, undefined],
      [exec, bigResult, hostile],
      [exec, { content: [hostile] }, undefined],
    ] as [ToolExecution, ToolResult, PostToolDecision | undefined][]) {
      const out = await policy.apply(e, r, d);
      expect(out).toBe(d ?? out);
      // Without the garbage decision, a valid execution and result would spill.
      if (d === undefined) expect(await policy.applyToResult(e, r)).toBe(r);
    }
  });

  describe('a decision or result with a then (promise resolution would read or call it)', () => {
    /** Settles with apply's answer, or 'hung' if it does not settle soon. */
    function settle<T>(promise: Promise<T>): Promise<T | 'hung'> {
      return Promise.race([promise, new Promise<'hung'>((resolve) => setTimeout(() => {
        resolve('hung');
      }, 200))]);
    }
    const throwingThen = (fields: object): object =>
      Object.defineProperty({ ...fields }, 'then', {
        get() {
          throw new Error('then getter');
        },
        enumerable: true,
      });

    it('passes a non-accept decision with a throwing then getter through as a copy without then', async () => {
      const { backend, policy } = setup();
      const decision = throwingThen({ kind: 'block', reason: 'policy' }) as PostToolDecision;
      const out = await settle(policy.apply(exec, bigResult, decision));
      expect(out).toEqual({ kind: 'block', reason: 'policy' });
      expect(Object.getOwnPropertyDescriptor(out, 'then')).toBeUndefined();
      expect(backend.calls).toHaveLength(0);
    });

    it('never calls a then method (own or inherited), so a thenable that never calls back cannot hang apply', async () => {
      const { policy } = setup();
      const calls: string[] = [];
      const own = { kind: 'deny', then: () => calls.push('own') } as PostToolDecision;
      const inherited = Object.assign(Object.create({ then: () => calls.push('inherited') }) as object, { kind: 'deny' }) as PostToolDecision;
      expect(await settle(policy.apply(exec, bigResult, own))).toEqual({ kind: 'deny' });
      expect(await settle(policy.apply(exec, bigResult, inherited))).toEqual({ kind: 'deny' });
      expect(calls).toEqual([]);
    });

    it('still spills an accept decision with a then, keeping its other fields', async () => {
      const { backend, policy } = setup();
      const decision = throwingThen({ kind: 'accept', note: 'n' }) as PostToolDecision;
      const out = await settle(policy.apply(exec, bigResult, decision));
      expect(out).toMatchObject({ kind: 'accept', note: 'n' });
      expect(parseSpillNotice(onlyText(out as PostToolDecision))).toBeDefined();
      expect(Object.getOwnPropertyDescriptor(out, 'then')).toBeUndefined();
      expect(backend.calls).toHaveLength(1);
    });

    it('applyToResult answers a result with a throwing then getter (under or over the cap) without then', async () => {
      const { policy } = setup();
      const small = throwingThen({ content: [textBlock('small')], isError: true }) as ToolResult;
      expect(await settle(policy.applyToResult(exec, small))).toEqual({ content: [textBlock('small')], isError: true });
      const large = throwingThen({ content: [textBlock(big)], isError: false }) as ToolResult;
      const out = await settle(policy.applyToResult(exec, large));
      expect(out).toMatchObject({ isError: false });
      expect(parseSpillNotice(((out as ToolResult).content[0] as { text: string }).text)).toBeDefined();
    });

    it('keeps identity for an object whose then is a plain value, which promise resolution accepts', async () => {
      const { policy } = setup();
      const decision = { kind: 'block', then: 'not a function' } as PostToolDecision;
      expect(await policy.apply(exec, bigResult, decision)).toBe(decision);
    });
  });
});
