/**
 * The salient-line prefilter at close to the speed of counting line breaks: the text's UTF-8
 * bytes go through a small WebAssembly SIMD loop (`trigram-prefilter.wat`) that admits the
 * lines holding a trigger's fingerprint (`trigram-fingerprints.ts`) and counts the line
 * breaks. It admits every line the triggers admit and a few more, which the rules then rate
 * 0: the scan's answer is the same as with the regular expressions alone. For each line it
 * admits, it also tells which triggers the line can hold (those with a fingerprint in a
 * bucket one of its trigrams passed), so that only those are tested.
 */
import type { BlockHits, LinePrefilter } from './line-prefilter.js';
import { lineStart } from './line-prefilter.js';
import { TriggerSubset } from './salient.js';
import { TRIGGER_FINGERPRINTS, type Fingerprint } from './trigram-fingerprints.js';
import { TRIGRAM_PREFILTER_WASM } from './trigram-prefilter-wasm.js';

/** Code units encoded and scanned at a time: a 64 KiB piece of `spillway run` in one go. */
const WINDOW = 65536;
/** Code units a window cut inside a line repeats from the one before, so no trigram straddles the cut unseen. */
const OVERLAP = 2;
/** Where the trigram set lies in the module's memory (after the six nibble tables). */
const TRIGRAM_SET = 128;
/** Bits in the trigram set. */
const TRIGRAM_BITS = 65536;
/** Where the text goes (after 16 bytes where the module puts its nibble test's lanes): three bytes per code unit at most, then 32 bytes of padding. */
const INPUT = TRIGRAM_SET + TRIGRAM_BITS / 8 + 128;
const INPUT_BYTES = 3 * WINDOW;
/** Where the answer goes: three u32 (its index, where it starts, its buckets) for each line, of which a window holds one more than its line breaks. */
const OUTPUT = INPUT + INPUT_BYTES + 64;
const MEMORY_BYTES = OUTPUT + 12 * (WINDOW + 1);
const PAGE = 65536;

/** The part of the WebAssembly API used here (TypeScript declares it only with the DOM library). */
declare const WebAssembly: {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { readonly exports: unknown };
};

/** The module's exports. */
interface TrigramExports {
  readonly memory: { readonly buffer: ArrayBuffer; grow(pages: number): number };
  readonly newlines: { readonly value: number };
  scan(input: number, length: number, output: number): number;
}

/** The trigram set's bit for three bytes (the same hash as the module's). */
function trigramBit(b0: number, b1: number, b2: number): number {
  return Math.imul(b0 | (b1 << 8) | (b2 << 16), 0x9e3779b1) >>> 16;
}

/** The six nibble tables, then the trigram set, as the module reads them. */
function prefilterTables(fingerprints: Readonly<Record<string, readonly Fingerprint[]>>): Uint8Array {
  const tables = new Uint8Array(TRIGRAM_SET + TRIGRAM_BITS / 8);
  for (const { classes, bucket } of Object.values(fingerprints).flat()) {
    const bytes = classes.map((cls) => Array.from(cls, (ch) => ch.charCodeAt(0)));
    bytes.forEach((place, p) => {
      for (const byte of place) {
        tables[32 * p + (byte & 15)] = (tables[32 * p + (byte & 15)] ?? 0) | (1 << bucket);
        tables[32 * p + 16 + (byte >> 4)] = (tables[32 * p + 16 + (byte >> 4)] ?? 0) | (1 << bucket);
      }
    });
    const [first = [], second = [], third = []] = bytes;
    for (const b0 of first) {
      for (const b1 of second) {
        for (const b2 of third) {
          const bit = trigramBit(b0, b1, b2);
          tables[TRIGRAM_SET + (bit >> 3)] = (tables[TRIGRAM_SET + (bit >> 3)] ?? 0) | (1 << (bit & 7));
        }
      }
    }
  }
  return tables;
}

