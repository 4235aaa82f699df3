import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import wabt from 'wabt';
import { describe, expect, it } from 'vitest';
import { FallingBackPrefilter, RegexLinePrefilter, type BlockHits, type LinePrefilter } from './line-prefilter.js';
import { RULES } from './rules/all.js';
import { LINE_SCAN_UNITS, severityOf } from './salient.js';
import { PreviewScanner } from './scan.js';
import { TRIGGER_FINGERPRINTS, type Fingerprint } from './trigram-fingerprints.js';
import { createTrigramPrefilter } from './trigram-prefilter.js';
import { TRIGRAM_PREFILTER_WASM } from './trigram-prefilter-wasm.js';

function trigramPrefilter(fingerprints?: Readonly<Record<string, readonly Fingerprint[]>>): LinePrefilter {
  const prefilter = createTrigramPrefilter(fingerprints);
  if (prefilter === undefined) throw new Error('this Node compiles WebAssembly SIMD, so the trigram prefilter must be there');
  return prefilter;
}

/** A text each trigger matches (anchors and word boundaries dropped), with text around it. */
const triggerArb = fc
  .tuple(fc.string({ maxLength: 4 }), fc.constantFrom(...new Set(RULES.flatMap((r) => r.triggers))), fc.string({ maxLength: 4 }))
  .chain(([before, trigger, after]) => fc.stringMatching(new RegExp(trigger.replace(/\\b|\^/g, ''))).map((m) => `${before}${m}${after}`.replace(/[\r\n]/g, ' ')));

/** Lines as tools print them, with the rules' own examples and text around them; some long, some not ASCII. */
const lineArb = fc.oneof(
  { weight: 4, arbitrary: triggerArb },
  { weight: 6, arbitrary: fc.constantFrom('INFO request ok', 'compiling module', '', '  ', 'été ✓ done 😀', '2026-12-01T10:00:00.000Z INFO GET /api/items/7 200 45ms') },
  { weight: 4, arbitrary: fc.constantFrom(...RULES.flatMap((r) => [...r.hits, ...r.misses])) },
  { weight: 3, arbitrary: fc.string({ unit: fc.constantFrom('a', 'E', 'r', 'o', '1', '4', ' ', '\t', ':', '(', '.', '"', 'é', '×', '✗', '\u001b', '[', '3', '+', '-', '\r'), maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 60_000, max: 140_000 }), fc.constantFrom('x', 'é', '😀')).map(([n, ch]) => `Exit ${ch.repeat(n)} Error`) },
);
const textArb = fc
  .tuple(fc.array(lineArb, { minLength: 1, maxLength: 200 }), fc.string({ unit: fc.constantFrom('a', ' ', 'E'), maxLength: 3 }))
  .map(([lines, lead]) => `${lead}\n${lines.join('\n')}\n`);

/** What a prefilter admits, as line indices, with each line's start checked against the text. */
function admitted(prefilter: LinePrefilter, s: string, from: number): { lines: Set<number>; hits: BlockHits } {
  const hits = prefilter.admit(s, from, s.length);
  const starts: number[] = [from];
  for (let k = s.indexOf('\n', from); k >= 0 && k < s.length - 1; k = s.indexOf('\n', k + 1)) starts.push(k + 1);
  hits.lines.forEach((line, k) => {
    expect(hits.starts[k], `the start of line ${String(line)}`).toBe(starts[line]);
  });
  hits.lines.forEach((line, k) => {
    if (k > 0) expect(line, 'each line once, in order').toBeGreaterThan(hits.lines[k - 1] ?? -1);
  });
  return { lines: new Set(hits.lines), hits };
}

