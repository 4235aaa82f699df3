import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeUtf8 } from './decode.js';

async function collect(chunks: readonly unknown[]): Promise<string[]> {
  const out: string[] = [];
  for await (const text of decodeUtf8(chunks)) out.push(text);
  return out;
}

describe('decodeUtf8', () => {
  it('gives back the text however the bytes are split into chunks', async () => {
    await fc.assert(
      fc.asyncProperty(fc.string({ unit: 'grapheme' }), fc.array(fc.nat(), { maxLength: 8 }), async (text, cuts) => {
        const bytes = Buffer.from(text);
        const points = [...new Set(cuts.map((c) => (bytes.length === 0 ? 0 : c % bytes.length)))].sort((a, b) => a - b);
        const chunks: Buffer[] = [];
        let from = 0;
        for (const p of points) {
          chunks.push(bytes.subarray(from, p));
          from = p;
        }
        chunks.push(bytes.subarray(from));
        expect((await collect(chunks)).join('')).toBe(text);
      }),
    );
  });

  it('never yields an empty string and passes string chunks through', async () => {
    expect(await collect([Buffer.from([0xe2]), Buffer.from([0x82]), Buffer.from([0xac]), 'x'])).toEqual(['€', 'x']);
  });

  it('turns a sequence cut off at the end into U+FFFD', async () => {
    expect((await collect([Buffer.from([0x61, 0xe2, 0x82])])).join('')).toBe('a\uFFFD');
  });
});
