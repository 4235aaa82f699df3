import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { TranscriptFormatError } from './errors.js';
import { SqliteFile, tablePageHeader } from './sqlite-file.js';

const fixture = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'opencode', 'opencode.db');

/** A page of `size` bytes whose b-tree header, at `at`, has `kind` and `cells`, and `rightmost` after it. */
function page(kind: number, cells: number, { at = 0, rightmost = 0, size = 512 } = {}): Uint8Array {
  const p = new Uint8Array(size);
  p[at] = kind;
  p[at + 3] = cells >> 8;
  p[at + 4] = cells & 0xff;
  new DataView(p.buffer).setUint32(at + 8, rightmost);
  return p;
}

describe('tablePageHeader', () => {
  it('reads a leaf: its cell count, and its cell pointers right after the 8-byte header', () => {
    expect(tablePageHeader(page(0x0d, 300), 2)).toEqual({ cells: 300, pointers: 8, rightmost: undefined });
  });

  it('reads an interior page: the 12-byte header ends with the right-most child, read unsigned', () => {
    expect(tablePageHeader(page(0x05, 3, { rightmost: 0xfffffffe }), 7)).toEqual({ cells: 3, pointers: 12, rightmost: 0xfffffffe });
  });

  it('finds page 1\'s header after the 100-byte file header', () => {
    expect(tablePageHeader(page(0x05, 2, { at: 100, rightmost: 9 }), 1)).toEqual({ cells: 2, pointers: 112, rightmost: 9 });
    // The same bytes on another page are not a header.
    expect(() => tablePageHeader(page(0x05, 2, { at: 100, rightmost: 9 }), 4)).toThrow(TranscriptFormatError);
  });

  it('refuses an index page, a free page or garbage, naming the page', () => {
    for (const kind of [0x02, 0x0a, 0x00, 0xff]) expect(() => tablePageHeader(page(kind, 1), 5)).toThrow('page 5 is not part of a table');
  });

  it('reads page 1 of a real database: the schema table', () => {
    const bytes = readFileSync(fixture);
    const size = bytes.readUInt16BE(16);
    const header = tablePageHeader(bytes.subarray(0, size), 1);
    expect(header.pointers).toBe(header.rightmost === undefined ? 108 : 112);
    expect(header.cells).toBeGreaterThan(0);
    // What the reader built on it finds in the same file.
    const db = new SqliteFile(fixture);
    try {
      expect(db.hasTable('part')).toBe(true);
    } finally {
      db.close();
    }
  });
});
