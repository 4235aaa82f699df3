// Test-only fake backends (excluded from the build by the `test-*` pattern).
import {
  type ReadOptions,
  type ReadResult,
  type SaveTextSpill,
  type SaveTextStreamSpill,
  type SpillBackend,
  type SpillCallOptions,
  type SpillCatalog,
  type SpillEntry,
  type SpillLocator,
  type SpillReader,
  type SpillRef,
  spillLocator,
  utf8ByteLength,
} from '@spillway/core';
import fc from 'fast-check';

/** How a fake backend answers a save. */
export type Behaviour =
  | { readonly kind: 'ok'; readonly locator: string; readonly hint: string }
  | { readonly kind: 'reject'; readonly value: unknown }
  | { readonly kind: 'throw'; readonly value: unknown }
  | { readonly kind: 'garbage'; readonly value: unknown }
  | { readonly kind: 'wrong-bytes'; readonly locator: string }
  | { readonly kind: 'thenable-throws'; readonly value: unknown }
  | { readonly kind: 'hang'; readonly honoursSignal: boolean };

/** One call the fake received, with the content it was given (streams collected). */
export interface RecordedCall {
  readonly method: 'saveText' | 'saveTextStream';
  readonly input: SaveTextSpill | SaveTextStreamSpill;
  readonly signal: AbortSignal | undefined;
  content?: string;
}

/** A backend that records every call and answers as `behaviour` says. */
export interface FakeBackend extends SpillBackend {
  readonly calls: RecordedCall[];
}

/** Optional capabilities of a fake backend. */
export interface FakeCapabilities {
  /** Give it a `reader` over what it stored. */
  readonly reader?: boolean | undefined;
  /** Its reader answers at most this many bytes per read, whatever `maxBytes` asks. */
  readonly pageBytes?: number | undefined;
  /** Give it a `catalog` whose `delete` removes what it stored. */
  readonly catalog?: boolean | undefined;
}

/** What a fake with capabilities stored, by locator, as a real backend would read it back. */
export type FakeStore = Map<string, string>;

/** A backend that records every call and answers as `behaviour` says. */
export interface FakeBackendWithStore extends FakeBackend {
  readonly stored: FakeStore;
  readonly deleted: string[];
}

export function fakeBackend(behaviour: Behaviour, capabilities: FakeCapabilities = {}): FakeBackendWithStore {
  const calls: RecordedCall[] = [];
  const stored: FakeStore = new Map();
  const deleted: string[] = [];
  const remember = (ref: SpillRef, content: string): SpillRef => {
    // Encoded as a real backend encodes it: a lone surrogate comes back as U+FFFD.
    stored.set(ref.locator, Buffer.from(content, 'utf8').toString('utf8'));
    return ref;
  };
  const answer = (content: string, signal: AbortSignal | undefined): Promise<SpillRef> => {
    switch (behaviour.kind) {
      case 'ok':
        return Promise.resolve(
          remember({ locator: spillLocator(behaviour.locator), bytes: utf8ByteLength(content), retrievalHint: behaviour.hint }, content),
        );
      case 'reject':
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- a backend may reject with anything
        return Promise.reject(behaviour.value);
      case 'throw':
        throw behaviour.value;
      case 'garbage':
        return Promise.resolve(behaviour.value as SpillRef);
      case 'wrong-bytes':
        return Promise.resolve({ locator: spillLocator(behaviour.locator), bytes: utf8ByteLength(content) + 1, retrievalHint: 'x' });
      case 'thenable-throws':
        return {
          then() {
            throw behaviour.value;
          },
        } as unknown as Promise<SpillRef>;
      case 'hang':
        return new Promise((_resolve, reject) => {
          if (behaviour.honoursSignal) {
            signal?.addEventListener('abort', () => {
              reject(signal.reason as Error);
            });
          }
        });
    }
  };
  const reader: SpillReader = {
    read(locator: SpillLocator, options: ReadOptions = {}): Promise<ReadResult> {
      const text = stored.get(locator);
      if (text === undefined) return Promise.reject(new Error(`not found: ${locator}`));
      return Promise.resolve(readLines(text, options, capabilities.pageBytes));
    },
    grep: () => Promise.reject(new Error('unused')),
  };
  const catalog: SpillCatalog = {
    async *list(): AsyncIterable<SpillEntry> {
      for (const [locator, text] of stored) {
        await Promise.resolve();
        yield { locator: spillLocator(locator), bytes: utf8ByteLength(text), createdAt: new Date(0), session: 's' };
      }
    },
    delete(locator: SpillLocator): Promise<boolean> {
      deleted.push(locator);
      return Promise.resolve(stored.delete(locator));
    },
  };
  return {
    specificationVersion: 'v1',
    name: 'fake',
    calls,
    stored,
    deleted,
    ...(capabilities.reader === true ? { reader } : {}),
    ...(capabilities.catalog === true ? { catalog } : {}),
    saveText(input: SaveTextSpill, options?: SpillCallOptions): Promise<SpillRef> {
      const call: RecordedCall = { method: 'saveText', input, signal: options?.signal, content: input.content };
      calls.push(call);
      if (behaviour.kind === 'throw') throw behaviour.value;
      return answer(input.content, options?.signal);
    },
    saveTextStream(input: SaveTextStreamSpill, options?: SpillCallOptions): Promise<SpillRef> {
      const call: RecordedCall = { method: 'saveTextStream', input, signal: options?.signal };
      calls.push(call);
      if (behaviour.kind === 'throw') throw behaviour.value;
      // Consume the whole stream first (so backpressure works), then answer.
      return (async () => {
        let content = '';
        for await (const chunk of input.content) content += chunk;
        call.content = content;
        return answer(content, options?.signal);
      })();
    },
  };
}

