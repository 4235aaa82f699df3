import { utf8ByteLength, type SpillBackend } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { OUTLINE_END_MARKER, OUTLINE_LINE_BYTES } from './list-outline.js';
import { createSpillPolicy } from './policy.js';
import { fixedLocatorBackend } from './test-backends.js';

/** A backend that keeps nothing and answers one fixed locator. */
const store = (): SpillBackend => fixedLocatorBackend('spill+test://store/list');

const exec = { toolName: 'bash', callId: 'call-1', sessionId: 's1' };

async function preview(text: string, cap: number): Promise<string> {
  const out = await createSpillPolicy({ backend: store(), maxInlineBytes: cap }).applyToResult(exec, { content: [{ type: 'text', text }] });
  return (out.content[0] as { text: string }).text;
}

/**
 * Lists as tools print them, some with long lines (git log subjects) and astral characters.
 * Only lines over 120 bytes leave room for an outline, so the long-lined kinds are drawn
 * most often: with equal weights, about one list in eight had one.
 */
const item = (weight: number, format: (i: number, w: string) => string) => ({ weight, arbitrary: fc.constant(format) });
const listArb = fc
  .tuple(
    fc.oneof(
      item(1, (i, w) => `/usr/share/doc/pkg-${String(i)}/${w}.txt`),
      item(4, (i, w) => `${(0x1000000 + i * 7919).toString(16)} ${w}: ${'a change that says what it does 😀 '.repeat(1 + (i % 5))}`),
      item(1, (i, w) => `src/${w}.ts:${String(i)}:  export const v${String(i)} = ${String(i)};`),
      item(1, (i, w) => `{"id":${String(i)},"name":"${w}","tags":["é","x"]}`),
      item(1, (i, w) => `-rw-r--r-- 1 u u ${String(i * 31)} Dec  3 06:00 ${w}-${String(i)}`),
      // 38 to 130 code units, some of them 2 or 3 bytes: not list items, so only the cap is checked.
      item(1, (i, w) => `${w}${'é€'.repeat(i % 7)}${'x'.repeat(30 + ((i * 37) % 90))}`),
      // The same in a list (git log --oneline), its lines mostly long enough for an outline.
      item(3, (i, w) => `${(0x2000000 + i * 7919).toString(16)} ${w}${'é€'.repeat(i % 7)} ${'x'.repeat(70 + ((i * 37) % 120))}`),
    ),
    fc.array(fc.stringMatching(/^[a-zé]{1,12}$/), { minLength: 1, maxLength: 8 }),
    fc.integer({ min: 16, max: 3000 }),
    fc.boolean(),
  )
  .map(([item, words, n, trailing]) => Array.from({ length: n }, (_, i) => item(i + 1, words[i % words.length] as string)).join('\n') + (trailing ? '\n' : ''));
const capArb = fc.integer({ min: 300, max: 40_000 });

