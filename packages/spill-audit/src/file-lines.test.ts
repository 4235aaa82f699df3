import { createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { fileLines } from './file-lines.js';

const dir = mkdtempSync(join(tmpdir(), 'file-lines-'));
afterAll(() => { rmSync(dir, { recursive: true, force: true }); });
let files = 0;

function write(content: string | Buffer): string {
  const file = join(dir, `f${String(++files)}`);
  writeFileSync(file, content);
  return file;
}

async function read(file: string, pieceBytes?: number, onBytes?: (n: number) => void): Promise<string[]> {
  const lines: string[] = [];
  for await (const batch of fileLines(file, onBytes, pieceBytes)) lines.push(...batch);
  return lines;
}

async function readlineLines(file: string): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) lines.push(line);
  return lines;
}

describe('fileLines', () => {
  it('splits as node:readline does, wherever the pieces are cut', async () => {
    const part = fc.constantFrom('\n', '\r', '\r\n', '\r\r\n', 'a', '{"k":1}', 'é', '€', '😀', ' ', '');
    await fc.assert(
      fc.asyncProperty(fc.array(part, { maxLength: 30 }), fc.integer({ min: 1, max: 9 }), async (parts, pieceBytes) => {
        const file = write(parts.join(''));
        expect(await read(file, pieceBytes)).toEqual(await readlineLines(file));
      }),
      { numRuns: 300 },
    );
  });

  it('keeps a line longer than many pieces whole, and decodes a character cut between pieces', async () => {
    const long = '€'.repeat(5000) + 'x';
    const file = write(`${long}\nshort\r\n${long}`);
    expect(await read(file, 7)).toEqual([long, 'short', long]);
  });

  it('decodes bytes that are not UTF-8 as node:readline does, and keeps a character cut at the end as a line', async () => {
    const file = write(Buffer.from([0x61, 0xe2, 0x82, 0x0a, 0xff, 0x62, 0x0a, 0xc3, 0xa9, 0x0a]));
    expect(await read(file, 3)).toEqual(await readlineLines(file));
    // node:readline drops it; a file cut while written still has that line.
    expect(await read(write(Buffer.from([0x61, 0x0a, 0xc3])), 3)).toEqual(['a', '\ufffd']);
  });

  it('tells every byte read, in steps', async () => {
    const file = write('x'.repeat(100) + '\n' + 'y'.repeat(50));
    const steps: number[] = [];
    await read(file, 16, (n) => steps.push(n));
    expect(steps.reduce((a, b) => a + b, 0)).toBe(151);
    expect(steps.length).toBe(10);
  });

  it('ends with what the byte callback throws', async () => {
    const file = write('a\nb\nc\n');
    const boom = new Error('boom');
    await expect(
      read(file, 2, () => {
        throw boom;
      }),
    ).rejects.toBe(boom);
  });

  it('answers the file system error of a file that cannot be read', async () => {
    await expect(read(join(dir, 'none'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(read(dir)).rejects.toMatchObject({ code: 'EISDIR' });
  });

  it('reads an empty file as no lines', async () => {
    expect(await read(write(''))).toEqual([]);
  });
});
