import { isSpillError } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SAVE_TIMEOUT_MS, DEFAULT_SKIP_TOOLS, resolveOptions } from './options.js';
import { createSpillPolicy } from './policy.js';
import { fakeBackend } from './test-backends.js';
import type { SpillPolicyOptions } from './types.js';

describe('configuration', () => {
  const backend = fakeBackend({ kind: 'ok', locator: 'l', hint: 'h' });

  it.each([
    ['a negative maxInlineBytes', { maxInlineBytes: -1 }],
    ['a fractional maxInlineBytes', { maxInlineBytes: 1.5 }],
    ['a NaN maxInlineBytes', { maxInlineBytes: Number.NaN }],
    ['an infinite maxInlineBytes', { maxInlineBytes: Number.POSITIVE_INFINITY }],
    ['a string maxInlineBytes', { maxInlineBytes: '5000' }],
    ['a negative previewBytes', { maxInlineBytes: 10, previewBytes: -5 }],
    ['a NaN previewBytes', { maxInlineBytes: 10, previewBytes: Number.NaN }],
    ['a zero saveTimeoutMs', { maxInlineBytes: 10, saveTimeoutMs: 0 }],
    ['a fractional saveTimeoutMs', { maxInlineBytes: 10, saveTimeoutMs: 0.5 }],
    ['an infinite saveTimeoutMs', { maxInlineBytes: 10, saveTimeoutMs: Number.POSITIVE_INFINITY }],
    ['a saveTimeoutMs past the timer limit', { maxInlineBytes: 10, saveTimeoutMs: 2 ** 31 }],
    ['a backend without saveTextStream', { maxInlineBytes: 10, backend: { name: 'x', saveText: () => undefined } }],
    ['a non-object backend', { maxInlineBytes: 10, backend: 'local' }],
    ['skipTools that is not an array of strings', { maxInlineBytes: 10, skipTools: 'read' }],
    ['skipTools with a number', { maxInlineBytes: 10, skipTools: ['read', 1] }],
    ['an onEvent that is not a function', { maxInlineBytes: 10, onEvent: 'log' }],
  ])('throws a TypeError at construction for %s', (_label, options) => {
    expect(() => createSpillPolicy({ backend, ...options } as unknown as SpillPolicyOptions)).toThrow(TypeError);
  });

  it.each([
    ['another version', 'v2', /The fake backend declares specificationVersion 'v2', but createSpillPolicy speaks 'v1'/],
    ['no version', undefined, /declares specificationVersion none/],
  ])('refuses a backend of %s with SPILL_INVALID_INPUT, saying what to do', (_label, version, message) => {
    const other = { ...backend, name: 'fake', specificationVersion: version } as unknown as SpillPolicyOptions['backend'];
    let caught: unknown;
    try {
      createSpillPolicy({ backend: other, maxInlineBytes: 10 });
    } catch (error) {
      caught = error;
    }
    expect(isSpillError(caught, 'SPILL_INVALID_INPUT')).toBe(true);
    expect((caught as Error).message).toMatch(message);
    expect((caught as Error).message).toMatch(/declares specificationVersion: 'v1'|upgrade the packages/);
  });

  it('throws a TypeError for a missing options object', () => {
    expect(() => createSpillPolicy(undefined as unknown as SpillPolicyOptions)).toThrow(TypeError);
  });

  it('is disabled without maxInlineBytes, and validates everything else anyway', () => {
    expect(createSpillPolicy({ backend }).enabled).toBe(false);
    expect(createSpillPolicy({}).enabled).toBe(false);
    expect(() => createSpillPolicy({ previewBytes: -1 })).toThrow(TypeError);
    expect(createSpillPolicy({ backend, maxInlineBytes: 0 }).enabled).toBe(true);
  });

  it('defaults skipTools to read and the timeout to 10 s', () => {
    const resolved = resolveOptions({ maxInlineBytes: 10 });
    expect([...resolved.skipTools]).toEqual(['read']);
    expect(DEFAULT_SKIP_TOOLS).toEqual(['read']);
    expect(resolved.saveTimeoutMs).toBe(DEFAULT_SAVE_TIMEOUT_MS);
    expect(DEFAULT_SAVE_TIMEOUT_MS).toBe(10_000);
    expect(resolved.previewLimit).toBe(Number.POSITIVE_INFINITY);
    expect([...resolveOptions({ maxInlineBytes: 10, skipTools: [] }).skipTools]).toEqual([]);
  });

  it('rejects an unknown option key with a TypeError naming it and the known keys', () => {
    const misspelt = { backend, maxInlineByte: 10 } as unknown as SpillPolicyOptions;
    expect(() => createSpillPolicy(misspelt)).toThrow(TypeError);
    expect(() => createSpillPolicy(misspelt)).toThrow(/"maxInlineByte".*backend, maxInlineBytes, skipTools, previewBytes, saveTimeoutMs, onEvent/);
    // Known keys whose value is undefined are fine.
    expect(createSpillPolicy({ backend, maxInlineBytes: 10, previewBytes: undefined, onEvent: undefined }).enabled).toBe(true);
  });

  it('says what to fix in the message', () => {
    expect(() => createSpillPolicy({ maxInlineBytes: -3 })).toThrow(/maxInlineBytes must be a whole number of bytes, at least 0; got -3/);
  });
});
