/**
 * A read-only reader of SQLite database files, enough to walk a table's rows: pages of the
 * main file with the committed frames of its write-ahead log (`-wal`) laid over them, table
 * b-trees, overflow pages and records. It opens both files for reading only and never
 * touches the shared-memory file, so a host's database is never written (a SQLite library
 * would write its `-shm` even to read). UTF-8 databases only.
 */
import { TranscriptFormatError } from './errors.js';
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

/** A value of a record: SQL NULL, an integer or real, text, or a blob. */
export type SqliteValue = null | number | bigint | string | Uint8Array;

/** One row of a table: its rowid and its columns by name. */
export interface SqliteRow {
  readonly rowid: number;
  readonly values: Readonly<Record<string, SqliteValue>>;
}

const MAGIC = 'SQLite format 3\0';

function varint(b: Uint8Array, at: number): [value: number, next: number] {
  let v = 0;
  for (let i = 0; i < 8; i++) {
    const byte = b[at + i] ?? 0;
    v = v * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [v, at + i + 1];
  }
  return [v * 256 + (b[at + 8] ?? 0), at + 9];
}

/** The big-endian unsigned 32-bit integer at `b[at]`. */
function u32(b: Uint8Array, at: number): number {
  return (((b[at] ?? 0) << 24) >>> 0) + (((b[at + 1] ?? 0) << 16) | ((b[at + 2] ?? 0) << 8) | (b[at + 3] ?? 0));
}

/** The offset of cell `i` on a page, read from its cell pointer array at `pointers`. */
function cellAt(p: Uint8Array, pointers: number, i: number): number {
  return ((p[pointers + 2 * i] ?? 0) << 8) | (p[pointers + 2 * i + 1] ?? 0);
}

/** What the header of a table b-tree page says. */
export interface TablePageHeader {
  /** How many cells the page holds. */
  readonly cells: number;
  /** The offset of its cell pointer array. */
  readonly pointers: number;
  /** An interior page's right-most child page; `undefined` for a leaf. */
  readonly rightmost: number | undefined;
}

/**
 * Reads the b-tree header of page `n` (its bytes `p`): after the 100-byte file header on
 * page 1, 8 bytes on a leaf, 12 on an interior page (which ends with the right-most child).
 *
 * @throws TranscriptFormatError when the page is not a table b-tree page.
 */
export function tablePageHeader(p: Uint8Array, n: number): TablePageHeader {
  const h = n === 1 ? 100 : 0;
  const kind = p[h];
  const cells = ((p[h + 3] ?? 0) << 8) | (p[h + 4] ?? 0);
  if (kind === 0x0d) return { cells, pointers: h + 8, rightmost: undefined };
  if (kind === 0x05) return { cells, pointers: h + 12, rightmost: u32(p, h + 8) };
  throw new TranscriptFormatError(`page ${String(n)} is not part of a table`);
}

/** A SQLite file opened for reading. */
export class SqliteFile {
  private readonly fd: number;
  private walFd: number | undefined;
  private readonly pageSize: number;
  private readonly usable: number;
  /** Page number → offset of its newest committed frame in the log. */
  private readonly wal = new Map<number, number>();
  private readonly columns = new Map<string, { root: number; names: string[] }>();

  /** @throws Error when the file is not a UTF-8 SQLite database. */
  constructor(file: string) {
    this.fd = openSync(file, 'r');
    try {
      const head = this.readAt(this.fd, 0, 100);
      if (Buffer.from(head.subarray(0, 16)).toString('latin1') !== MAGIC) throw new TranscriptFormatError('not a SQLite database');
      const size = ((head[16] ?? 0) << 8) | (head[17] ?? 0);
      this.pageSize = size === 1 ? 65536 : size;
      this.usable = this.pageSize - (head[20] ?? 0);
      if (((head[56] ?? 0) << 24 | (head[57] ?? 0) << 16 | (head[58] ?? 0) << 8 | (head[59] ?? 0)) > 1) throw new TranscriptFormatError('a SQLite database in UTF-16, which is not read');
      this.openWal(`${file}-wal`);
      for (const row of this.rows(1, ['type', 'name', 'tbl_name', 'rootpage', 'sql'])) {
        const { type, name, rootpage, sql } = row.values;
        if (type === 'table' && typeof name === 'string' && typeof rootpage === 'number' && typeof sql === 'string') this.columns.set(name, { root: rootpage, names: columnNames(sql) });
      }
    } catch (error) {
      this.close();
      throw error;
    }
  }

  /** Closes the files. */
  close(): void {
    closeSync(this.fd);
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.walFd = undefined;
  }

  /** Whether the database has a table of that name. */
  hasTable(name: string): boolean {
    return this.columns.has(name);
  }