/** The head's lines, the outline's labelled lines and the tail of a list's preview. */
function outlineParts(shown: string): { lead: string[]; outline: string[]; tail: string } | undefined {
  if (!shown.startsWith('[Preview of a list of ')) return undefined;
  const body = shown.slice(shown.indexOf('\n') + 1, shown.lastIndexOf('\n\n('));
  const start = body.search(/\n… \[(?:every line|one line in every \d+) of the omitted middle/);
  const markerEnd = body.indexOf('\n', start + 1) + 1;
  const end = body.indexOf(OUTLINE_END_MARKER, markerEnd);
  return {
    lead: start === 0 ? [] : body.slice(0, start - 1).split('\n'), // the head's lines each end with a line break
    outline: body.slice(markerEnd, end).split('\n').slice(0, -1),
    tail: body.slice(end + OUTLINE_END_MARKER.length),
  };
}

describe('the outline of a list (properties)', () => {
  it('is never over the cap; every line it shows is verbatim (or a cut prefix) at the line number it claims', async () => {
    let outlines = 0;
    await fc.assert(
      fc.asyncProperty(listArb, capArb, async (text, cap) => {
        fc.pre(utf8ByteLength(text) > cap);
        const shown = await preview(text, cap);
        expect(utf8ByteLength(shown)).toBeLessThanOrEqual(cap);
        const p = outlineParts(shown);
        if (p === undefined) return;
        outlines++;
        const lines = text.split('\n');
        const same = (body: string, original: string): void => {
          if (body.endsWith(' …') && body !== original) expect(original.startsWith(body.slice(0, -2))).toBe(true);
          else expect(body).toBe(original);
        };
        p.lead.forEach((body, k) => {
          const original = lines[k] as string;
          same(body, original);
          // Cut exactly when longer than an outline line, at any mix of ASCII and wider characters.
          if (utf8ByteLength(original) <= OUTLINE_LINE_BYTES) expect(body).toBe(original);
          else expect(utf8ByteLength(body)).toBeLessThanOrEqual(OUTLINE_LINE_BYTES + utf8ByteLength(' …'));
        });
        let previous = p.lead.length;
        for (const line of p.outline) {
          const m = /^\[(\d+)\] (.*)$/.exec(line);
          expect(m).not.toBeNull();
          const n = Number((m as RegExpExecArray)[1]);
          expect(n).toBeGreaterThan(previous);
          previous = n;
          same((m as RegExpExecArray)[2] as string, lines[n - 1] as string);
        }
        expect(text.endsWith(p.tail)).toBe(true);
      }),
      { numRuns: 150 },
    );
    expect(outlines).toBeGreaterThan(20);
  });

  it('spans the whole list: its last outline line is in the last part of the middle', async () => {
    const text = Array.from({ length: 5000 }, (_, i) => `${(0x1000000 + i).toString(16)} ${'commit subject that is long enough to be cut '.repeat(4)}${String(i + 1)}`).join('\n');
    const p = outlineParts(await preview(text, 8192));
    expect(p).toBeDefined();
    const numbers = (p as NonNullable<typeof p>).outline.map((l) => Number(/^\[(\d+)\]/.exec(l)?.[1]));
    expect(numbers.length).toBeGreaterThan(10);
    expect(Math.max(...numbers)).toBeGreaterThan(4500);
  });

  it('stream() shows what apply() shows for any chunking', async () => {
    await fc.assert(
      fc.asyncProperty(listArb, capArb, fc.integer({ min: 1, max: 5000 }), async (text, cap, chunk) => {
        fc.pre(utf8ByteLength(text) > cap);
        const policy = createSpillPolicy({ backend: store(), maxInlineBytes: cap });
        const whole = await policy.applyToResult(exec, { content: [{ type: 'text', text }] });
        const stream = policy.stream(exec);
        for (let i = 0; i < text.length; i += chunk) await stream.push(text.slice(i, i + chunk));
        expect(await stream.finish()).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });
});

describe('the outline of a list (examples)', () => {
  const paths = (n: number, at?: number, line?: string): string =>
    Array.from({ length: n }, (_, i) => (i + 1 === at ? (line as string) : `packages/pkg-${String(i % 40)}/src/a-rather-long-directory-name/and-a-long-file-name-${String(i + 1)}.ts ${'x'.repeat(80)}`)).join('\n');

  it('keeps the outline when items only mention a failure, and shows them labelled', async () => {
    const text = paths(3000, 1500, 'packages/pkg-1/test/fixtures/a-failure-case-1500.ts');
    const shown = await preview(text, 8192);
    expect(shown.startsWith('[Preview of a list of 3000 lines, ')).toBe(true);
    expect(shown).toContain('\n[1500] packages/pkg-1/test/fixtures/a-failure-case-1500.ts\n');
  });

  it('gives a list with a real error among its items the preview of excerpts, and one that failed at its end too', async () => {
    const diagnostic = "src/wrong.ts(1,14): error TS2322: Type 'number' is not assignable to type 'string'.";
    const among = await preview(paths(3000, 1500, diagnostic), 8192);
    expect(among.startsWith('[Preview of 3000 lines, ')).toBe(true);
    expect(among).toContain(`[1500] ${diagnostic}`);
    // At its end: the tail shows it, so the preview is the plain head and tail.
    const atEnd = await preview(paths(3000, 2995, 'packages/pkg-1/src/failed-to-write.ts'), 8192);
    expect(atEnd.startsWith('packages/pkg-0/')).toBe(true);
    expect(atEnd).toContain('\npackages/pkg-1/src/failed-to-write.ts\n');
  });

  it('shows a JSON test report\'s failing entry from the middle of one long line', async () => {
    const entries = Array.from({ length: 1000 }, (_, i) =>
      i === 500
        ? '{"fullName":"suite 500 breaks","status":"failed","failureMessages":["AssertionError: expected 2 to be 3"]}'
        : `{"fullName":"suite ${String(i)} works","status":"passed","failureMessages":[]}`,
    );
    const report = `{"numFailedTests":1,"testResults":[{"assertionResults":[${entries.join(',')}]}]}\n`;
    for (const cap of [2048, 8192]) {
      const shown = await preview(report, cap);
      expect(shown, String(cap)).toContain('"fullName":"suite 500 breaks","status":"failed","failureMessages":["AssertionError: expected 2 to be 3"]');
      expect(shown).toMatch(/\n\[1\] …/);
    }
  });
});
