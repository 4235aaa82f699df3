import { describe, expect, it } from 'vitest';
import { describeSpillBackend, resolveConformanceOptions, type DescribeSpillBackendOptions } from './index.js';
import { createReferenceFixture } from './__tests__/reference-backend.js';

const create = (): ReturnType<typeof createReferenceFixture> => createReferenceFixture();

describe('resolveConformanceOptions', () => {
  it('fills in the defaults', () => {
    const resolved = resolveConformanceOptions({ name: 'x', create });
    expect(resolved).toMatchObject({
      numRuns: 20,
      modelRuns: 10,
      maxCommands: 25,
      concurrency: 1000,
      largeContentBytes: 5 * 1024 * 1024,
      testTimeoutMs: 60_000,
      endOnFailure: false,
      seed: undefined,
    });
  });

  it('lowers largeContentBytes to hooks.maxArtifactBytes', () => {
    expect(resolveConformanceOptions({ name: 'x', create, hooks: { maxArtifactBytes: 1000 } }).largeContentBytes).toBe(1000);
  });

  it.each<[string, unknown]>([
    ['no options', undefined],
    ['a missing name', { create }],
    ['an empty name', { name: ' ', create }],
    ['a create that is not a function', { name: 'x', create: {} }],
    ['an unknown option (a typo)', { name: 'x', create, hook: {} }],
    ['an unknown hook', { name: 'x', create, hooks: { readback: () => '' } }],
    ['hooks that are an array', { name: 'x', create, hooks: [] }],
    ['a hook that is not a function', { name: 'x', create, hooks: { listStored: [] } }],
    ['maxArtifactBytes 0', { name: 'x', create, hooks: { maxArtifactBytes: 0 } }],
    ['a fractional maxArtifactBytes', { name: 'x', create, hooks: { maxArtifactBytes: 1.5 } }],
    ['numRuns 0', { name: 'x', create, properties: { numRuns: 0 } }],
    ['an unknown property option', { name: 'x', create, properties: { runs: 3 } }],
    ['a fractional seed', { name: 'x', create, properties: { seed: 1.5 } }],
    ['a string endOnFailure', { name: 'x', create, properties: { endOnFailure: 'yes' } }],
    ['a search that is true', { name: 'x', create, search: true }],
    ['a search that is an object', { name: 'x', create, search: { search: () => undefined } }],
    ['concurrency 1', { name: 'x', create, concurrency: 1 }],
    ['a NaN largeContentBytes', { name: 'x', create, largeContentBytes: Number.NaN }],
    ['a negative testTimeoutMs', { name: 'x', create, testTimeoutMs: -5 }],
  ])('throws a TypeError for %s', (_label, options) => {
    expect(() => resolveConformanceOptions(options as DescribeSpillBackendOptions)).toThrow(TypeError);
  });

  it('names the bad option in the message', () => {
    expect(() => resolveConformanceOptions({ name: 'x', create, hooks: { readback: () => '' } } as never)).toThrow(/unknown hook "readback"/);
  });

  it.each<[string, unknown]>([
    ['an unknown option', { name: 'x', create, hook: {} }],
    ['an unknown hook', { name: 'x', create, hooks: { readback: () => '' } }],
    ['an unknown property option', { name: 'x', create, properties: { runs: 3 } }],
  ])('makes describeSpillBackend itself reject %s with a TypeError naming it', (_label, options) => {
    expect(() => {
      describeSpillBackend(options as DescribeSpillBackendOptions);
    }).toThrow(/describeSpillBackend: unknown (option "hook"|hook "readback"|property option "runs")/);
  });

  it('makes describeSpillBackend throw before it registers anything', () => {
    expect(() => {
      describeSpillBackend({ name: '', create });
    }).toThrow(TypeError);
  });
});

describe('the public API', () => {
  it('exports the options resolver under a name that says what it resolves, and not the generic one', async () => {
    const api: Record<string, unknown> = await import('./index.js');
    expect(typeof api.resolveConformanceOptions).toBe('function');
    expect('resolveOptions' in api).toBe(false);
  });

  it('keeps the entry to what a backend test imports, with the rest on subpaths', async () => {
    const api: Record<string, unknown> = await import('./index.js');
    expect(Object.keys(api).length).toBeLessThanOrEqual(8);
    expect(typeof api.describeSpillBackend).toBe('function');
    const oracle: Record<string, unknown> = await import('./oracle.js');
    const arbitraries: Record<string, unknown> = await import('./arbitraries.js');
    const inputs: Record<string, unknown> = await import('./inputs.js');
    expect(typeof oracle.ReferenceArtifact).toBe('function');
    expect(typeof arbitraries.contentArbitrary).toBe('function');
    expect(Array.isArray(inputs.NAMING_EXAMPLES)).toBe(true);
  });
});

describe('the search option', () => {
  it('keeps a searcher factory, false, or nothing (the default searcher)', () => {
    const factory = (): never => {
      throw new Error('not called');
    };
    expect(resolveConformanceOptions({ name: 'x', create, search: factory }).search).toBe(factory);
    expect(resolveConformanceOptions({ name: 'x', create, search: false }).search).toBe(false);
    expect(resolveConformanceOptions({ name: 'x', create }).search).toBeUndefined();
  });
});
