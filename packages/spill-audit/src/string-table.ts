/**
 * A table that numbers distinct strings by their code units, looked up by a span of a
 * longer text and a hash of it: a string met again costs no copy and no allocation, and a
 * new one is copied once, into shared blocks of code units rather than a string of its own
 * (one byte a unit when every unit of it is under 256, as in most paths and ids).
 */

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** FNV-1a over the UTF-16 code units of `text[start, end)`, as a signed 32-bit integer. */
export function spanHash(text: string, start: number, end: number): number {
  let h = FNV_OFFSET;
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), FNV_PRIME);
  return h | 0;
}

/** Spreads every bit of `h` over the low bits a slot is chosen by (murmur3's finalizer). */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Code units per shared block; a string longer than an eighth of one gets a block of its own. */
const BLOCK_UNITS = 1 << 16;

/** Blocks of code units, filled in order. */
class Blocks<T extends Uint8Array | Uint16Array> {
  readonly list: T[] = [];
  /** The block short strings go to (-1 before the first), and how much of it is used. */
  private current = -1;
  private used = 0;
  /** Where the units {@link reserve} last answered begin: a block of `list` and an offset in it. */
  block = 0;
  offset = 0;

  constructor(private readonly make: (units: number) => T) {}

  /** A block with `length` units free from {@link offset} on, now taken. */
  reserve(length: number): T {
    let block: T;
    if (length > BLOCK_UNITS / 8) {
      block = this.make(length);
      this.block = this.list.push(block) - 1;
      this.offset = 0;
      return block;
    }
    if (this.current < 0 || this.used + length > BLOCK_UNITS) {
      this.current = this.list.push(this.make(BLOCK_UNITS)) - 1;
      this.used = 0;
    }
    this.block = this.current;
    this.offset = this.used;
    this.used += length;
    return this.list[this.current] ?? this.make(0);
  }
}

/** An `Int32Array` twice as long, holding `a`. */
export function grown(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

function narrowBlocks(): Blocks<Uint8Array> {
  return new Blocks((units) => new Uint8Array(units));
}

function wideBlocks(): Blocks<Uint16Array> {
  return new Blocks((units) => new Uint16Array(units));
}

/**
 * Distinct strings numbered from 0 in the order added. Open addressing with linear
 * probing over a power-of-two array of slots, at most half full; each slot holds a number
 * and its string's hash side by side, so a probe reads a string's code units only when the
 * hashes are equal (two strings of the same hash still get their own numbers), and growing
 * reads the slots alone. Callers pass the same hash for the same code units (e.g. {@link spanHash}).
 */
export class StringTable {
  /** Per slot, two entries: a string's number plus one (0 for an empty slot), and its hash. */
  private slots: Int32Array = new Int32Array(2 * 1024);
  /** Per string, three entries: its block (`b` in {@link narrow}, `-1 - b` in {@link wide}), its offset in the block and its length. */
  private where: Int32Array = new Int32Array(3 * 512);
  /** Strings whose code units are all under 256, a byte each. */
  private narrow = narrowBlocks();
  /** The other strings. */
  private wide = wideBlocks();
  private count = 0;

  /** Strings numbered so far. */
  get size(): number {
    return this.count;
  }

  /** Forgets every string, keeping the slots and the per-string entries grown so far (the characters' blocks are dropped): numbering starts again from 0. */
  clear(): void {
    this.slots.fill(0);
    this.narrow = narrowBlocks();
    this.wide = wideBlocks();
    this.count = 0;
  }

  /** The number of `text[start, end)`, whose hash is `hash`; -1 when it has none. */
  find(text: string, start: number, end: number, hash: number): number {
    const slots = this.slots;
    const mask = slots.length - 2;
    for (let slot = (mix(hash) << 1) & mask; ; slot = (slot + 2) & mask) {
      const id = (slots[slot] ?? 0) - 1;
      if (id < 0) return -1;
      if (slots[slot + 1] === hash && this.equals(id, text, start, end)) return id;
    }
  }

  /** Numbers `text[start, end)`, whose hash is `hash` and which has no number yet; answers the number. */
  add(text: string, start: number, end: number, hash: number): number {
    const id = this.count++;
    if (3 * id === this.where.length) this.where = grown(this.where);
    const length = end - start;
    let isNarrow = true;
    for (let i = start; i < end && isNarrow; i++) isNarrow = text.charCodeAt(i) < 256;
    const blocks = isNarrow ? this.narrow : this.wide;
    const block = blocks.reserve(length);
    const offset = blocks.offset;
    for (let i = 0; i < length; i++) block[offset + i] = text.charCodeAt(start + i);
    this.where[3 * id] = isNarrow ? blocks.block : -1 - blocks.block;
    this.where[3 * id + 1] = offset;
    this.where[3 * id + 2] = length;
    if (4 * this.count > this.slots.length) this.rehash();
    this.place(id + 1, hash);
    return id;
  }

  /** Whether string `id` is `text[start, end)`. */
  private equals(id: number, text: string, start: number, end: number): boolean {
    const where = this.where;
    if (where[3 * id + 2] !== end - start) return false;
    const b = where[3 * id] ?? 0;
    const block = b >= 0 ? this.narrow.list[b] : this.wide.list[-1 - b];
    if (block === undefined) return false;
    for (let i = start, at = where[3 * id + 1] ?? 0; i < end; i++, at++) if (block[at] !== text.charCodeAt(i)) return false;
    return true;
  }

  /** Puts number-plus-one `entry` of hash `hash` in the first free slot from its own. */
  private place(entry: number, hash: number): void {
    const slots = this.slots;
    const mask = slots.length - 2;
    let slot = (mix(hash) << 1) & mask;
    while (slots[slot] !== 0) slot = (slot + 2) & mask;
    slots[slot] = entry;
    slots[slot + 1] = hash;
  }

  /** Twice the slots, every string placed again from the old slots' entries. */
  private rehash(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    for (let slot = 0; slot < old.length; slot += 2) {
      const entry = old[slot] ?? 0;
      if (entry !== 0) this.place(entry, old[slot + 1] ?? 0);
    }
  }
}
