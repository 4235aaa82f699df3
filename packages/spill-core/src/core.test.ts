import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import {
  SPILL_ERROR_CODES,
  SpillError,
  abortedError,
  assertSaveTextRequest,
  assertSaveTextStreamRequest,
  callId,
  isAbortSignalLike,
  isSpillError,
  isSpillErrorCode,
  raceAbort,
  sessionId,
  spillLocator,
  throwIfAborted,
  utf8ByteLength,
  utf8ByteLengthBounds,
  utf8ByteLengthPortable,
} from './index.js';

describe('branded constructors', () => {
  it('accept any non-empty string and return it unchanged', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, unit: 'binary' }), (s) => {
        expect(spillLocator(s)).toBe(s);
        expect(sessionId(s)).toBe(s);
        expect(callId(s)).toBe(s);
      }),
    );
  });

  it('throw a TypeError for empty strings and non-strings', () => {
    for (const bad of ['', undefined, null, 42, {}]) {
      expect(() => spillLocator(bad as string)).toThrow(TypeError);
      expect(() => sessionId(bad as string)).toThrow(TypeError);
      expect(() => callId(bad as string)).toThrow(TypeError);
    }
  });
});

describe('SpillError', () => {
  it('carries its code, message and cause', () => {
    const cause = Object.assign(new Error('disk full'), { code: 'ENOSPC' });
    const error = new SpillError('SPILL_NO_SPACE', 'No space left.', { cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('SpillError');
    expect(error.code).toBe('SPILL_NO_SPACE');
    expect(error.message).toBe('No space left.');
    expect(error.cause).toBe(cause);
  });

  it('has no cause property when none is given', () => {
    expect('cause' in new SpillError('SPILL_NOT_FOUND', 'gone')).toBe(false);
  });

  it('is recognised by isSpillError, with and without a code', () => {
    const error = new SpillError('SPILL_EXPIRED', 'expired');
    expect(isSpillError(error)).toBe(true);
    expect(isSpillError(error, 'SPILL_EXPIRED')).toBe(true);
    expect(isSpillError(error, 'SPILL_NOT_FOUND')).toBe(false);
  });

  it('is recognised across duplicate installs through the Symbol.for marker', () => {
    // An error made by another copy of the package: same registered symbol, other class.
    const foreign = Object.assign(new Error('from another copy'), {
      code: 'SPILL_TOO_LARGE',
      [Symbol.for('spillway.SpillError')]: true,
    });
    expect(foreign instanceof SpillError).toBe(false);
    expect(isSpillError(foreign, 'SPILL_TOO_LARGE')).toBe(true);
  });

  it('rejects look-alikes without the marker', () => {
    expect(isSpillError(Object.assign(new Error('x'), { code: 'SPILL_NO_SPACE' }))).toBe(false);
    expect(isSpillError({ code: 'SPILL_NO_SPACE' })).toBe(false);
    expect(isSpillError(null)).toBe(false);
    expect(isSpillError('SPILL_NO_SPACE')).toBe(false);
  });

  it('lists unique codes that all start with SPILL_', () => {
    expect(new Set(SPILL_ERROR_CODES).size).toBe(SPILL_ERROR_CODES.length);
    for (const code of SPILL_ERROR_CODES) {
      expect(code).toMatch(/^SPILL_[A-Z_]+$/);
      expect(isSpillErrorCode(code)).toBe(true);
    }
    expect(isSpillErrorCode('ENOENT')).toBe(false);
  });

  it('keeps the codes that DESIGN.md fixes', () => {
    for (const code of [
      'SPILL_STORAGE_FAILED',
      'SPILL_NO_SPACE',
      'SPILL_UNSAFE_ROOT',
      'SPILL_INVALID_LOCATOR',
      'SPILL_NOT_FOUND',
      'SPILL_ABORTED',
      'SPILL_STREAM_FAILED',
      'SPILL_TOO_LARGE',
      'SPILL_EXPIRED',
    ]) {
      expect(isSpillErrorCode(code)).toBe(true);
    }
  });
});

describe('abort helpers', () => {
  it('throwIfAborted does nothing without a fired signal', () => {
    expect(() => {
      throwIfAborted(undefined);
    }).not.toThrow();
    expect(() => {
      throwIfAborted(new AbortController().signal);
    }).not.toThrow();
  });

  it('throwIfAborted throws SPILL_ABORTED with the reason as cause', () => {
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    controller.abort(reason);
    try {
      throwIfAborted(controller.signal, 'The save');
      expect.unreachable();
    } catch (error) {
      expect(isSpillError(error, 'SPILL_ABORTED')).toBe(true);
      expect((error as SpillError).cause).toBe(reason);
      expect((error as SpillError).message).toContain('The save');
    }
    expect(abortedError(controller.signal).code).toBe('SPILL_ABORTED');
  });
});

describe('isAbortSignalLike', () => {
  it('takes a real signal and one of another realm\'s shape, and nothing lacking aborted or addEventListener', () => {
    expect(isAbortSignalLike(new AbortController().signal)).toBe(true);
    expect(isAbortSignalLike({ aborted: false, addEventListener: () => undefined })).toBe(true);
    for (const value of [undefined, null, 'signal', 1, {}, { aborted: 'no', addEventListener: () => undefined }, { aborted: true }, { aborted: false, addEventListener: true }]) {
      expect(isAbortSignalLike(value)).toBe(false);
    }
  });
});

describe('raceAbort', () => {
  it('settles like the promise when there is no signal or it never fires', async () => {
    await expect(raceAbort(Promise.resolve(7), undefined)).resolves.toBe(7);
    const controller = new AbortController();
    await expect(raceAbort(Promise.resolve(8), controller.signal)).resolves.toBe(8);
    await expect(raceAbort(Promise.reject(new Error('boom')), controller.signal)).rejects.toThrow('boom');
  });

  it('rejects with SPILL_ABORTED when the signal fires first, or had already fired', async () => {
    const controller = new AbortController();
    const pending = raceAbort(new Promise<never>(() => undefined), controller.signal, 'The save');
    controller.abort(new Error('stop'));
    await expect(pending).rejects.toMatchObject({ code: 'SPILL_ABORTED' });
    // Already fired: a promise that would settle later loses.
    const later = new Promise((resolve) => setTimeout(resolve, 5, 'late'));
    await expect(raceAbort(later, controller.signal)).rejects.toMatchObject({ code: 'SPILL_ABORTED' });
  });

  it('removes its abort listener once settled', async () => {
    const controller = new AbortController();
    const added = vi.spyOn(controller.signal, 'addEventListener');
    const removed = vi.spyOn(controller.signal, 'removeEventListener');
    await raceAbort(Promise.resolve(1), controller.signal);
    expect(added).toHaveBeenCalledTimes(1);
    expect(removed).toHaveBeenCalledWith('abort', added.mock.calls[0]?.[1]);
  });
});

describe('utf8ByteLength', () => {
  it('matches Buffer.byteLength on known cases', () => {
    const cases: [string, number][] = [
      ['', 0],
      ['abc', 3],
      ['é', 2],
      ['€', 3],
      ['😀', 4],
      ['\uD800', 3], // lone high surrogate → U+FFFD
      ['\uDFFF', 3], // lone low surrogate → U+FFFD
      ['\uDFFF\uD800', 6], // reversed pair: two lone surrogates
      ['a\uD83D', 4], // high surrogate at the very end
    ];
    for (const [text, bytes] of cases) {
      expect(utf8ByteLength(text)).toBe(bytes);
      expect(utf8ByteLengthPortable(text)).toBe(bytes);
    }
  });

  it('equals what Buffer and TextEncoder produce for any string, lone surrogates included', () => {
    const encoder = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) }), (a, b) => {
        const text = a + b + a;
        expect(utf8ByteLength(text)).toBe(Buffer.byteLength(text, 'utf8'));
        expect(utf8ByteLength(text)).toBe(encoder.encode(text).length);
        expect(utf8ByteLengthPortable(text)).toBe(encoder.encode(text).length);
      }),
    );
  });

  it('stays within the UTF-16 length bounds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const { min, max } = utf8ByteLengthBounds(text);
        const bytes = utf8ByteLength(text);
        expect(bytes).toBeGreaterThanOrEqual(min);
        expect(bytes).toBeLessThanOrEqual(max);
      }),
    );
  });
});

