import { utf8ByteLength } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatSpillNotice, parseSpillNotice } from './notice.js';
import { createSpillPolicy } from './policy.js';
import { previewMarker } from './preview.js';
import { type Behaviour, behaviourArb, fakeBackend, textArb } from './test-backends.js';
import type { ContentBlock, PostToolDecision, SpillEvent, ToolExecution, ToolResult } from './types.js';

const SKIP = ['read', 'spill_read'];
const RUNS = 300;

const blockArb: fc.Arbitrary<ContentBlock> = fc.oneof(
  { weight: 6, arbitrary: textArb.map((text) => ({ type: 'text' as const, text })) },
  { weight: 1, arbitrary: fc.record({ type: fc.constantFrom('image', 'audio', 'resource'), data: fc.string({ maxLength: 20 }) }) },
);
const contentArb = fc.array(blockArb, { maxLength: 3 });

const execArb: fc.Arbitrary<ToolExecution> = fc.record(
  {
    toolName: fc.oneof(fc.constantFrom('bash', 'web_fetch', 'read', 'spill_read'), fc.string({ maxLength: 8 })),
    callId: fc.oneof({ weight: 5, arbitrary: fc.constant('call-1') }, fc.string({ maxLength: 4 })),
    sessionId: fc.oneof({ weight: 5, arbitrary: fc.constant('session-1') }, fc.string({ maxLength: 4 })),
    parentCallId: fc.string({ maxLength: 3 }),
  },
  { requiredKeys: ['toolName', 'callId'] },
);

const resultArb: fc.Arbitrary<ToolResult> = fc.record({ content: contentArb, isError: fc.boolean() }, { requiredKeys: ['content'] });

const decisionArb: fc.Arbitrary<PostToolDecision | undefined> = fc.oneof(
  { weight: 4, arbitrary: fc.constant(undefined) },
  fc.constant({ kind: 'accept' as const }),
  fc.record({ kind: fc.constant('accept' as const), content: contentArb, note: fc.string({ maxLength: 5 }) }, { requiredKeys: ['kind', 'content'] }),
  fc.record({ kind: fc.constant('accept' as const), value: fc.anything().filter((v) => v !== undefined) }),
  fc.record({ kind: fc.string({ maxLength: 8 }).filter((k) => k !== 'accept'), reason: fc.string({ maxLength: 8 }) }),
);

const capArb = fc.oneof(fc.integer({ min: 0, max: 150 }), { weight: 4, arbitrary: fc.integer({ min: 100, max: 3000 }) });
const previewArb = fc.option(fc.nat({ max: 1000 }), { nil: undefined });

interface Case {
  exec: ToolExecution;
  result: ToolResult;
  decision: PostToolDecision | undefined;
  cap: number;
  previewBytes: number | undefined;
  behaviour: Behaviour;
}
const caseArb: fc.Arbitrary<Case> = fc.record({
  exec: execArb,
  result: resultArb,
  decision: decisionArb,
  cap: capArb,
  previewBytes: previewArb,
  behaviour: behaviourArb,
});

function run(c: Case) {
  const backend = fakeBackend(c.behaviour);
  const events: SpillEvent[] = [];
  const policy = createSpillPolicy({
    backend,
    maxInlineBytes: c.cap,
    previewBytes: c.previewBytes,
    skipTools: SKIP,
    saveTimeoutMs: 5,
    onEvent: (e) => events.push(e),
  });
  return { backend, events, policy };
}

/** The content the policy should measure, or undefined when the decision excludes the call. */
function measured(c: Case): readonly ContentBlock[] | undefined {
  const d = c.decision as { kind: string; content?: readonly ContentBlock[]; value?: unknown } | undefined;
  if (d === undefined) return c.result.content;
  if (d.kind !== 'accept' || d.value !== undefined) return undefined;
  return d.content ?? c.result.content;
}

function joined(content: readonly ContentBlock[]): string | undefined {
  const texts: string[] = [];
  for (const block of content) {
    if (block.type !== 'text' || typeof block.text !== 'string') return undefined;
    texts.push(block.text);
  }
  return texts.join('\n');
}

/** Everything the rules exclude, computed independently of the implementation. */
function excluded(c: Case): boolean {
  const content = measured(c);
  if (content === undefined) return true;
  if (c.exec.parentCallId !== undefined && c.exec.parentCallId !== '') return true;
  if (SKIP.includes(c.exec.toolName)) return true;
  const text = joined(content);
  return text === undefined || utf8ByteLength(text) <= c.cap;
}

function replacementText(decision: PostToolDecision): string | undefined {
  const content = (decision as { content?: readonly ContentBlock[] }).content;
  const block = content?.[0];
  return content?.length === 1 && block?.type === 'text' && typeof block.text === 'string' ? block.text : undefined;
}

