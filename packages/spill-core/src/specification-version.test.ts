import { describe, expect, it } from 'vitest';
import { isSpillError } from './errors.js';
import { SPILL_BACKEND_SPECIFICATION_VERSION, assertSpillBackendVersion } from './specification-version.js';

function refusal(backend: unknown): unknown {
  try {
    assertSpillBackendVersion(backend, 'createThing');
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('assertSpillBackendVersion', () => {
  it('accepts a backend that declares the version this release speaks', () => {
    expect(SPILL_BACKEND_SPECIFICATION_VERSION).toBe('v1');
    expect(refusal({ specificationVersion: 'v1', name: 'x' })).toBeUndefined();
  });

  it.each([
    ['another version', { specificationVersion: 'v2', name: 'acme' }, /The acme backend declares specificationVersion 'v2', but createThing speaks 'v1'/],
    ['no version', { name: 'old' }, /The old backend declares specificationVersion none/],
    ['a version that is not a string', { specificationVersion: 1 }, /The backend declares specificationVersion number/],
    ['null', null, /createThing needs a SpillBackend object; got null/],
    ['a function', () => undefined, /got function/],
  ])('refuses %s with SPILL_INVALID_INPUT and says what to do', (_, backend, message) => {
    const error = refusal(backend);
    expect(isSpillError(error, 'SPILL_INVALID_INPUT')).toBe(true);
    expect((error as Error).message).toMatch(message);
    if (typeof backend === 'object' && backend !== null) expect((error as Error).message).toMatch(/upgrade the packages/);
  });
});