  /**
   * Every row of a table, in rowid order; nothing when there is no such table. With
   * `only`, just those columns are decoded, and overflow pages are not read when the
   * columns lie before them (the large last column of a row is then never loaded).
   */
  *table(name: string, only?: readonly string[]): Generator<SqliteRow> {
    const t = this.columns.get(name);
    if (t === undefined) return;
    const wanted = only === undefined ? t.names : t.names.map((n) => (only.includes(n) ? n : ''));
    yield* this.rows(t.root, wanted);
  }

  /** The row of a table with that rowid. */
  row(name: string, rowid: number): SqliteRow | undefined {
    const t = this.columns.get(name);
    if (t === undefined) return undefined;
    let page = t.root;
    for (let depth = 0; depth < 64; depth++) {
      const p = this.page(page);
      const header = tablePageHeader(p, page);
      if (header.rightmost === undefined) {
        for (let i = 0; i < header.cells; i++) {
          const cell = cellAt(p, header.pointers, i);
          const [, afterSize] = varint(p, cell);
          const [id] = varint(p, afterSize);
          if (id === rowid) return { rowid, values: this.record(p, cell, t.names) };
        }
        return undefined;
      }
      let next = header.rightmost;
      for (let i = 0; i < header.cells; i++) {
        const cell = cellAt(p, header.pointers, i);
        const [key] = varint(p, cell + 4);
        if (rowid <= key) {
          next = u32(p, cell);
          break;
        }
      }
      page = next;
    }
    throw new TranscriptFormatError('a table b-tree deeper than 64 pages');
  }

  private *rows(root: number, names: readonly string[], depth = 0): Generator<SqliteRow> {
    if (depth > 64) throw new TranscriptFormatError('a table b-tree deeper than 64 pages');
    const p = this.page(root);
    const header = tablePageHeader(p, root);
    if (header.rightmost === undefined) {
      for (let i = 0; i < header.cells; i++) {
        const cell = cellAt(p, header.pointers, i);
        const [, afterSize] = varint(p, cell);
        const [rowid] = varint(p, afterSize);
        yield { rowid, values: this.record(p, cell, names) };
      }
      return;
    }
    const children: number[] = [];
    for (let i = 0; i < header.cells; i++) children.push(u32(p, cellAt(p, header.pointers, i)));
    children.push(header.rightmost);
    for (const child of children) yield* this.rows(child, names, depth + 1);
  }

  /**
   * The payload of the table leaf cell at `cell`, its overflow pages followed; or, when
   * `enough` bytes lie on the page itself, just those.
   */
  private payload(p: Uint8Array, cell: number, enough = Number.POSITIVE_INFINITY): Uint8Array {
    const [size, afterSize] = varint(p, cell);
    const [, start] = varint(p, afterSize);
    const u = this.usable;
    const x = u - 35;
    if (size <= x) return p.subarray(start, start + size);
    const m = Math.floor(((u - 12) * 32) / 255) - 23;
    const k = m + ((size - m) % (u - 4));
    const local = k <= x ? k : m;
    if (enough <= local) return p.subarray(start, start + local);
    const out = new Uint8Array(size);
    out.set(p.subarray(start, start + local), 0);
    let filled = local;
    let next = u32(p, start + local);
    for (let guard = 0; filled < size && next !== 0; guard++) {
      if (guard > 1 << 24) throw new TranscriptFormatError('an overflow chain that does not end');
      const o = this.page(next);
      const n = Math.min(u - 4, size - filled);
      out.set(o.subarray(4, 4 + n), filled);
      filled += n;
      next = u32(o, 0);
    }
    if (filled < size) throw new TranscriptFormatError('an overflow chain that ends early');
    return out;
  }

  /** The columns of a row named in `names` (an empty name: not decoded). */
  private record(p: Uint8Array, cell: number, names: readonly string[]): Record<string, SqliteValue> {
    let b = this.payload(p, cell, 9);
    const [headerSize, first] = varint(b, 0);
    if (b.length < headerSize) b = this.payload(p, cell);
    const types: number[] = [];
    for (let at = first; at < headerSize; ) {
      const [t, next] = varint(b, at);
      types.push(t);
      at = next;
    }
    // The bytes up to the end of the last column wanted: when on the page, no overflow page is read.
    let end = headerSize;
    let needed = headerSize;
    for (const [i, t] of types.entries()) {
      end += serialSize(t);
      if (names[i] !== undefined && names[i] !== '') needed = end;
    }
    if (b.length < needed) b = this.payload(p, cell, needed);
    const values: Record<string, SqliteValue> = {};
    let at = headerSize;
    for (const [i, t] of types.entries()) {
      const name = names[i];
      if (name !== undefined && name !== '') values[name] = decode(b, at, t);
      at += serialSize(t);
    }
    return values;
  }

  private page(n: number): Uint8Array {
    const framed = this.wal.get(n);
    if (framed !== undefined && this.walFd !== undefined) return this.readAt(this.walFd, framed, this.pageSize);
    return this.readAt(this.fd, (n - 1) * this.pageSize, this.pageSize);
  }

