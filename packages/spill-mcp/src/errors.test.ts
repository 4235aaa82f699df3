import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { isSpillProxyError, SpillProxyError, SPILL_PROXY_ERROR_CODES, SPILL_PROXY_ERROR_MARKER } from './errors.js';

describe('SpillProxyError', () => {
  it('is recognised by its marker, with or without a code', () => {
    const error = new SpillProxyError('SPILLWAY_UPSTREAM_EXITED', 'gone');
    expect(isSpillProxyError(error)).toBe(true);
    expect(isSpillProxyError(error, 'SPILLWAY_UPSTREAM_EXITED')).toBe(true);
    expect(isSpillProxyError(error, 'SPILLWAY_UPSTREAM_MALFORMED')).toBe(false);
    expect(error[SPILL_PROXY_ERROR_MARKER]).toBe(true);
  });

  it('is recognised across realms, where instanceof fails', () => {
    // An error made in another V8 context by another copy of the class: the same
    // Symbol.for key, a different constructor.
    const foreign: unknown = runInNewContext(`
      const marker = Symbol.for('spillway.SpillProxyError');
      class SpillProxyError extends Error {
        constructor(code, message) { super(message); this.name = 'SpillProxyError'; this.code = code; this[marker] = true; }
      }
      new SpillProxyError('SPILLWAY_UPSTREAM_START_FAILED', 'not found');
    `);
    expect(foreign instanceof SpillProxyError).toBe(false);
    expect(foreign instanceof Error).toBe(false);
    expect(isSpillProxyError(foreign)).toBe(true);
    expect(isSpillProxyError(foreign, 'SPILLWAY_UPSTREAM_START_FAILED')).toBe(true);
    expect(isSpillProxyError(foreign, 'SPILLWAY_UPSTREAM_EXITED')).toBe(false);
  });

  it('refuses look-alikes without the marker', () => {
    for (const value of [null, undefined, 'SPILLWAY_UPSTREAM_EXITED', 7, new Error('x'), { code: 'SPILLWAY_UPSTREAM_EXITED', name: 'SpillProxyError' }]) {
      expect(isSpillProxyError(value)).toBe(false);
    }
    expect(isSpillProxyError({ [Symbol.for('spillway.SpillProxyError')]: 'yes' })).toBe(false);
  });

  it('keeps its codes', () => {
    expect(SPILL_PROXY_ERROR_CODES).toEqual(['SPILLWAY_UPSTREAM_START_FAILED', 'SPILLWAY_UPSTREAM_EXITED', 'SPILLWAY_UPSTREAM_MALFORMED']);
  });
});
