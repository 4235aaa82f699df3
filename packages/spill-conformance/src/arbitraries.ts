import fc from 'fast-check';
import type { GrepOptions, ReadOptions } from '@spillway/core';
import { HOSTILE_SESSION_IDS, HOSTILE_SUGGESTED_NAMES } from './hostile-inputs.js';
import { escapeRegExp } from './reference-reader.js';
import { isCodePointBoundary, toStoredText } from './text.js';

/** One lone surrogate (U+D800–U+DFFF), which UTF-8 storage turns into U+FFFD. */
export const loneSurrogateArbitrary: fc.Arbitrary<string> = fc
  .integer({ min: 0xd800, max: 0xdfff })
  .map((code) => String.fromCharCode(code));

/** Options for {@link contentArbitrary}. */
export interface ContentArbitraryOptions {
  /** Most pieces in one content (each piece is a few characters or a line break). Default 40. */
  readonly maxPieces?: number;
}

const piece: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }) },
  { weight: 3, arbitrary: fc.constantFrom('\n', '\r\n', '\r', '\n\n') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u00e9', '\u20ac', '\u4e2d\u6587', '\u{1F600}', '\u{1F469}\u200D\u{1F469}\u200D\u{1F467}', '\u0000', '\uFFFD') },
  { weight: 1, arbitrary: loneSurrogateArbitrary },
);

/**
 * Text of any kind a tool may return: ASCII, every Unicode plane, line breaks (`\n`,
 * `\r\n`, a bare `\r`), NUL, emoji sequences and lone surrogates, mixed in short pieces
 * so that lines, multi-byte characters and breaks all appear often. The empty string is
 * included.
 */
export function contentArbitrary(options: ContentArbitraryOptions = {}): fc.Arbitrary<string> {
  return fc.array(piece, { maxLength: options.maxPieces ?? 40 }).map((pieces) => pieces.join(''));
}

const greppableChar: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...Array.from('abcxyzABCXYZ019 ')) },
  { weight: 2, arbitrary: fc.constantFrom(...Array.from('.*+?()[]{}|^$\\/-')) },
  { weight: 1, arbitrary: fc.constantFrom('\u00e9', '\u00c9', '\u4e2d', '\u{1F600}', '\r', '\t') },
);

/**
 * Line-oriented text for read and grep: short lines of letters, digits, spaces and
 * regular-expression syntax characters, with some multi-byte characters, `\r\n` endings,
 * empty lines and sometimes no final newline. It stays well-formed and avoids characters
 * whose case folding differs between regular-expression modes, so any correct grep agrees
 * with the reference one.
 */
export function linesContentArbitrary(options: { readonly maxLines?: number; readonly maxLineLength?: number } = {}): fc.Arbitrary<string> {
  const line = fc.string({ unit: greppableChar, maxLength: options.maxLineLength ?? 30 });
  return fc
    .tuple(fc.array(line, { maxLength: options.maxLines ?? 25 }), fc.boolean())
    .map(([lines, finalNewline]) => lines.join('\n') + (finalNewline && lines.length > 0 ? '\n' : ''));
}

/**
 * Suggested names: every hostile name from {@link HOSTILE_SUGGESTED_NAMES}, arbitrary
 * Unicode (lone surrogates included) and long names.
 */
export function suggestedNameArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_SUGGESTED_NAMES.map(([, name]) => name)),
    fc.string({ unit: 'binary', maxLength: 40 }),
    contentArbitrary({ maxPieces: 6 }),
    fc.string({ unit: 'grapheme-ascii', minLength: 200, maxLength: 400 }),
  );
}

/**
 * Session ids: any non-empty string, including the hostile ones from
 * {@link HOSTILE_SESSION_IDS}, lone surrogates and look-alikes.
 */
export function sessionIdArbitrary(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.constantFrom(...HOSTILE_SESSION_IDS.map(([, id]) => id)),
    fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
    contentArbitrary({ maxPieces: 6 }).filter((s) => s.length > 0),
  );
}

/** How a chunked stream is handed to `saveTextStream`. */
export type ChunkDelivery = 'array' | 'generator' | 'async-generator';