describe('save request validation', () => {
  const good = {
    owner: { sessionId: sessionId('s') },
    source: { toolName: 'web_fetch', callId: callId('c') },
    suggestedName: 'page.txt',
    content: 'hello',
  };

  it('accepts a well-formed request', () => {
    expect(() => {
      assertSaveTextRequest(good);
    }).not.toThrow();
    expect(() => {
      assertSaveTextStreamRequest({ ...good, content: ['a', 'b'] });
    }).not.toThrow();
  });

  it.each([
    ['a non-object', 42],
    ['no owner', { ...good, owner: undefined }],
    ['an empty session id', { ...good, owner: { sessionId: '' } }],
    ['no source', { ...good, source: null }],
    ['a numeric tool name', { ...good, source: { toolName: 1, callId: 'c' } }],
    ['an empty call id', { ...good, source: { toolName: 't', callId: '' } }],
    ['a missing suggested name', { ...good, suggestedName: undefined }],
    ['non-string content', { ...good, content: 42 }],
  ])('rejects %s with SPILL_INVALID_INPUT', (_label, input) => {
    expect(() => {
      assertSaveTextRequest(input);
    }).toThrow(expect.objectContaining({ code: 'SPILL_INVALID_INPUT' }) as Error);
  });

  it('rejects non-iterable stream content', () => {
    expect(() => {
      assertSaveTextStreamRequest({ ...good, content: 42 });
    }).toThrow(expect.objectContaining({ code: 'SPILL_INVALID_INPUT' }) as Error);
  });
});