/**
 * Locators: short arbitrary ones, and ones as long as real paths (100 to 200 bytes), which
 * make the real notice larger than the shortest one the policy checks before saving.
 */
export function locatorArb(): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }),
    fc.string({ minLength: 100, maxLength: 200, unit: 'grapheme-ascii' }),
  );
}

/** Every behaviour, with arbitrary locators, hints and thrown/rejected values. */
export const behaviourArb: fc.Arbitrary<Behaviour> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('ok' as const), locator: locatorArb(), hint: fc.string({ maxLength: 40 }) }) },
  fc.record({ kind: fc.constant('reject' as const), value: fc.anything() }),
  fc.record({ kind: fc.constant('throw' as const), value: fc.anything() }),
  fc.record({ kind: fc.constant('garbage' as const), value: fc.anything() }),
  fc.record({ kind: fc.constant('wrong-bytes' as const), locator: fc.string({ minLength: 1, maxLength: 10 }) }),
  fc.record({ kind: fc.constant('thenable-throws' as const), value: fc.anything() }),
  fc.record({ kind: fc.constant('hang' as const), honoursSignal: fc.boolean() }),
);

const troublesomeUnit = fc.constantFrom('a', 'b', '\n', 'é', '€', '😀', '\uD800', '\uDC00', ' ');

/**
 * Text with the troublesome parts over-represented (line breaks, multi-byte and astral
 * characters, lone surrogates), from empty to several kilobytes: a random piece repeated,
 * so large texts still vary.
 */
export const textArb: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc
    .tuple(
      fc.oneof(
        fc.string({ unit: 'binary', minLength: 1, maxLength: 60, size: 'max' }),
        fc.string({ unit: troublesomeUnit, minLength: 1, maxLength: 80, size: 'max' }),
        fc.array(fc.string({ unit: 'grapheme-ascii', maxLength: 60, size: 'max' }), { minLength: 1, maxLength: 10 }).map((lines) => `${lines.join('\n')}\n`),
      ),
      fc.integer({ min: 1, max: 100 }),
      fc.string({ unit: troublesomeUnit, maxLength: 30, size: 'max' }),
    )
    .map(([piece, times, end]) => piece.repeat(times) + end),
);

/** A text content block. */
export function textBlock(text: string): { readonly type: 'text'; readonly text: string } {
  return { type: 'text', text };
}

/** Resolves after the current macrotask queue drains. */
export function tick(ms = 0): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * `SpillReader.read` over a string, as core specifies it: lines end at `\n`, the answer
 * holds whole lines within `maxBytes` (capped further by `pageBytes`), or cuts the first
 * line at a code point boundary when not even it fits (then there is no `nextOffset`).
 */
export function readLines(text: string, options: ReadOptions, pageBytes = Number.POSITIVE_INFINITY): ReadResult {
  const offset = options.offset ?? 1;
  const limit = options.limit ?? 2000;
  const maxBytes = Math.min(options.maxBytes ?? 32 * 1024, pageBytes);
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const totalBytes = utf8ByteLength(text);
  let out = '';
  let bytes = 0;
  let line = offset - 1;
  while (line < lines.length && line - (offset - 1) < limit) {
    const next = lines[line] as string;
    const size = utf8ByteLength(next);
    if (bytes + size > maxBytes) break;
    out += next;
    bytes += size;
    line++;
  }
  const taken = line - (offset - 1);
  if (taken === 0 && line < lines.length && limit > 0) {
    // Not even the first line fits: cut it.
    let cut = '';
    for (const ch of lines[line] as string) {
      if (utf8ByteLength(cut + ch) > maxBytes) break;
      cut += ch;
    }
    return { text: cut, startLine: offset, endLine: cut === '' ? offset - 1 : offset, truncated: true, hasMore: true, totalBytes };
  }
  const hasMore = line < lines.length;
  return {
    text: out,
    startLine: offset,
    endLine: offset - 1 + taken,
    truncated: false,
    hasMore,
    ...(hasMore ? { nextOffset: line + 1 } : {}),
    totalBytes,
  };
}

/** A backend that stores nothing, counts the bytes it is given, and answers one fixed locator. */
export function fixedLocatorBackend(locator: string, hint = 'Use spill_read with offset/limit, or spill_grep to search within it.'): SpillBackend {
  return {
    specificationVersion: 'v1',
    name: 'test',
    saveText: (input: SaveTextSpill): Promise<SpillRef> =>
      Promise.resolve({ locator: spillLocator(locator), bytes: utf8ByteLength(input.content), retrievalHint: hint }),
    async saveTextStream(input: SaveTextStreamSpill): Promise<SpillRef> {
      let bytes = 0;
      for await (const c of input.content) bytes += utf8ByteLength(c);
      return { locator: spillLocator(locator), bytes, retrievalHint: hint };
    },
  };
}
