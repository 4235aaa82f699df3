/** The kind of a JSON value. */
export type JsonKind = 'object' | 'array' | 'string' | 'number' | 'boolean' | 'null';

/** One member of the top-level value: a key's value, or an array's element. */
export interface JsonEntry {
  /** The key, as written between its quotes (cut at {@link KEY_UNITS}), for an object's member. */
  readonly key: string | undefined;
  readonly kind: JsonKind;
  /** For an object or array: how many members it has. */
  count: number;
  /** For an array: the kind of its first element. */
  firstKind: JsonKind | undefined;
  /** For a scalar: its text, cut at {@link SCALAR_UNITS}. */
  scalar: string;
  /** For an object or array: its JSON text without whitespace outside strings, while at most {@link RAW_UNITS}. */
  raw: string;
  /** Whether `raw` stopped short of the whole value. */
  rawCut: boolean;
}

/** The shape of a JSON text: its top-level value, and one level below. */
export interface JsonShape {
  readonly kind: 'object' | 'array';
  /** Members of the top-level value. */
  readonly count: number;
  /** The first members (at most {@link ENTRY_LIMIT}). */
  readonly entries: readonly JsonEntry[];
  /** For a top-level array whose first element is an object: that object's keys (at most {@link ENTRY_LIMIT}). */
  readonly firstItemKeys: readonly string[];
}

/** Members described, at most. */
export const ENTRY_LIMIT = 24;
/** Code units of a key kept. */
const KEY_UNITS = 64;
/** Code units of a scalar kept. */
const SCALAR_UNITS = 48;
/** Code units of a small object or array kept whole. */
export const RAW_UNITS = 240;

