import { SpillError, spillLocator, type ReadOptions, type ReadResult, type SpillReader } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { ConformanceFailure, expectSpillRejection, readWhole } from './harness.js';
import { ReferenceArtifact } from './reference-reader.js';

describe('expectSpillRejection', () => {
  it('passes for a rejection with a wanted code', async () => {
    await expect(expectSpillRejection('x', ['SPILL_NOT_FOUND', 'SPILL_EXPIRED'], () => Promise.reject(new SpillError('SPILL_EXPIRED', 'gone')))).resolves.toBeInstanceOf(SpillError);
  });

  it.each<[string, () => Promise<unknown>]>([
    ['a resolution', () => Promise.resolve(1)],
    ['another code', () => Promise.reject(new SpillError('SPILL_NOT_FOUND', 'x'))],
    ['a plain Error with the right code property', () => Promise.reject(Object.assign(new Error('x'), { code: 'SPILL_EXPIRED' }))],
    [
      'a synchronous throw',
      () => {
        throw new SpillError('SPILL_EXPIRED', 'thrown, not rejected');
      },
    ],
  ])('fails for %s', async (_label, call) => {
    await expect(expectSpillRejection('x', 'SPILL_EXPIRED', call)).rejects.toBeInstanceOf(ConformanceFailure);
  });
});

function readerOver(content: string, tamper: (r: ReadResult) => ReadResult = (r) => r): SpillReader {
  const artifact = new ReferenceArtifact(content);
  return {
    read: (_locator, options?: ReadOptions) => Promise.resolve(tamper(artifact.read(options))),
    grep: () => Promise.reject(new Error('unused')),
  };
}

describe('readWhole', () => {
  const locator = spillLocator('x');

  it('reassembles an artifact from pages, widening pages for long lines', async () => {
    const content = `a\n${'b'.repeat(300)}\n\u{1F600}\nend`;
    await expect(readWhole(readerOver(content), locator, { lines: 1, bytes: 8 })).resolves.toBe(content);
  });

  it('fails when a page is larger than maxBytes', async () => {
    const reader = readerOver('abc\ndef\n', (r) => ({ ...r, text: `${r.text}!!!!!!!!!!` }));
    await expect(readWhole(reader, locator, { lines: 1, bytes: 8 })).rejects.toBeInstanceOf(ConformanceFailure);
  });

  it('fails when nextOffset skips a line', async () => {
    const reader = readerOver('a\nb\nc\n', (r) => (r.nextOffset === undefined ? r : { ...r, nextOffset: r.nextOffset + 1 }));
    await expect(readWhole(reader, locator, { lines: 1, bytes: 8 })).rejects.toBeInstanceOf(ConformanceFailure);
  });
});
