import { callId, sessionId } from '@spillway/core';
import type { SpillBackend } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { describe, expect, it } from 'vitest';
import { RETRIEVAL_HINTS, parseSpillNotice } from './notice.js';
import { createSpillPolicy } from './policy.js';
import type { SpillNoticeReader } from './notice.js';

const exec = { toolName: 'web_fetch', callId: callId('c1'), sessionId: sessionId('s1') };
const big = Array.from({ length: 2000 }, (_, i) => `line ${String(i)}`).join('\n');

async function noticeOf(reader: SpillNoticeReader | undefined, backend: SpillBackend = createMemoryBackend()): Promise<ReturnType<typeof parseSpillNotice>> {
  const policy = createSpillPolicy({ backend, maxInlineBytes: 600, ...(reader === undefined ? {} : { noticeReader: reader }) });
  const shown = await policy.applyToResult(exec, { content: [{ type: 'text', text: big }] });
  const block = shown.content[0];
  return parseSpillNotice(block?.type === 'text' ? (block as { text: string }).text : '');
}

describe('noticeReader', () => {
  it('names what the reader can call, in a notice parseSpillNotice reads back', async () => {
    for (const reader of Object.keys(RETRIEVAL_HINTS) as SpillNoticeReader[]) {
      const notice = await noticeOf(reader);
      expect(notice?.retrievalHint).toBe(RETRIEVAL_HINTS[reader]);
      expect(notice?.locator).toMatch(/^spill\+memory:\/\//);
    }
  });

  it('keeps the backend\'s own hint when omitted', async () => {
    expect((await noticeOf(undefined))?.retrievalHint).toBe(RETRIEVAL_HINTS['spill-tools']);
  });

  it('gives a streamed result the same hint as apply', async () => {
    const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: 600, noticeReader: 'spillway-cli' });
    const stream = policy.stream(exec);
    for (let i = 0; i < big.length; i += 997) await stream.push(big.slice(i, i + 997));
    const block = (await stream.finish()).content[0];
    expect(parseSpillNotice(block?.type === 'text' ? (block as { text: string }).text : '')?.retrievalHint).toBe(RETRIEVAL_HINTS['spillway-cli']);
  });

  it('leaves the backend itself untouched: its reader reads what was spilled', async () => {
    const backend = createMemoryBackend();
    const notice = await noticeOf('spill-tools-and-search', backend);
    const page = await backend.reader.read(notice?.locator as never, { offset: 2000, limit: 1 });
    expect(page.text).toBe('line 1999');
  });

  it('keeps the original when the backend answers a malformed ref, hint or not', async () => {
    const broken = { specificationVersion: 'v1', name: 'broken', saveText: () => Promise.resolve(null), saveTextStream: () => Promise.resolve(null) } as unknown as SpillBackend;
    const policy = createSpillPolicy({ backend: broken, maxInlineBytes: 600, noticeReader: 'spill-tools' });
    const result = { content: [{ type: 'text' as const, text: big }] };
    expect(await policy.applyToResult(exec, result)).toBe(result);
  });

  it('refuses an unknown reader at construction', () => {
    expect(() => createSpillPolicy({ maxInlineBytes: 10, noticeReader: 'bash' as SpillNoticeReader })).toThrow(TypeError);
  });
});
