import { type SpillReader, SpillError, isSpillError, spillLocator } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { explainMissingArtifacts } from './missing.js';

function failingReader(error: Error): SpillReader {
  return {
    read: () => Promise.reject(error),
    grep: () => Promise.reject(error),
  };
}

const loc = spillLocator('spill+memory://s/1');

describe('explainMissingArtifacts', () => {
  it('keeps SPILL_EXPIRED and tells the model to run the tool again', async () => {
    const cause = new SpillError('SPILL_EXPIRED', 'evicted');
    const reader = explainMissingArtifacts(failingReader(cause));
    for (const call of [() => reader.read(loc), () => reader.grep(loc, 'x')]) {
      const error: unknown = await call().catch((e: unknown) => e);
      expect(isSpillError(error, 'SPILL_EXPIRED')).toBe(true);
      expect((error as Error).message).toMatch(/expired.*run the tool/is);
      expect((error as Error).message).toContain(loc);
      expect((error as Error).cause).toBe(cause);
    }
  });

  it('keeps SPILL_NOT_FOUND and explains it may have expired', async () => {
    const reader = explainMissingArtifacts(failingReader(new SpillError('SPILL_NOT_FOUND', 'ENOENT')));
    const error: unknown = await reader.read(loc).catch((e: unknown) => e);
    expect(isSpillError(error, 'SPILL_NOT_FOUND')).toBe(true);
    expect((error as Error).message).toMatch(/may have expired.*run the tool/is);
  });

  it('passes other errors and successful answers through untouched', async () => {
    const other = new SpillError('SPILL_INVALID_LOCATOR', 'forged');
    await expect(explainMissingArtifacts(failingReader(other)).read(loc)).rejects.toBe(other);
    const answer = { matches: [], limitReached: false, totalBytes: 3 };
    const ok: SpillReader = {
      read: () => Promise.reject(new Error('unused')),
      grep: () => Promise.resolve(answer),
    };
    await expect(explainMissingArtifacts(ok).grep(loc, 'x')).resolves.toBe(answer);
  });
});
