import { describe, expect, it } from 'vitest';
import { describeSpillFileSink, type DescribeSpillFileSinkOptions } from './file-sink.js';
import { resolveFileSinkOptions } from './file-sink-options.js';
import { createReferenceSinkFixture } from './__tests__/reference-file-sink.js';

const create = (): ReturnType<typeof createReferenceSinkFixture> => createReferenceSinkFixture();

describe('resolveFileSinkOptions', () => {
  it('fills in the defaults and keeps the hooks, handing listStored and readBack to the shared harness', () => {
    const listStored = (): string[] => [];
    const locatorOf = (): string => '';
    const resolved = resolveFileSinkOptions({ name: 'x', create, hooks: { listStored, locatorOf } });
    expect(resolved.hooks).toEqual({ listStored, locatorOf });
    expect(resolved.base).toMatchObject({ name: 'x', numRuns: 20, testTimeoutMs: 60_000, endOnFailure: false, seed: undefined });
    expect(resolved.base.hooks).toEqual({ listStored });
  });

  it.each<[string, unknown]>([
    ['no options', undefined],
    ['a missing name', { create }],
    ['a create that is not a function', { name: 'x', create: {} }],
    ['an unknown option (a typo)', { name: 'x', create, hook: {} }],
    ['an option of describeSpillBackend it does not take', { name: 'x', create, concurrency: 10 }],
    ['an unknown hook', { name: 'x', create, hooks: { breakStorage: () => () => undefined } }],
    ['a hook that is not a function', { name: 'x', create, hooks: { locatorOf: 'path' } }],
    ['hooks that are an array', { name: 'x', create, hooks: [] }],
    ['an unknown property option', { name: 'x', create, properties: { modelRuns: 3 } }],
    ['numRuns 0', { name: 'x', create, properties: { numRuns: 0 } }],
    ['a negative testTimeoutMs', { name: 'x', create, testTimeoutMs: -5 }],
  ])('throws a TypeError for %s, saying it is describeSpillFileSink that refuses', (_label, options) => {
    expect(() => resolveFileSinkOptions(options as DescribeSpillFileSinkOptions)).toThrow(/^describeSpillFileSink: /);
  });

  it('names the bad option in the message', () => {
    expect(() => resolveFileSinkOptions({ name: 'x', create, hooks: { locatorof: () => '' } } as never)).toThrow(/unknown hook "locatorof"/);
  });

  it('makes describeSpillFileSink throw before it registers anything', () => {
    expect(() => {
      describeSpillFileSink({ name: '', create });
    }).toThrow(TypeError);
  });
});