describe('apply, over arbitrary executions, results, decisions and backend behaviours', () => {
  it('always resolves and never changes isError', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { policy } = run(c);
        const decision = await policy.apply(c.exec, c.result, c.decision);
        expect(decision).toBeDefined();
        const out = await policy.applyToResult(c.exec, c.result);
        expect(out.isError).toBe(c.result.isError);
        expect('isError' in out).toBe('isError' in c.result);
      }),
      { numRuns: RUNS },
    );
  });

  it('answers the decision unchanged, or an accept with one text block within the cap and smaller than the original', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { policy } = run(c);
        const out = await policy.apply(c.exec, c.result, c.decision);
        if (c.decision === undefined ? out.kind === 'accept' && !('content' in out) : out === c.decision) {
          if (c.decision === undefined) expect(out).toEqual({ kind: 'accept' });
          return;
        }
        expect(out.kind).toBe('accept');
        const text = replacementText(out);
        expect(text).toBeDefined();
        const original = joined(measured(c) ?? []) ?? '';
        expect(utf8ByteLength(text ?? '')).toBeLessThanOrEqual(c.cap);
        expect(utf8ByteLength(text ?? '')).toBeLessThan(utf8ByteLength(original));
      }),
      { numRuns: RUNS },
    );
  });

  it('never calls the backend (nor reports an event) for excluded cases, and always tries when it may', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, fc.boolean(), async (c, disabled) => {
        const backend = fakeBackend(c.behaviour);
        const events: SpillEvent[] = [];
        const policy = createSpillPolicy({
          backend,
          maxInlineBytes: disabled ? undefined : c.cap,
          skipTools: SKIP,
          saveTimeoutMs: 5,
          onEvent: (e) => events.push(e),
        });
        const out = await policy.apply(c.exec, c.result, c.decision);
        if (disabled || excluded(c)) {
          expect(backend.calls).toHaveLength(0);
          expect(events).toHaveLength(0);
          expect(out).toEqual(c.decision ?? { kind: 'accept' });
          return;
        }
        expect(events).toHaveLength(1);
        const mayTry =
          c.exec.callId !== '' &&
          c.exec.sessionId !== undefined &&
          c.exec.sessionId !== '' &&
          formatSpillNotice({ omittedBytes: utf8ByteLength(joined(measured(c) ?? []) ?? ''), locator: '-', retrievalHint: '' }).length <= c.cap;
        expect(backend.calls).toHaveLength(mayTry ? 1 : 0);
      }),
      { numRuns: RUNS },
    );
  });

  it('shows a head that is a prefix and a tail that is a suffix of the original, splitting no surrogate pair', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { policy, events } = run(c);
        const out = await policy.apply(c.exec, c.result, c.decision);
        const spilled = events.find((e) => e.type === 'spilled');
        if (spilled === undefined) return;
        const original = joined(measured(c) ?? []) ?? '';
        const text = replacementText(out) ?? '';
        const behaviour = c.behaviour as Extract<Behaviour, { kind: 'ok' }>;
        const notice = formatSpillNotice({ omittedBytes: spilled.bytes - spilled.shownBytes, locator: behaviour.locator, retrievalHint: behaviour.hint });
        expect(text.endsWith(notice)).toBe(true);
        if (spilled.shownBytes === 0) {
          expect(text).toBe(notice);
          return;
        }
        const preview = text.slice(0, text.length - notice.length - 2);
        expect(text.slice(preview.length, preview.length + 2)).toBe('\n\n');
        const marker = previewMarker(spilled.bytes - spilled.shownBytes);
        // The head may itself contain the marker text; some split must work.
        let ok = false;
        for (let at = preview.indexOf(marker); at >= 0 && !ok; at = preview.indexOf(marker, at + 1)) {
          const head = preview.slice(0, at);
          const tail = preview.slice(at + marker.length);
          ok =
            original.startsWith(head) &&
            original.endsWith(tail) &&
            utf8ByteLength(head) + utf8ByteLength(tail) === spilled.shownBytes &&
            !splitsPair(original, head.length) &&
            !splitsPair(original, original.length - tail.length);
        }
        expect(ok).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('hands the backend exactly the original text, and the notice accounts for every byte of it', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const { policy, backend } = run(c);
        const out = await policy.apply(c.exec, c.result, c.decision);
        if (backend.calls.length === 0) return;
        const original = joined(measured(c) ?? []);
        expect(backend.calls[0]?.content).toBe(original);
        const text = replacementText(out);
        if (text === undefined || c.behaviour.kind !== 'ok' || c.behaviour.hint.includes('. ')) return;
        // A notice that cannot fit the cap keeps the original: the decision comes back as is.
        if (out === c.decision) return;
        const notice = parseSpillNotice(text);
        expect(notice?.locator).toBe(c.behaviour.locator);
        expect(notice?.retrievalHint).toBe(c.behaviour.hint);
      }),
      { numRuns: RUNS },
    );
  });

  it('never mutates its inputs (compared with a structured clone), and works the same on deeply frozen ones', async () => {
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const before = structuredClone({ exec: c.exec, result: c.result, decision: c.decision });
        const plain = run(c);
        const out = await plain.policy.apply(c.exec, c.result, c.decision);
        await run(c).policy.applyToResult(c.exec, c.result);
        expect({ exec: c.exec, result: c.result, decision: c.decision }).toEqual(before);

        const frozen = deepFreeze(structuredClone(before));
        const again = run(c);
        const frozenOut = await again.policy.apply(frozen.exec, frozen.result, frozen.decision);
        expect(again.backend.calls.length).toBe(plain.backend.calls.length);
        expect(replacementText(frozenOut)).toBe(replacementText(out));
      }),
      { numRuns: RUNS },
    );
  });
});

function splitsPair(text: string, i: number): boolean {
  if (i <= 0 || i >= text.length) return false;
  const a = text.charCodeAt(i - 1);
  const b = text.charCodeAt(i);
  return a >= 0xd800 && a <= 0xdbff && b >= 0xdc00 && b <= 0xdfff;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Reflect.ownKeys(value)) deepFreeze((value as Record<PropertyKey, unknown>)[key]);
  }
  return value;
}
