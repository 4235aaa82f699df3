import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fnv1a64Utf16 } from './session-key.js';

/** FNV-1a 64 with BigInt, straight from the definition, as an oracle. */
function reference(text: string, prefix: Uint8Array): string {
  let h = 0xcbf29ce484222325n;
  const prime = 0x100000001b3n;
  const bytes = [...prefix];
  for (let i = 0; i < text.length; i++) {
    const u = text.charCodeAt(i);
    bytes.push(u & 0xff, u >>> 8);
  }
  for (const b of bytes) h = ((h ^ BigInt(b)) * prime) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

describe('fnv1a64Utf16', () => {
  it('matches a BigInt FNV-1a 64 over two bytes per code unit, for any string and salt', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 16 }), (text, salt) => {
        expect(fnv1a64Utf16(text, salt)).toBe(reference(text, salt));
      }),
      { numRuns: 300 },
    );
  });

  it('gives the published FNV-1a 64 value for the empty input', () => {
    expect(fnv1a64Utf16('')).toBe('cbf29ce484222325');
  });

  it('tells apart session ids that differ only in lone surrogates', () => {
    const ids = ['s\uD800', 's\uDFFF', 's\uFFFD', 's\uDBFF', 's\uDC00'];
    expect(new Set(ids.map((id) => fnv1a64Utf16(id))).size).toBe(ids.length);
  });

  it('depends on the salt', () => {
    expect(fnv1a64Utf16('chat-1', new Uint8Array([1]))).not.toBe(fnv1a64Utf16('chat-1', new Uint8Array([2])));
  });
});
