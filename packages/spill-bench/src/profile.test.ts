import { describe, expect, it } from 'vitest';
import { FULL, QUICK, overrideProfile } from './profile.js';

describe('profiles', () => {
  it('use the sizes docs/benchmarks.md reports in the full run', () => {
    expect(FULL.stream.bytes).toBe(2 * 1024 ** 3);
    expect(FULL.stream.chunk).toBe(64 * 1024);
    expect(FULL.cli.bytes).toBe(1024 ** 3);
    expect(FULL.localSizes).toEqual({ small: 4096, medium: 1024 ** 2, large: 64 * 1024 ** 2 });
    expect(FULL.scale.saves).toBe(100_000);
    expect(FULL.retrieval.readAt).toBe(4_000_000);
    expect(FULL.retrieval.grepBytes).toBe(256 * 1024 ** 2);
  });

  it('keep the read inside the artifact in both runs', () => {
    for (const p of [FULL, QUICK]) expect(p.retrieval.readAt + 99).toBeLessThanOrEqual(p.retrieval.readLines);
  });

  it('make the quick run smaller than the full run where size drives time', () => {
    expect(QUICK.stream.bytes).toBeLessThan(FULL.stream.bytes);
    expect(QUICK.cli.bytes).toBeLessThan(FULL.cli.bytes);
    expect(QUICK.scale.saves).toBeLessThan(FULL.scale.saves);
    expect(QUICK.retrieval.readLines).toBeLessThan(FULL.retrieval.readLines);
  });
});

describe('overrideProfile', () => {
  it('sets nested values, parsing units, without touching the base profile', () => {
    const p = overrideProfile(QUICK, ['stream.bytes=512MiB', 'cli.rounds=5']);
    expect(p.stream.bytes).toBe(512 * 1024 ** 2);
    expect(p.cli.rounds).toBe(5);
    expect(QUICK.stream.bytes).toBe(128 * 1024 ** 2);
  });

  it('refuses unknown keys and malformed assignments', () => {
    expect(() => overrideProfile(QUICK, ['stream.nope=1'])).toThrow(/Unknown profile key/);
    expect(() => overrideProfile(QUICK, ['nope.bytes=1'])).toThrow(/Unknown profile key/);
    expect(() => overrideProfile(QUICK, ['stream.bytes'])).toThrow(/key=value/);
    expect(() => overrideProfile(QUICK, ['stream.bytes=lots'])).toThrow(/is not a size/);
  });
});