/** A content, the chunks it is split into, and how the chunks are delivered. */
export interface ChunkedContent {
  /** The whole text, the concatenation of `chunks`. */
  readonly content: string;
  /** The pieces, split at arbitrary UTF-16 indices (so sometimes inside a surrogate pair). */
  readonly chunks: readonly string[];
  /** How to deliver them; see {@link toChunkSource}. */
  readonly delivery: ChunkDelivery;
}

/** Splits `text` at the given UTF-16 indices (sorted, deduplicated, out-of-range ones dropped). */
export function splitAt(text: string, indices: readonly number[]): string[] {
  const cuts = [...new Set(indices.filter((i) => i > 0 && i < text.length))].sort((a, b) => a - b);
  const chunks: string[] = [];
  let from = 0;
  for (const cut of cuts) {
    chunks.push(text.slice(from, cut));
    from = cut;
  }
  chunks.push(text.slice(from));
  return chunks;
}

/** Options for {@link chunkedContentArbitrary}. */
export interface ChunkedContentArbitraryOptions extends ContentArbitraryOptions {
  /**
   * Every case holds at least one surrogate pair and at least one cut between its halves,
   * so a backend that encodes chunks one by one fails on every run, not only on the runs
   * that happen to draw a pair. Default false.
   */
  readonly alwaysSplitAPair?: boolean;
}

/**
 * Content split into chunks anywhere, including between the halves of a surrogate pair,
 * with empty chunks mixed in, delivered as an array, a generator or an async generator.
 */
export function chunkedContentArbitrary(options: ChunkedContentArbitraryOptions = {}): fc.Arbitrary<ChunkedContent> {
  const always = options.alwaysSplitAPair === true;
  return fc
    .tuple(
      contentArbitrary(options),
      fc.nat(),
      fc.array(fc.nat(), { maxLength: 12 }),
      fc.array(fc.nat(), { minLength: always ? 1 : 0, maxLength: 3 }),
      fc.array(fc.nat(), { maxLength: 3 }),
      fc.constantFrom<ChunkDelivery>('array', 'generator', 'async-generator'),
    )
    .map(([generated, pairAt, cuts, pairCuts, empties, delivery]) => {
      let content = generated;
      if (always) {
        const boundaries: number[] = [];
        for (let i = 0; i <= content.length; i++) if (isCodePointBoundary(content, i)) boundaries.push(i);
        const at = boundaries[pairAt % boundaries.length] ?? 0;
        content = content.slice(0, at) + '\u{1F600}' + content.slice(at);
      }
      // Random cuts rarely land inside a pair, so some cuts aim there on purpose.
      const insidePairs: number[] = [];
      for (let i = 1; i < content.length; i++) if (!isCodePointBoundary(content, i)) insidePairs.push(i);
      const aimed = insidePairs.length === 0 ? [] : pairCuts.map((c) => insidePairs[c % insidePairs.length] ?? 0);
      const random = cuts.map((c) => (content.length === 0 ? 0 : c % (content.length + 1)));
      const chunks = splitAt(content, [...random, ...aimed]);
      for (const e of empties) chunks.splice(e % (chunks.length + 1), 0, '');
      return { content, chunks, delivery };
    });
}

/**
 * Turns chunks into what `saveTextStream` accepts. An async generator yields to the
 * event loop between chunks, as real streams do.
 */
export function toChunkSource(chunks: readonly string[], delivery: ChunkDelivery): Iterable<string> | AsyncIterable<string> {
  if (delivery === 'array') return [...chunks];
  if (delivery === 'generator') {
    return (function* () {
      yield* chunks;
    })();
  }
  return (async function* () {
    for (const chunk of chunks) {
      await new Promise((resolve) => setTimeout(resolve, 0));
      yield chunk;
    }
  })();
}

/**
 * Valid read options for an artifact with `lineCount` lines: offsets from 1 to past the
 * end, limits from 0 to past the end, `maxBytes` from 4 (one code point always fits)
 * to more than a short artifact holds, and `offsetByte` anywhere from 0 to past the end.
 * Fields are sometimes left out to use defaults.
 */
