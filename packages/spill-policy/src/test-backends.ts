// Test-only fake backends (excluded from the build by the `test-*` pattern).
import {
  type SaveTextSpill,
  type SaveTextStreamSpill,
  type SpillBackend,
  type SpillCallOptions,
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

export function fakeBackend(behaviour: Behaviour): FakeBackend {
  const calls: RecordedCall[] = [];
  const answer = (content: string, signal: AbortSignal | undefined): Promise<SpillRef> => {
    switch (behaviour.kind) {
      case 'ok':
        return Promise.resolve({
          locator: spillLocator(behaviour.locator),
          bytes: utf8ByteLength(content),
          retrievalHint: behaviour.hint,
        });
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
  return {
    name: 'fake',
    calls,
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

/** Every behaviour, with arbitrary locators, hints and thrown/rejected values. */
export const behaviourArb: fc.Arbitrary<Behaviour> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('ok' as const), locator: fc.string({ minLength: 1, maxLength: 40, unit: 'binary' }), hint: fc.string({ maxLength: 40 }) }) },
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