const STRING_STOP = /["\\]/g;

/**
 * Reads a JSON text in chunks, in one pass and bounded memory, and describes its shape.
 * It checks the structure (brackets, strings, one top-level object or array, nothing after
 * it) but not every token's spelling: it describes, it does not validate.
 */
export class JsonShapeScanner {
  #started = false;
  #failed = false;
  #done = false;
  /** Open containers: `true` for an object. */
  readonly #stack: boolean[] = [];
  #expectKey = false;
  #inString = false;
  #escape = false;
  /** What the string being read is: a key to keep, a scalar to keep, or neither. */
  #capture: 'key' | 'scalar' | undefined;
  #captured = '';
  #pendingKey: string | undefined;
  #rootKind: 'object' | 'array' = 'object';
  #rootCount = 0;
  readonly #entries: JsonEntry[] = [];
  #current: JsonEntry | undefined;
  readonly #firstItemKeys: string[] = [];
  /** Reading a number or literal at depth 1, to keep its text. */
  #scalarOpen = false;

  /** Reads the next chunk; `false` once the text is known not to be one JSON object or array. */
  push(chunk: string): boolean {
    if (this.#failed) return false;
    const n = chunk.length;
    let i = 0;
    while (i < n) {
      if (this.#inString) {
        i = this.#readString(chunk, i);
        continue;
      }
      const c = chunk.charCodeAt(i);
      if (this.#scalarOpen) {
        if (c === 0x2c || c === 0x7d || c === 0x5d || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) this.#scalarOpen = false;
        else {
          const e = this.#current;
          if (e !== undefined && e.scalar.length < SCALAR_UNITS) e.scalar += chunk.charAt(i);
          i++;
          continue;
        }
      }
      i++;
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (this.#done) return this.#fail();
      const depth = this.#stack.length;
      if (depth >= 2) this.#raw(String.fromCharCode(c));
      if (!this.#started) {
        if (c !== 0x7b && c !== 0x5b) return this.#fail();
        this.#started = true;
        this.#rootKind = c === 0x7b ? 'object' : 'array';
        this.#stack.push(c === 0x7b);
        this.#expectKey = c === 0x7b;
        continue;
      }
      if (c === 0x2c) {
        this.#expectKey = this.#stack[depth - 1] === true;
        continue;
      }
      if (c === 0x3a) {
        this.#expectKey = false;
        continue;
      }
      if (c === 0x7d || c === 0x5d) {
        if (this.#stack.pop() !== (c === 0x7d)) return this.#fail();
        this.#expectKey = false;
        if (this.#stack.length === 0) this.#done = true;
        continue;
      }
      if (this.#expectKey) {
        if (c !== 0x22) return this.#fail();
        this.#inString = true;
        const keep = (depth === 1 && this.#rootKind === 'object') || (depth === 2 && this.#rootKind === 'array' && this.#rootCount === 1);
        this.#capture = keep ? 'key' : undefined;
        this.#captured = '';
        if (depth === 2 && this.#current !== undefined) this.#current.count++;
        continue;
      }
      this.#value(c, depth);
    }
    return true;
  }

  /** The shape, or `undefined` when the text was not one JSON object or array. */
  finish(): JsonShape | undefined {
    if (this.#failed || !this.#done) return undefined;
    return { kind: this.#rootKind, count: this.#rootCount, entries: this.#entries, firstItemKeys: this.#firstItemKeys };
  }

  #fail(): false {
    this.#failed = true;
    return false;
  }

  /** A value starts with the code unit `c` inside `depth` open containers. */
  #value(c: number, depth: number): void {
    const kind: JsonKind =
      c === 0x7b ? 'object' : c === 0x5b ? 'array' : c === 0x22 ? 'string' : c === 0x74 || c === 0x66 ? 'boolean' : c === 0x6e ? 'null' : 'number';
    if (depth === 1) {
      this.#rootCount++;
      const key = this.#rootKind === 'object' ? this.#pendingKey : undefined;
      this.#pendingKey = undefined;
      const entry: JsonEntry = { key, kind, count: 0, firstKind: undefined, scalar: '', raw: '', rawCut: false };
      this.#current = this.#entries.length < ENTRY_LIMIT ? entry : undefined;
      if (this.#current !== undefined) this.#entries.push(entry);
      if (kind !== 'object' && kind !== 'array' && kind !== 'string') {
        this.#scalarOpen = true;
        if (this.#current !== undefined) this.#current.scalar = String.fromCharCode(c);
      }
    } else if (depth === 2 && this.#current !== undefined && this.#current.kind === 'array') {
      this.#current.count++;
      this.#current.firstKind ??= kind;
    }
    if (depth === 1 && (kind === 'object' || kind === 'array')) this.#raw(String.fromCharCode(c));
    if (kind === 'object' || kind === 'array') {
      this.#stack.push(kind === 'object');
      this.#expectKey = kind === 'object';
    } else if (kind === 'string') {
      this.#inString = true;
      this.#capture = depth === 1 && this.#current !== undefined ? 'scalar' : undefined;
      this.#captured = '';
    }
  }

  /** Reads string content from `i`; returns where to go on. */
  #readString(chunk: string, i: number): number {
    if (this.#escape) {
      this.#escape = false;
      this.#keep(chunk, i, i + 1);
      return i + 1;
    }
    STRING_STOP.lastIndex = i;
    const m = STRING_STOP.exec(chunk);
    if (m === null) {
      this.#keep(chunk, i, chunk.length);
      return chunk.length;
    }
    const at = m.index;
    if (chunk.charCodeAt(at) === 0x5c) {
      this.#keep(chunk, i, at + 1);
      this.#escape = true;
      return at + 1;
    }
    this.#keep(chunk, i, at);
    if (this.#stack.length >= 2) this.#raw('"');
    this.#inString = false;
    if (this.#capture === 'key') {
      if (this.#stack.length === 1) this.#pendingKey = this.#captured;
      else if (this.#firstItemKeys.length < ENTRY_LIMIT) this.#firstItemKeys.push(this.#captured);
    } else if (this.#capture === 'scalar' && this.#current !== undefined) {
      this.#current.scalar = this.#captured;
      this.#current.count = this.#stringLength;
    }
    this.#capture = undefined;
    this.#stringLength = 0;
    return at + 1;
  }

  #stringLength = 0;

  /** Appends to the current member's raw text, while it is small. */
  #raw(text: string): void {
    const e = this.#current;
    if (e === undefined || e.rawCut || (e.kind !== 'object' && e.kind !== 'array')) return;
    if (e.raw.length + text.length > RAW_UNITS) e.rawCut = true;
    else e.raw += text;
  }

  #keep(chunk: string, from: number, to: number): void {
    this.#stringLength += to - from;
    if (this.#stack.length >= 2) this.#raw(chunk.slice(from, Math.min(to, from + RAW_UNITS + 1)));
    if (this.#capture === undefined) return;
    const limit = this.#capture === 'key' ? KEY_UNITS : SCALAR_UNITS;
    if (this.#captured.length < limit) this.#captured += chunk.slice(from, Math.min(to, from + limit - this.#captured.length));
  }
}
