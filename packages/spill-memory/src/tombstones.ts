/**
 * The bounded memory of removed locators behind `SPILL_EXPIRED`: the most recent
 * `capacity` locators with why each went, the oldest forgotten first.
 *
 * Every structure is allocated once, at its full size, when the backend is created: a ring
 * of locators (as numbers) and an open-addressing hash index over it (typed arrays, linear
 * probing, deletion by backward shift). A `Map` here grew with the backend's age: from empty to
 * `capacity` entries over the first evictions, rehashing as it grew and as deleted entries
 * piled up, so that saves late in a long run paid more than early ones (the p99 of the last
 * 1,000 of 100,000 evicting saves was 1.5× that of the first 1,000). Now an add or a lookup
 * costs the same on the first eviction as on the millionth.
 */

/** Why a locator no longer resolves. */
export type RemovalReason = 'evicted' | 'deleted';

const REASONS: readonly RemovalReason[] = ['evicted', 'deleted'];

/** Hex digits of a locator after its prefix: the session hash (32) and the random id (32). */
const HEX_DIGITS = 64;
/** 32-bit words a locator is kept as. */
const WORDS = HEX_DIGITS / 8;
/** Words of the session hash, after which the '/' comes. */
const SESSION_WORDS = 4;
const PREFIX = 'spill+memory://session-';

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x57;
  return -1;
}

/**
 * Writes the locator's 64 hex digits as eight 32-bit words into `out` at `at`; false when
 * it is not a memory locator (which is then never remembered, and never found).
 */
function parseWords(locator: string, out: Uint32Array, at: number): boolean {
  if (locator.length !== PREFIX.length + HEX_DIGITS + 1 || !locator.startsWith(PREFIX)) return false;
  let i = PREFIX.length;
  for (let w = 0; w < WORDS; w++) {
    let word = 0;
    for (let d = 0; d < 8; d++, i++) {
      if (w === SESSION_WORDS && d === 0 && locator.charCodeAt(i) === 0x2f) i++; // the '/' after the session hash
      const v = hexDigit(locator.charCodeAt(i));
      if (v === -1) return false;
      word = (word << 4) | v;
    }
    out[at + w] = word >>> 0;
  }
  return true;
}

/**
 * A fixed-size ring of removed locators, with an index for lookup by locator. Locators are
 * kept as numbers in typed arrays, not as strings, so the memory holds no object the
 * garbage collector has to visit, however full it is.
 */
export class Tombstones {
  readonly #capacity: number;
  /** Eight words a slot: the locator's hex digits. */
  readonly #words: Uint32Array;
  readonly #reasons: Uint8Array;
  readonly #used: Uint8Array;
  /** Ring slot + 1 at each index position; 0 is empty. */
  readonly #index: Int32Array;
  readonly #mask: number;
  /** 32 minus the index's size in bits: the top bits of a mixed hash are its best. */
  readonly #shift: number;
  /** Scratch for the locator looked up. */
  readonly #probe = new Uint32Array(WORDS);
  #next = 0;
  #size = 0;

  /** @param capacity - how many locators to remember; 0 remembers none */
  constructor(capacity: number) {
    this.#capacity = capacity;
    this.#words = new Uint32Array(capacity * WORDS);
    this.#reasons = new Uint8Array(capacity);
    this.#used = new Uint8Array(capacity);
    // At most half full, so that probe runs stay short.
    let positions = 2;
    while (positions < 2 * capacity) positions *= 2;
    this.#index = new Int32Array(positions);
    this.#mask = positions - 1;
    this.#shift = 32 - Math.log2(positions);
  }

  /** Remembers that `locator` went for `reason`, forgetting the oldest when full. */
  add(locator: string, reason: RemovalReason): void {
    if (this.#capacity === 0 || !parseWords(locator, this.#probe, 0)) return;
    const slot = this.#next;
    if (this.#used[slot] === 1) this.#unindex(slot);
    else this.#size++;
    this.#words.set(this.#probe, slot * WORDS);
    this.#used[slot] = 1;
    this.#reasons[slot] = reason === 'evicted' ? 0 : 1;
    let p = this.#home(slot);
    while (this.#index[p] !== 0) p = (p + 1) & this.#mask;
    this.#index[p] = slot + 1;
    this.#next = slot + 1 === this.#capacity ? 0 : slot + 1;
  }

  /** Why `locator` went, while it is remembered. */
  get(locator: string): RemovalReason | undefined {
    const probe = this.#probe;
    if (this.#capacity === 0 || !parseWords(locator, probe, 0)) return undefined;
    const words = this.#words;
    for (let p = this.#spread(probe, 0); ; p = (p + 1) & this.#mask) {
      const entry = this.#index[p] ?? 0;
      if (entry === 0) return undefined;
      const at = (entry - 1) * WORDS;
      let same = true;
      for (let w = 0; w < WORDS && same; w++) same = words[at + w] === probe[w];
      if (same) return REASONS[this.#reasons[entry - 1] ?? 0];
    }
  }

  /** How many locators are remembered. */
  get size(): number {
    return this.#size;
  }

  #home(slot: number): number {
    return this.#spread(this.#words, slot * WORDS);
  }

  /**
   * The index position a locator's words start probing at. The id is random, but mixing
   * (Fibonacci hashing of the id's last two words) keeps even sequential ids from forming
   * one long probe run, which a deletion would have to walk.
   */
  #spread(words: Uint32Array, at: number): number {
    const mixed = Math.imul((words[at + WORDS - 1] ?? 0) ^ Math.imul(words[at + WORDS - 2] ?? 0, 0x85ebca6b), 0x9e3779b1);
    return (mixed >>> this.#shift) & this.#mask;
  }

  /** Takes ring slot `slot` out of the index, shifting later entries of its probe run back. */
  #unindex(slot: number): void {
    const mask = this.#mask;
    const index = this.#index;
    let hole = this.#home(slot);
    while (index[hole] !== slot + 1) hole = (hole + 1) & mask;
    for (let j = (hole + 1) & mask; index[j] !== 0; j = (j + 1) & mask) {
      const home = this.#home((index[j] ?? 1) - 1);
      // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
      const stays = hole <= j ? home > hole && home <= j : home > hole || home <= j;
      if (!stays) {
        index[hole] = index[j] ?? 0;
        hole = j;
      }
    }
    index[hole] = 0;
  }
}