describe('the trigram prefilter', () => {
  it('embeds exactly what trigram-prefilter.wat assembles to', async () => {
    const wat = readFileSync(new URL('trigram-prefilter.wat', import.meta.url), 'utf8');
    const module = (await wabt()).parseWat('trigram-prefilter.wat', wat);
    module.validate();
    const bytes = Buffer.from(module.toBinary({}).buffer);
    module.destroy();
    expect(Buffer.from(TRIGRAM_PREFILTER_WASM, 'base64').equals(bytes), 'run node scripts/build-prefilter-wasm.mjs').toBe(true);
  });

  it('has fingerprints for every trigger and for nothing else, each three byte classes in one of eight buckets', () => {
    const triggers = new Set(RULES.flatMap((r) => r.triggers));
    expect(new Set(Object.keys(TRIGGER_FINGERPRINTS))).toEqual(triggers);
    for (const list of Object.values(TRIGGER_FINGERPRINTS)) {
      expect(list.length).toBeGreaterThan(0);
      for (const { classes, bucket } of list) {
        expect(classes).toHaveLength(3);
        for (const cls of classes) {
          expect(cls.length).toBeGreaterThan(0);
          for (const ch of cls) expect(ch.charCodeAt(0)).toBeLessThan(256);
        }
        expect([0, 1, 2, 3, 4, 5, 6, 7]).toContain(bucket);
      }
    }
  });

  it('admits every line the triggers admit, counts the line breaks, and knows where each line starts', () => {
    const exact = new RegexLinePrefilter();
    const fast = trigramPrefilter();
    fc.assert(
      fc.property(textArb, fc.nat(), (text, skip) => {
        const from = text.indexOf('\n', skip % text.length) + 1 || text.length;
        if (from >= text.length) return;
        const want = admitted(exact, text, from);
        const got = admitted(fast, text, from);
        expect(got.hits.newlines).toBe(want.hits.newlines);
        for (const line of want.lines) expect(got.lines.has(line), `line ${String(line)}`).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('admits few lines the triggers do not: a server log of info records admits none', () => {
    const log = Array.from({ length: 5000 }, (_, i) => `2026-12-01T10:00:00.000Z INFO  worker-${String(i % 8)} GET /api/items/${String(i)} 200 ${String(i % 97)}ms user=u${String(i % 5000)}`).join('\n') + '\n';
    expect(trigramPrefilter().admit(log, 0, log.length).lines).toEqual([]);
  });

  it('sees a trigram that a cut inside an over-long line would split, and admits that line once', () => {
    // The first window ends after `ok\n`; the second, 65,536 code units on, cuts the long line.
    const where = ({ starts, lines, newlines }: BlockHits) => ({ starts, lines, newlines });
    for (let n = 65_530; n <= 65_536; n++) {
      const text = `ok\n${'x'.repeat(n)}Error\nok\n`;
      expect(where(trigramPrefilter().admit(text, 0, text.length)), String(n)).toEqual({ starts: [3], lines: [1], newlines: 3 });
      const twice = `ok\nError ${'x'.repeat(n)}Error\nok\n`;
      expect(where(trigramPrefilter().admit(twice, 0, twice.length)), String(n)).toEqual({ starts: [3], lines: [1], newlines: 3 });
      // What each side of the cut holds is held by the line.
      const both = `ok\nTraceback ${'x'.repeat(n)}Error\nok\n`;
      const held = trigramPrefilter().admit(both, 0, both.length).held?.[0];
      expect(held?.severity('Traceback (most recent call last):'), String(n)).toBe(severityOf('Traceback (most recent call last):'));
      expect(held?.severity('build Error in step 3'), String(n)).toBe(severityOf('build Error in step 3'));
    }
  });

  it('tells which triggers each admitted line can hold, and they rate it as all the triggers do', () => {
    const fast = trigramPrefilter();
    fc.assert(
      fc.property(textArb, (text) => {
        const hits = fast.admit(text, 0, text.length);
        expect(hits.held).toHaveLength(hits.starts.length);
        hits.starts.forEach((start, k) => {
          const line = text.slice(start, text.indexOf('\n', start)).slice(0, LINE_SCAN_UNITS);
          expect(hits.held?.[k]?.severity(line), line).toBe(severityOf(line));
        });
      }),
      { numRuns: 300 },
    );
    // Fewer than all: a line that holds only an error's trigrams is not tested for a traceback's.
    const text = 'ok\nbuild Error in step 3\nok\n';
    const held = fast.admit(text, 0, text.length).held?.[0];
    expect(held?.severity('build Error in step 3')).toBe(severityOf('build Error in step 3'));
    expect(severityOf('Traceback (most recent call last):')).toBeGreaterThan(0);
    expect(held?.severity('Traceback (most recent call last):')).toBe(0);
  });

  it('misses lines when a trigger has no fingerprint, which the property above would catch', () => {
    const { '[Ee]rror|ERROR': _dropped, ...rest } = TRIGGER_FINGERPRINTS;
    const text = 'ok\nbuild Error in step 3\nok\n';
    expect(trigramPrefilter().admit(text, 0, text.length).lines).toEqual([1]);
    expect(trigramPrefilter(rest).admit(text, 0, text.length).lines).toEqual([]);
  });

  it('gives the scanner the same answer as the regular expressions, however the text is cut', () => {
    fc.assert(
      fc.property(textArb, fc.array(fc.nat(), { maxLength: 6 }), fc.integer({ min: 200, max: 20_000 }), (text, cuts, cap) => {
        const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
        const chunks = points.map((p, i) => text.slice(points[i - 1] ?? 0, p)).concat(text.slice(points.at(-1) ?? 0));
        const fast = new PreviewScanner(cap, trigramPrefilter());
        const exact = new PreviewScanner(cap, new RegexLinePrefilter());
        for (const c of chunks) {
          fast.push(c);
          exact.push(c);
        }
        expect(fast.finish()).toEqual(exact.finish());
      }),
      { numRuns: 200 },
    );
  });

  it('gives way to the regular expressions for good when it throws, with the same answer', () => {
    let calls = 0;
    const faulty: LinePrefilter = {
      passes: 2,
      exact: false,
      admit() {
        calls++;
        throw new Error('RuntimeError: unreachable');
      },
    };
    const prefilter = new FallingBackPrefilter(faulty, () => new RegexLinePrefilter());
    const text = 'ok\nbuild Error in step 3\nok\n';
    expect(prefilter.admit(text, 0, text.length)).toEqual(new RegexLinePrefilter().admit(text, 0, text.length));
    expect(prefilter.admit(text, 0, text.length).lines).toEqual([1]);
    expect(calls).toBe(1);
  });
});
