import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANDIDATE_CAPS, SessionAnalyzer } from './analyze.js';
import { runAudit } from './audit.js';
import { distinctiveStrings } from './estimate.js';
import { ReferenceAnalyzer, referenceDistinctiveStrings } from './test-reference-analyzer.js';
import type { TranscriptEvent, TranscriptFormat } from './transcript.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), 'fixtures');
const FORMAT_OF: Record<string, TranscriptFormat> = { 'claude-code.jsonl': 'claude-code', 'codex-rollout.jsonl': 'codex', 'gemini-session.jsonl': 'gemini' };

describe('the audit of the recorded transcripts stays what it was', () => {
  for (const name of readdirSync(fixtures).filter((f) => f.endsWith('.jsonl'))) {
    const format = FORMAT_OF[name] ?? 'generic';
    it(`${name} (${format}), at a cap small enough to spill most outputs`, async () => {
      const report = await runAudit({ format, paths: [join(fixtures, name)], env: {}, home: fixtures, cap: 40 });
      const text = JSON.stringify(report, null, 1).replaceAll(fixtures, '<fixtures>');
      await expect(text).toMatchFileSnapshot(`./fixtures/pins/${name.replace(/\.jsonl$/, '')}.audit.json`);
    });
  }
});

/** Lines of the kinds outputs hold: paths, ids, versions, plain words, salient lines, other scripts. */
const row = fc.oneof(
  fc.tuple(fc.integer({ min: 0, max: 5 }), fc.integer({ min: 0, max: 20 })).map(([m, i]) => `src/mod_${String(m)}/file_${String(i)}.ts:${String(i)}: value ${String(i * 7)}`),
  fc.integer({ min: 0, max: 20 }).map((i) => `request req_${String(i).padStart(4, '0')}ab done`),
  fc.integer({ min: 0, max: 6 }).map((i) => `Error: cannot open /var/cache/key_${String(i)}x.bin (exit code 2)`),
  fc.constantFrom('ok', 'all good here', '    at run (lib/app.js:12:5)', 'FAIL test/a_1.test.ts', 'Ünïcödé_1.2 ß/ñ-7 ٣٤٥_abc', '--- ../a.b/ ---', '{"id": "obj_42", "path": "x/y.z"}'),
  fc.string({ unit: 'grapheme', maxLength: 30 }),
);
/** A log of `length` numbered lines with a few drawn rows put at drawn places (often the omitted middle). */
const output = fc
  .tuple(fc.integer({ min: 1, max: 3000 }), fc.array(fc.tuple(row, fc.double({ min: 0, max: 1, noNaN: true })), { maxLength: 6 }), fc.constantFrom('row', 'step ok', 'src/x_1.ts'))
  .map(([length, placed, filler]) => {
    const lines = Array.from({ length }, (_, i) => `${filler}-${String(i).padStart(4, '0')}`);
    for (const [text, at] of placed) lines.splice(Math.floor(at * lines.length), 0, text);
    return lines.join('\n');
  });
const input = fc.array(fc.oneof(row, fc.integer({ min: 0, max: 2999 }).map((i) => `row-${String(i).padStart(4, '0')}`)), { maxLength: 3 }).map((rows) => JSON.stringify({ command: `cat ${rows.join(' ')}` }));
/** `shown`: the share of the output the host showed in its note, when it stored the output in a file. */
type Drawn = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'pair'; readonly input: string; readonly output: string; readonly tool: 'Bash' | 'mcp'; readonly shown?: number };
const event: fc.Arbitrary<Drawn> = fc.oneof(
  { weight: 1, arbitrary: row.map((text) => ({ kind: 'text' as const, text })) },
  {
    weight: 3,
    arbitrary: fc
      .tuple(input, output, fc.constantFrom('Bash' as const, 'mcp' as const), fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }))
      .map(([i, o, tool, shown]) => ({ kind: 'pair' as const, input: i, output: o, tool, ...(shown === undefined ? {} : { shown }) })),
  },
);

/** Claude Code's note for an output it stored: a preview of its first part, cut anywhere. */
const note = (output: string, share: number): string =>
  `<persisted-output>\nOutput too large. Full output saved to: /tmp/stored.txt\n\nPreview (first 2KB):\n${output.slice(0, Math.floor(share * output.length))}\n...\n</persisted-output>`;

function feed(events: readonly Drawn[], a: { push(e: TranscriptEvent): void }): void {
  const session = 's1';
  for (const [n, e] of events.entries()) {
    if (e.kind === 'text') {
      a.push({ kind: 'text', session, text: e.text });
      continue;
    }
    const id = `c${String(n)}`;
    a.push({ kind: 'call', session, id, ...(e.tool === 'mcp' ? { tool: 'query', server: 'db' } : { tool: 'Bash' }), input: e.input });
    const stored = e.shown === undefined ? {} : { stored: { file: '/tmp/stored.txt', read: true, shown: note(e.output, e.shown) } };
    a.push({ kind: 'result', session, id, output: e.output, ...stored });
  }
}