class TrigramPrefilter implements LinePrefilter {
  readonly passes = 2;
  // A line that holds one of the triggers' trigrams, not necessarily a trigger.
  readonly exact = false;
  readonly #exports: TrigramExports;
  readonly #input: Uint8Array;
  readonly #output: Uint32Array;
  readonly #encoder = new TextEncoder();
  /** The triggers with a fingerprint in each bucket. */
  readonly #triggersOf: readonly string[][];
  /** By a set of buckets (a byte's bits): the triggers of a line whose fingerprints fell in those buckets alone. */
  readonly #subsets = new Map<number, TriggerSubset>();

  constructor(exports: TrigramExports, tables: Uint8Array, fingerprints: Readonly<Record<string, readonly Fingerprint[]>>) {
    this.#exports = exports;
    this.#triggersOf = Array.from({ length: 8 }, (_, bucket) => Object.keys(fingerprints).filter((t) => fingerprints[t]?.some((f) => f.bucket === bucket)));
    const memory = exports.memory;
    const pages = Math.ceil(MEMORY_BYTES / PAGE) - memory.buffer.byteLength / PAGE;
    if (pages > 0) memory.grow(pages);
    new Uint8Array(memory.buffer).set(tables, 0);
    this.#input = new Uint8Array(memory.buffer, INPUT, INPUT_BYTES);
    this.#output = new Uint32Array(memory.buffer, OUTPUT, 3 * (WINDOW + 1));
  }

  #subset(buckets: number): TriggerSubset {
    let subset = this.#subsets.get(buckets);
    if (subset === undefined) {
      subset = new TriggerSubset(this.#triggersOf.flatMap((triggers, bucket) => ((buckets >> bucket) & 1) === 1 ? triggers : []));
      this.#subsets.set(buckets, subset);
    }
    return subset;
  }

  admit(s: string, from: number, to: number): BlockHits {
    const starts: number[] = [];
    const lines: number[] = [];
    const held: TriggerSubset[] = [];
    let buckets = 0; // the last admitted line's
    let base = 0; // line breaks before `at`
    for (let at = from; at < to; ) {
      let end = Math.min(to, at + WINDOW);
      let next = end;
      if (end < to) {
        const nl = s.lastIndexOf('\n', end - 1);
        if (nl >= at) next = end = nl + 1;
        else next = end - OVERLAP;
      }
      const { read, written } = this.#encoder.encodeInto(at === 0 && end === s.length ? s : s.slice(at, end), this.#input);
      if (read !== end - at) throw new Error(`the prefilter encoded ${String(read)} of ${String(end - at)} code units`);
      const count = this.#exports.scan(INPUT, written, OUTPUT);
      const ascii = written === read; // then a byte offset is a code-unit offset
      let walked = at; // the start of line `walkedLine` of this window, for text that is not ASCII
      let walkedLine = 0;
      for (let k = 0; k < count; k++) {
        const inWindow = this.#output[3 * k] ?? 0;
        const line = base + inWindow;
        const its = this.#output[3 * k + 2] ?? 0xff;
        if (line === lines.at(-1)) {
          // A window's first line can be the last one's.
          buckets |= its;
          held[held.length - 1] = this.#subset(buckets);
          continue;
        }
        let start: number;
        if (inWindow === 0) start = lineStart(s, at, from);
        else if (ascii) start = at + (this.#output[3 * k + 1] ?? 0);
        else {
          for (; walkedLine < inWindow; walkedLine++) walked = s.indexOf('\n', walked) + 1;
          start = walked;
        }
        starts.push(start);
        lines.push(line);
        buckets = its;
        held.push(this.#subset(its));
      }
      base += this.#exports.newlines.value;
      at = next;
    }
    return { starts, lines, newlines: base, held };
  }
}

/**
 * The trigram prefilter, or `undefined` where WebAssembly with SIMD cannot be compiled.
 *
 * @param fingerprints - what it looks for (the triggers' own, unless a test plants a gap).
 */
export function createTrigramPrefilter(fingerprints = TRIGGER_FINGERPRINTS): LinePrefilter | undefined {
  if (typeof WebAssembly !== 'object') return undefined;
  try {
    const bytes = Uint8Array.from(atob(TRIGRAM_PREFILTER_WASM), (ch) => ch.charCodeAt(0));
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), {});
    return new TrigramPrefilter(instance.exports as TrigramExports, prefilterTables(fingerprints), fingerprints);
  } catch {
    return undefined;
  }
}