export function readOptionsArbitrary(lineCount: number): fc.Arbitrary<ReadOptions> {
  return fc.record(
    {
      offset: fc.integer({ min: 1, max: lineCount + 3 }),
      limit: fc.integer({ min: 0, max: lineCount + 3 }),
      maxBytes: fc.oneof(fc.integer({ min: 4, max: 64 }), fc.integer({ min: 4, max: 4096 })),
      // Any position: mostly inside a line (ignored), sometimes a line start (read from).
      offsetByte: fc.integer({ min: 0, max: lineCount * 8 + 8 }),
    },
    { requiredKeys: [] },
  );
}

/** A grep query: a pattern and valid options. */
export interface GrepQuery {
  /** The pattern, regular-expression source unless `options.literal`. */
  readonly pattern: string;
  /** Valid grep options. */
  readonly options: GrepOptions;
}

const REGEX_SAMPLES = ['^', '$', '^$', '\\d', '[a-c]+', 'a|b', '\\s', 'x*', '[A-Z]', '\\.', '\\(', '\u00e9', '\u{1F600}', 'b.c'];

/**
 * Grep queries against `content`: a piece of the content searched literally, the same
 * piece as an escaped regular expression, or a small regular expression; with random
 * `ignoreCase`, `maxMatches` and `maxLineBytes` (small enough to force cut lines).
 */
export function grepQueryArbitrary(content: string): fc.Arbitrary<GrepQuery> {
  const stored = toStoredText(content);
  const piece = fc
    .tuple(fc.nat(), fc.integer({ min: 1, max: 8 }))
    .map(([at, len]) => {
      const lines = stored.split('\n').filter((l) => l.length > 0);
      if (lines.length === 0) return 'a';
      const line = lines[at % lines.length] ?? 'a';
      let from = at % line.length;
      if (!isCodePointBoundary(line, from)) from--;
      let to = Math.min(line.length, from + len);
      if (!isCodePointBoundary(line, to)) to++;
      return line.slice(from, to);
    });
  const search = fc.oneof(
    piece.map((p) => ({ pattern: p, literal: true })),
    piece.map((p) => ({ pattern: escapeRegExp(p), literal: false })),
    fc.constantFrom(...REGEX_SAMPLES).map((p) => ({ pattern: p, literal: false })),
  );
  return fc
    .tuple(
      search,
      fc.record(
        {
          ignoreCase: fc.boolean(),
          maxMatches: fc.integer({ min: 0, max: 30 }),
          maxLineBytes: fc.integer({ min: 4, max: 64 }),
        },
        { requiredKeys: [] },
      ),
    )
    .map(([{ pattern, literal }, options]) => ({ pattern, options: literal ? { ...options, literal } : options }));
}

const DIFFERENTIAL_CHARS = ['a', 'b', 'x', 'A', 'B', 'X', '1', '9', ' ', '\t', '\r', '.', '(', '\\', '_', '-', '\u00e9', '\u00c9', '\u00df', '\u4e2d', '\u03a3', '\u03c3', '\u{1F600}', '\u017f', '\u212a', 'k', 's'];

/**
 * Texts for the differential property: short ASCII lines, multi-byte lines (2-, 3- and
 * 4-byte characters, and letters whose case folding is special such as `ſ` and the Kelvin
 * sign), long lines (hundreds to thousands of characters), `\r\n` endings, empty lines,
 * and sometimes no final newline.
 */