describe('the fast measure answers as the plain one', () => {
  it('distinctive strings: the same set, in the same order, with and without a limit', () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(row, fc.string({ unit: 'binary', maxLength: 20 }), fc.string({ unit: fc.constantFrom('\ud800', '\udc00', 'a', '7', '/', '.', '-', '_', ' ', '😀', '𝟙', 'ß'), maxLength: 40 })), { maxLength: 20 }), fc.integer({ min: 1, max: 30 }), (rows, limit) => {
        const text = rows.join(' ');
        expect([...distinctiveStrings(text)]).toEqual([...referenceDistinctiveStrings(text)]);
        expect([...distinctiveStrings(text, limit)]).toEqual([...referenceDistinctiveStrings(text, limit)]);
      }),
      { numRuns: 500 },
    );
  });

  it('every call figure (sizes, tokens kept out per cap, needed later per preview and with the host\'s own, the example) equals the plain measure', () => {
    const reached = { spilled: 0, headTail: 0, spillway: 0, onlyHeadTail: 0, hostCut: 0, host: 0 };
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 8 }), fc.constantFrom([256, 1024, 4096], [...CANDIDATE_CAPS], [300]), (events, caps) => {
        const fast = new SessionAnalyzer('claude-code', caps);
        const plain = new ReferenceAnalyzer('claude-code', caps);
        feed(events, fast);
        feed(events, plain);
        expect(fast.results).toEqual(plain.results);
        for (const r of plain.results) {
          if (r.hostView === 'cut') reached.hostCut++;
          if (r.neededHost === true) reached.host++;
        }
        for (const o of plain.results.flatMap((r) => r.caps)) {
          reached.spilled++;
          if (o.neededHeadTail) reached.headTail++;
          if (o.neededSpillway) reached.spillway++;
          if (o.neededHeadTail && !o.neededSpillway) reached.onlyHeadTail++;
        }
      }),
      {
        numRuns: 60,
        // An error line in the middle that spillway's preview shows and head+tail leaves out, used later.
        examples: [
          [
            [
              { kind: 'pair', tool: 'Bash', input: '{"command":"make"}', output: [...Array.from({ length: 1500 }, (_, i) => `row-${String(i)}`), 'Error: cannot open /var/cache/key_3x.bin (exit code 2)', ...Array.from({ length: 1500 }, (_, i) => `row-${String(i + 1500)}`)].join('\n') },
              { kind: 'pair', tool: 'Bash', input: '{"command":"cat /var/cache/key_3x.bin"}', output: 'ok' },
            ],
            [256, 1024, 4096],
          ],
        ],
      },
    );
    // The sessions drawn reach every branch: spills, and omitted strings used later with either preview.
    expect(Math.min(...Object.values(reached)), JSON.stringify(reached)).toBeGreaterThan(0);
  });

  it('a session analyzed with the memory of a released one answers as the plain measure, and the released one keeps its figures', () => {
    fc.assert(
      fc.property(fc.array(event, { minLength: 1, maxLength: 6 }), fc.array(event, { minLength: 1, maxLength: 6 }), (first, second) => {
        const caps = [256, 1024, 4096];
        const a = new SessionAnalyzer('claude-code', caps);
        feed(first, a);
        const before = structuredClone(a.results);
        a.release();
        expect(() => { a.push({ kind: 'text', session: 's1', text: 'more' }); }).toThrow(TypeError);
        // Made after the release: it takes the released one's strings, cleared.
        const b = new SessionAnalyzer('claude-code', caps);
        const plain = new ReferenceAnalyzer('claude-code', caps);
        feed(second, b);
        feed(second, plain);
        expect(b.results).toEqual(plain.results);
        expect(a.results).toEqual(before);
        b.release();
      }),
      { numRuns: 40 },
    );
  });

  it('a string first met in a text of the next session is not taken for one the released session met in the same output', () => {
    const caps = [256];
    const a = new SessionAnalyzer('claude-code', caps);
    // Its first string is numbered 0, and met fresh in its first output.
    feed([{ kind: 'pair', tool: 'Bash', input: '{}', output: 'first_1x\nok' }], a);
    a.release();
    const second: Drawn[] = [
      // Numbered 0 again in the next session.
      { kind: 'text', text: 'zzz_9q' },
      // Its first fresh string is in the middle, and the string numbered 0 ends it.
      { kind: 'pair', tool: 'Bash', input: '{}', output: [...Array<string>(2000).fill('ok'), 'needle_77x', ...Array<string>(2000).fill('ok'), 'zzz_9q'].join('\n') },
      { kind: 'pair', tool: 'Bash', input: '{"command":"cat needle_77x"}', output: 'ok' },
    ];
    const b = new SessionAnalyzer('claude-code', caps);
    const plain = new ReferenceAnalyzer('claude-code', caps);
    feed(second, b);
    feed(second, plain);
    expect(plain.results[0]?.caps[0]?.neededHeadTail).toBe(true);
    expect(b.results).toEqual(plain.results);
    b.release();
  });
});
