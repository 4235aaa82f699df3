import { describe, expect, it } from 'vitest';
import { LINE_BYTES, numberedChunks, numberedLine, streamedText, textOfSize } from './text.js';

describe('generated text', () => {
  it('makes lines of exactly LINE_BYTES ASCII bytes, numbered and terminated', () => {
    for (const n of [1, 42, 4_000_000, 999_999_999]) {
      const line = numberedLine(n);
      expect(Buffer.byteLength(line)).toBe(LINE_BYTES);
      expect(line.startsWith(String(n).padStart(9, '0'))).toBe(true);
      expect(line.endsWith('\n')).toBe(true);
      expect(line.slice(0, -1)).not.toContain('\n');
    }
  });

  it('varies neighbouring lines beyond their numbers', () => {
    expect(numberedLine(1).slice(10)).not.toBe(numberedLine(2).slice(10));
  });

  it('makes text of the exact size asked for', () => {
    expect(Buffer.byteLength(textOfSize(4096))).toBe(4096);
    expect(textOfSize(250)).toBe((numberedLine(1) + numberedLine(2) + numberedLine(3)).slice(0, 250));
  });

  it('chunks a line range losslessly and puts markers where asked', () => {
    const chunks = [...numberedChunks(1, 25, 1000, (n) => (n % 10 === 0 ? 'NEEDLE ' : ''))];
    expect(chunks).toHaveLength(3);
    const lines = chunks.join('').split('\n').slice(0, -1);
    expect(lines).toHaveLength(25);
    expect(lines.map((l, i) => (l.includes('NEEDLE') ? i + 1 : 0)).filter((n) => n > 0)).toEqual([10, 20]);
    expect(lines[24]?.startsWith('000000025')).toBe(true);
  });

  it('streams exactly the asked bytes in chunks of at most chunkBytes, the same on every call', async () => {
    const chunks = streamedText(10_000, 1500);
    const collect = async (): Promise<string[]> => {
      const got: string[] = [];
      for await (const chunk of chunks()) got.push(chunk);
      return got;
    };
    const first = await collect();
    expect(first.join('')).toHaveLength(10_000);
    expect(first.every((c) => c.length > 0 && c.length <= 1500)).toBe(true);
    expect(first.slice(0, -1).every((c) => c.length === 1500)).toBe(true);
    // The first chunk is numbered lines from 1; later pooled chunks start elsewhere in the log.
    expect(first[0]?.startsWith(numberedLine(1))).toBe(true);
    expect(first[1]).not.toBe(first[0]);
    expect(await collect()).toEqual(first);
  });
});
