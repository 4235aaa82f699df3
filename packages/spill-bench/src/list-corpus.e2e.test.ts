import { utf8ByteLength } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy } from '@spillway/policy';
import { describe, expect, it } from 'vitest';
import { LIST_CORPUS_DIR, loadCorpus, type CorpusCase } from './preview-corpus.js';

const CAPS = [2048, 8192, 32_768];
const exec = { toolName: 'bash', callId: 'call-1', sessionId: 'list-corpus' };

async function shown(c: CorpusCase, cap: number, preview?: 'head-tail'): Promise<string> {
  const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: cap, ...(preview === undefined ? {} : { preview }) });
  const out = await policy.applyToResult(exec, { content: [{ type: 'text', text: c.text }] });
  return (out.content[0] as { text: string }).text;
}

/** A plain head of the same size as the preview: the text's first bytes, as many as the preview has before its notice. */
function plainHead(text: string, preview: string): string {
  const size = utf8ByteLength(preview.slice(0, preview.lastIndexOf('\n\n(Omitted ')));
  return Buffer.from(text).subarray(0, size).toString('utf8');
}

const kept = (c: CorpusCase, text: string): number => c.needles.filter((n) => text.includes(n)).length;

/**
 * Whether the whole output is one JSON object (`npm view --json`): the preview keeps its
 * shape and tail, whose keys the preview corpus needs, so it is no plain list.
 */
function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

describe('the list corpus (real outputs, items to pick written down before tuning)', () => {
  it('holds labelled real list outputs, every needle verbatim in its output', async () => {
    const corpus = await loadCorpus(LIST_CORPUS_DIR);
    expect(corpus.length).toBeGreaterThanOrEqual(15);
    for (const c of corpus) {
      expect(c.needles.length).toBeGreaterThan(0);
      for (const needle of c.needles) expect(c.text.includes(needle), `${c.name}: ${needle}`).toBe(true);
    }
  });

  it('never holds fewer of a list\'s items than a plain head of the same size, at 2, 8 and 32 KiB', async () => {
    const corpus = (await loadCorpus(LIST_CORPUS_DIR)).filter((c) => c.kind === 'list' && !isJsonObject(c.text));
    expect(corpus.length).toBeGreaterThanOrEqual(12);
    for (const cap of CAPS) {
      for (const c of corpus) {
        const preview = await shown(c, cap);
        expect(kept(c, preview), `${c.name} at ${String(cap)}`).toBeGreaterThanOrEqual(kept(c, plainHead(c.text, preview)));
      }
    }
  });

  it('loses no output whose needles head and tail kept, at 8 and 32 KiB', async () => {
    for (const cap of [8192, 32_768]) {
      for (const c of await loadCorpus(LIST_CORPUS_DIR)) {
        const older = kept(c, await shown(c, cap, 'head-tail'));
        if (older === c.needles.length) expect(kept(c, await shown(c, cap)), `${c.name} at ${String(cap)}`).toBe(older);
      }
    }
  });
});