export function differentialTextArbitrary(): fc.Arbitrary<string> {
  const char = fc.constantFrom(...DIFFERENTIAL_CHARS);
  const short = fc.string({ unit: char, maxLength: 24 });
  const long = fc.tuple(fc.string({ unit: char, minLength: 1, maxLength: 8 }), fc.integer({ min: 40, max: 400 })).map(([s, n]) => s.repeat(n));
  const line = fc.oneof({ arbitrary: short, weight: 6 }, { arbitrary: long, weight: 1 });
  return fc
    .tuple(fc.array(line, { maxLength: 20 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
    .map(([lines, eol, finalNewline]) => lines.join(eol) + (finalNewline && lines.length > 0 ? eol : ''));
}

/**
 * Patterns in the contract's dialect (RE2) chosen where dialects and engines differ: `.`
 * against `\r`, `\s`, negated classes, Unicode and POSIX classes, inline flags, quoting,
 * anchors, alternation order, empty matches, nested quantifiers; and some that RE2 refuses.
 */
export const DIFFERENTIAL_PATTERNS: readonly string[] = [
  '.', 'a.b', '.$', '\\r$', '\\s', '\\S+', '[^a]', '[^\\s]+', '\\w+', '\\bx', '\\Bb', '\\d{2,}', '\\D', '\\W',
  '(?i)\u00e9', '\\pL+', '\\p{Greek}', '\\PL', '[[:upper:]]', '[[:^alpha:]]', '^$', '^', '$', '(a|ab)(c|bcd)?', 'x*', 'b+?',
  '[a-c]+', '\\x{1F600}', '\u{1F600}|\u4e2d', '\\QA.\\E', 'a\\z', '\\Aa', '(?s).x', '(?m)^b', '(?U)a+', '(a+)+$', '(.*a){3}',
  '[\u00e9-\u00ff]', 'k', 's', 'S', '[a-z]+', '\u03a3', '\\x{FFFD}', '(?P<n>a)b', '(?:)', '|',
  '(', '(?=a)', 'a\\1', '[z-a]', 'x{2,1}', '\\e',
];

/** A grep call for the differential property: any pattern and options, valid or not. */
export interface DifferentialGrep {
  readonly pattern: string;
  readonly options: Readonly<Record<string, unknown>>;
}

/**
 * Grep calls against `text`: a pattern from {@link DIFFERENTIAL_PATTERNS} or a piece of
 * the text, with options that are mostly valid and sometimes not (a string `ignoreCase`,
 * `timeoutMs` 0, a negative `maxMatches`…), so errors are compared too.
 */
export function differentialGrepArbitrary(text: string): fc.Arbitrary<DifferentialGrep> {
  const stored = toStoredText(text);
  const piece = fc.tuple(fc.nat(), fc.integer({ min: 1, max: 6 })).map(([at, len]) => {
    if (stored.length === 0) return 'a';
    let from = at % stored.length;
    if (!isCodePointBoundary(stored, from)) from--;
    let to = Math.min(stored.length, from + len);
    if (!isCodePointBoundary(stored, to)) to++;
    return stored.slice(from, to);
  });
  const pattern = fc.oneof(fc.constantFrom(...DIFFERENTIAL_PATTERNS), piece);
  const options = fc.record(
    {
      ignoreCase: fc.oneof({ arbitrary: fc.boolean(), weight: 8 }, { arbitrary: fc.constant('yes'), weight: 1 }),
      literal: fc.oneof({ arbitrary: fc.boolean(), weight: 8 }, { arbitrary: fc.constant(1), weight: 1 }),
      maxMatches: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 6 }), weight: 8 }, { arbitrary: fc.constantFrom(-1, 1.5), weight: 1 }),
      maxLineBytes: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 80 }), weight: 8 }, { arbitrary: fc.constant(-1), weight: 1 }),
      timeoutMs: fc.oneof({ arbitrary: fc.constant(30_000), weight: 8 }, { arbitrary: fc.constantFrom(0, Number.NaN, -1), weight: 1 }),
    },
    { requiredKeys: [] },
  );
  return fc.record({ pattern, options });
}

/** `read` options for the differential property: mostly valid, sometimes not. */
export function differentialReadOptionsArbitrary(): fc.Arbitrary<Readonly<Record<string, unknown>>> {
  return fc.record(
    {
      offset: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 25 }), weight: 8 }, { arbitrary: fc.constantFrom(0, 1.5, '2'), weight: 1 }),
      limit: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 8 }), weight: 8 }, { arbitrary: fc.constant(-1), weight: 1 }),
      maxBytes: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 600 }), weight: 8 }, { arbitrary: fc.constant(Number.NaN), weight: 1 }),
      offsetByte: fc.oneof({ arbitrary: fc.integer({ min: 0, max: 200 }), weight: 8 }, { arbitrary: fc.constantFrom(-1, 0.5, '3'), weight: 1 }),
    },
    { requiredKeys: [] },
  );
}
