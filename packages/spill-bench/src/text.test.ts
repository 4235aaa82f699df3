import { describe, expect, it } from 'vitest';
import { LINE_BYTES, numberedChunks, numberedLine, textOfSize } from './text.js';

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
});
