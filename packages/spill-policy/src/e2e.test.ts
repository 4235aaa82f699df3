// End to end: the policy over the real backends, reading every spilled artifact back
// through the backend's own reader and comparing it byte for byte with the original.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type SpillBackend, sessionId, spillLocator, utf8ByteLength } from '@spillway/core';
import { LOCAL_RETRIEVAL_HINT, createLocalBackend } from '@spillway/local';
import { MEMORY_RETRIEVAL_HINT, createMemoryBackend } from '@spillway/memory';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpillNotice } from './notice.js';
import { createSpillPolicy } from './policy.js';
import { textArb } from './test-backends.js';
import type { SpillEvent, ToolExecution } from './types.js';

const encoder = new TextEncoder();

/** The whole artifact, through the reader, in one read sized to fit it. */
async function readBack(backend: SpillBackend, locator: string, bytes: number): Promise<string> {
  const reader = backend.reader;
  if (reader === undefined) throw new Error(`${backend.name} has no reader`);
  const result = await reader.read(spillLocator(locator), { offset: 1, limit: bytes + 1, maxBytes: bytes + 1 });
  expect(result.totalBytes).toBe(bytes);
  expect(result.hasMore).toBe(false);
  return result.text;
}

function sameBytes(a: string, b: string): boolean {
  return Buffer.from(encoder.encode(a)).equals(Buffer.from(encoder.encode(b)));
}

/** Lines of output, large enough to spill, with multi-byte and astral characters. */
function commandOutput(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${String(i).padStart(5, '0')} é€😀 ${'log '.repeat(i % 13)}`).join('\n');
}

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-policy-e2e-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const backends: [string, () => SpillBackend, string][] = [
  ['@spillway/memory', () => createMemoryBackend(), MEMORY_RETRIEVAL_HINT],
  ['@spillway/local', () => createLocalBackend({ root }), LOCAL_RETRIEVAL_HINT],
];

describe.each(backends)('the policy with %s', (_name, create, hint) => {
  const exec: ToolExecution = { toolName: 'bash', callId: 'call-e2e', sessionId: 'session-e2e' };

  it('spills a large result; the notice names an artifact that reads back byte for byte', async () => {
    const backend = create();
    const events: SpillEvent[] = [];
    const policy = createSpillPolicy({ backend, maxInlineBytes: 2000, onEvent: (e) => events.push(e) });
    const original = commandOutput(3000);
    const out = await policy.applyToResult(exec, { content: [{ type: 'text', text: original }], isError: false });
    const text = (out.content[0] as { text: string }).text;
    expect(out.isError).toBe(false);
    expect(utf8ByteLength(text)).toBeLessThanOrEqual(2000);
    const notice = parseSpillNotice(text);
    expect(notice?.retrievalHint).toBe(hint);
    const locator = notice?.locator ?? '';
    expect(events).toMatchObject([{ type: 'spilled', locator, bytes: utf8ByteLength(original) }]);
    expect(sameBytes(await readBack(backend, locator, utf8ByteLength(original)), original)).toBe(true);
  });

  it('streams command output into the backend; the artifact reads back byte for byte', async () => {
    const backend = create();
    const policy = createSpillPolicy({ backend, maxInlineBytes: 4096 });
    const original = commandOutput(20_000); // ~1 MB
    const stream = policy.stream(exec);
    // Odd chunk sizes, so multi-byte characters and surrogate pairs are split between chunks.
    for (let i = 0; i < original.length; i += 4093) await stream.push(original.slice(i, i + 4093));
    const out = await stream.finish({ isError: true });
    expect(out.isError).toBe(true);
    const text = (out.content[0] as { text: string }).text;
    expect(utf8ByteLength(text)).toBeLessThanOrEqual(4096);
    const notice = parseSpillNotice(text);
    expect(notice).toBeDefined();
    expect(sameBytes(await readBack(backend, notice?.locator ?? '', utf8ByteLength(original)), original)).toBe(true);
    // And the stream's answer is exactly what apply gives for the whole text, but for the locator.
    const applied = await createSpillPolicy({ backend, maxInlineBytes: 4096 }).applyToResult(exec, { content: [{ type: 'text', text: original }], isError: true });
    const appliedText = (applied.content[0] as { text: string }).text;
    const other = parseSpillNotice(appliedText)?.locator ?? '';
    expect(appliedText.replace(other, 'LOCATOR')).toBe(text.replace(notice?.locator ?? '', 'LOCATOR'));
  });

  it('a stream whose cap cannot hold the real notice answers the whole output, as apply does, and deletes the unreferenced artifact', async () => {
    const backend = create();
    const output = Array.from({ length: 100 }, (_, i) => `${String(i + 1)}\n`).join(''); // seq 1 100: 292 bytes
    const session = `session-small-cap-${String(Math.random())}`;
    const small: ToolExecution = { ...exec, sessionId: session };
    const events: SpillEvent[] = [];
    const policy = createSpillPolicy({ backend, maxInlineBytes: 150, onEvent: (e) => events.push(e) });
    const stream = policy.stream(small);
    for (let i = 0; i < output.length; i += 7) await stream.push(output.slice(i, i + 7));
    const streamedOut = await stream.finish();
    const appliedOut = await policy.applyToResult(small, { content: [{ type: 'text', text: output }] });
    expect(streamedOut).toEqual({ content: [{ type: 'text', text: output }] });
    expect(appliedOut).toEqual(streamedOut);
    expect(events).toMatchObject([
      { type: 'kept', reason: 'notice-too-large', bytes: 292, removed: true },
      { type: 'kept', reason: 'notice-too-large', bytes: 292, removed: true },
    ]);
    const left: unknown[] = [];
    for await (const entry of backend.catalog?.list({ sessionId: sessionId(session) }) ?? []) left.push(entry);
    expect(left).toEqual([]);
  });

  it('stores arbitrary text (lone surrogates included) exactly as the policy handed it over', async () => {
    const backend = create();
    await fc.assert(
      fc.asyncProperty(textArb, fc.integer({ min: 200, max: 1500 }), fc.boolean(), async (original, cap, viaStream) => {
        const events: SpillEvent[] = [];
        const policy = createSpillPolicy({ backend, maxInlineBytes: cap, onEvent: (e) => events.push(e) });
        let text: string;
        if (viaStream) {
          const stream = policy.stream(exec);
          for (let i = 0; i < original.length; i += 97) await stream.push(original.slice(i, i + 97));
          text = ((await stream.finish()).content[0] as { text: string }).text;
        } else {
          text = ((await policy.applyToResult(exec, { content: [{ type: 'text', text: original }] })).content[0] as { text: string }).text;
        }
        const spilled = events.find((e) => e.type === 'spilled');
        if (spilled === undefined) {
          // A stream that had to read its output back gets what the backend stored: the
          // same UTF-8, with U+FFFD for each lone surrogate (README, Known limits).
          const readBackByStream = viaStream && events.some((e) => e.type === 'kept' && e.locator !== undefined);
          if (readBackByStream) expect(sameBytes(text, original)).toBe(true);
          else expect(text).toBe(original);
          return;
        }
        expect(utf8ByteLength(text)).toBeLessThanOrEqual(cap);
        expect(sameBytes(await readBack(backend, spilled.locator, spilled.bytes), original)).toBe(true);
      }),
      { numRuns: 40 },
    );
  });
});