  private readAt(fd: number, position: number, length: number): Uint8Array {
    const b = Buffer.alloc(length);
    let got = 0;
    while (got < length) {
      const n = readSync(fd, b, got, length - got, position + got);
      if (n === 0) break;
      got += n;
    }
    return b;
  }

  /** Reads the log's frames: those of the current generation, with valid checksums, up to the last commit. */
  private openWal(file: string): void {
    let fd: number;
    try {
      fd = openSync(file, 'r');
    } catch {
      return; // no log: the main file is the whole database
    }
    this.walFd = fd;
    const size = fstatSync(fd).size;
    if (size < 32) return;
    const head = this.readAt(fd, 0, 32);
    const view = new DataView(head.buffer, head.byteOffset, 32);
    const magic = view.getUint32(0);
    if ((magic !== 0x377f0682 && magic !== 0x377f0683) || view.getUint32(8) !== this.pageSize) return;
    const bigEndian = magic === 0x377f0683;
    let [s0, s1] = checksum(head.subarray(0, 24), 0, 0, bigEndian);
    if (s0 !== view.getUint32(24) || s1 !== view.getUint32(28)) return;
    const salt1 = view.getUint32(16);
    const salt2 = view.getUint32(20);
    const pending = new Map<number, number>();
    for (let at = 32; at + 24 + this.pageSize <= size; at += 24 + this.pageSize) {
      const frame = this.readAt(fd, at, 24 + this.pageSize);
      const f = new DataView(frame.buffer, frame.byteOffset, 24);
      if (f.getUint32(8) !== salt1 || f.getUint32(12) !== salt2) break;
      [s0, s1] = checksum(frame.subarray(0, 8), s0, s1, bigEndian);
      [s0, s1] = checksum(frame.subarray(24), s0, s1, bigEndian);
      if (s0 !== f.getUint32(16) || s1 !== f.getUint32(20)) break;
      pending.set(f.getUint32(0), at + 24);
      if (f.getUint32(4) !== 0) {
        // A commit: every frame up to here is part of the database.
        for (const [page, offset] of pending) this.wal.set(page, offset);
        pending.clear();
      }
    }
  }
}

/** The value of serial type `t` at `b[at]`. */
function decode(b: Uint8Array, at: number, t: number): SqliteValue {
  if (t >= 1 && t <= 6) {
    const n = serialSize(t);
    let big = 0n;
    for (let j = 0; j < n; j++) big = (big << 8n) | BigInt(b[at + j] ?? 0);
    if ((b[at] ?? 0) & 0x80) big -= 1n << BigInt(8 * n);
    return big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(big) : big;
  }
  if (t === 7) return new DataView(b.buffer, b.byteOffset + at, 8).getFloat64(0);
  if (t === 8 || t === 9) return t - 8;
  if (t >= 12) {
    const n = serialSize(t);
    return t % 2 === 1 ? Buffer.from(b.buffer, b.byteOffset + at, n).toString('utf8') : b.slice(at, at + n);
  }
  return null;
}

/** The bytes a value of serial type `t` takes in a record. */
function serialSize(t: number): number {
  if (t >= 12) return Math.floor((t - 12) / 2);
  return [0, 1, 2, 3, 4, 6, 8, 8, 0, 0, 0, 0][t] ?? 0;
}

/** SQLite's log checksum over `b` (a multiple of 8 bytes), continuing from `s0`, `s1`. */
function checksum(b: Uint8Array, s0: number, s1: number, bigEndian: boolean): [number, number] {
  const view = new DataView(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i + 8 <= b.length; i += 8) {
    s0 = (s0 + view.getUint32(i, !bigEndian) + s1) >>> 0;
    s1 = (s1 + view.getUint32(i + 4, !bigEndian) + s0) >>> 0;
  }
  return [s0, s1];
}

/** The column names of a `CREATE TABLE` statement, in order (constraints left out). */
export function columnNames(sql: string): string[] {
  const open = sql.indexOf('(');
  const close = sql.lastIndexOf(')');
  if (open < 0 || close < open) return [];
  const defs: string[] = [];
  let depth = 0;
  let quote = '';
  let from = open + 1;
  for (let i = from; i < close; i++) {
    const c = sql.charAt(i);
    if (quote !== '') {
      if (c === quote) quote = '';
    } else if (c === '"' || c === '`' || c === "'" || c === '[') quote = c === '[' ? ']' : c;
    else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      defs.push(sql.slice(from, i));
      from = i + 1;
    }
  }
  defs.push(sql.slice(from, close));
  const names: string[] = [];
  for (const def of defs) {
    const d = def.trim();
    if (/^(?:CONSTRAINT|PRIMARY\s+KEY|UNIQUE|CHECK|FOREIGN\s+KEY)\b/i.test(d)) continue;
    const m = /^(?:"([^"]+)"|`([^`]+)`|\[([^\]]+)\]|'([^']+)'|(\S+))/.exec(d);
    const name = m?.[1] ?? m?.[2] ?? m?.[3] ?? m?.[4] ?? m?.[5];
    if (name !== undefined) names.push(name);
  }
  return names;
}
