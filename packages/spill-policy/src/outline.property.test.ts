import { utf8ByteLength, type SpillBackend } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSpillPolicy } from './policy.js';
import { fixedLocatorBackend } from './test-backends.js';
import { CUT_MARK, EXCERPTS_MARKER, GAP_MARKER, TAIL_MARKER } from './outline.js';
import { PreviewScanner } from './scan.js';

const RUNS = 150;
/** A backend that keeps nothing and answers one fixed locator. */
const store = (): SpillBackend => fixedLocatorBackend('spill+test://store/item');

const exec = { toolName: 'bash', callId: 'call-1', sessionId: 's1' };

/** Lines as tools print them: noise, errors, diagnostics, diffs, stack frames, long lines, astral characters. */
const lineArb = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('INFO request ok', 'compiling module', '', '  ', 'PASS src/a.test.ts', 'line of text 😀', 'été ✓ done') },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 999 }).map((n) => `INFO request ${String(n)} ok`) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      'Traceback (most recent call last):',
      'ValueError: bad value',
      '    at load (/app/src/x.js:12:5)',
      '- Expected',
      '+ Received',
      '  +     3',
      'FAIL test/x.test.ts > parses',
      'make: *** [Makefile:3: f.o] Error 1',
      'HTTP/1.1 500 Internal Server Error',
      '{"level":50,"msg":"db failed"}',
      'process exited with code 2',
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 99 }).map((n) => `f${String(n)}.c:6:29: error: ‘x${String(n)}’ undeclared`) },
  { weight: 1, arbitrary: fc.integer({ min: 300, max: 3000 }).map((n) => `error ${'x'.repeat(n)}`) },
);
/** How a viewer numbers the lines, if it does: `cat -n`, Claude Code's Read, a web tool's page. */
const numberingArb: fc.Arbitrary<(line: string, i: number) => string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant((line: string) => line) },
  { weight: 1, arbitrary: fc.nat({ max: 5000 }).map((first) => (line: string, i: number) => `${String(first + i).padStart(6)}\t${line}`) },
  { weight: 1, arbitrary: fc.nat({ max: 5000 }).map((first) => (line: string, i: number) => `${String(first + i).padStart(6)}\u2192${line}`) },
  { weight: 1, arbitrary: fc.nat({ max: 5000 }).map((first) => (line: string, i: number) => `L${String(first + i)}: ${line}`) },
);
const textArb = fc
  .tuple(fc.array(lineArb, { minLength: 1, maxLength: 400 }), fc.constantFrom('\n', '\r\n'), fc.boolean(), numberingArb)
  .map(([lines, eol, trailing, number]) => lines.map(number).join(eol) + (trailing ? eol : ''));
const capArb = fc.integer({ min: 200, max: 6000 });

async function preview(text: string, cap: number): Promise<string> {
  const out = await createSpillPolicy({ backend: store(), maxInlineBytes: cap }).applyToResult(exec, { content: [{ type: 'text', text }] });
  return (out.content[0] as { text: string }).text;
}

/** The parts of a preview with excerpts, or `undefined` for a plain head and tail. */
function parts(shown: string): { header: string; head: string; excerpts: string[]; tail: string } | undefined {
  if (!shown.startsWith('[Preview of ') || shown.startsWith('[Preview of a list ')) return undefined; // lists: list-outline.property.test.ts
  const headerEnd = shown.indexOf('\n');
  const body = shown.slice(headerEnd + 1, shown.lastIndexOf('\n\n('));
  let rest = body;
  if (rest.startsWith('Shape:\n')) {
    let i = 'Shape:\n'.length;
    while (rest.startsWith('  ', i)) i = rest.indexOf('\n', i) + 1;
    rest = rest.slice(i);
  }
  const marker = rest.indexOf(EXCERPTS_MARKER);
  if (marker >= 0) {
    const end = rest.indexOf(TAIL_MARKER, marker + EXCERPTS_MARKER.length);
    const lines = rest.slice(marker + EXCERPTS_MARKER.length, end).split('\n').slice(0, -1);
    return { header: shown.slice(0, headerEnd), head: rest.slice(0, marker), excerpts: lines, tail: rest.slice(end + TAIL_MARKER.length) };
  }
  const gap = rest.indexOf(GAP_MARKER);
  return { header: shown.slice(0, headerEnd), head: rest.slice(0, gap), excerpts: [], tail: rest.slice(gap + GAP_MARKER.length) };
}

describe('the preview with excerpts (properties)', () => {
  it('is never over the cap, and its head is a prefix and its tail a suffix of the original', async () => {
    await fc.assert(
      fc.asyncProperty(textArb, capArb, async (text, cap) => {
        fc.pre(utf8ByteLength(text) > cap);
        const shown = await preview(text, cap);
        expect(utf8ByteLength(shown)).toBeLessThanOrEqual(cap);
        const p = parts(shown);
        if (p === undefined) return;
        expect(text.startsWith(p.head)).toBe(true);
        expect(text.endsWith(p.tail)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('shows every excerpt verbatim, at the line number it claims', async () => {
    await fc.assert(
      fc.asyncProperty(textArb, capArb, async (text, cap) => {
        fc.pre(utf8ByteLength(text) > cap);
        const p = parts(await preview(text, cap));
        if (p === undefined) return;
        const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
        for (const excerpt of p.excerpts) {
          if (excerpt.startsWith('    (')) continue; // a flood's count
          const m = /^\[(\d+)\] ([\s\S]*)$/.exec(excerpt);
          expect(m).not.toBeNull();
          const [, number, body] = m as unknown as [string, string, string];
          const original = lines[Number(number) - 1] as string;
          if (body.endsWith(CUT_MARK) && body !== original) expect(original.startsWith(body.slice(0, -CUT_MARK.length))).toBe(true);
          else expect(body).toBe(original);
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('is deterministic, and stream() shows what apply() shows for any chunking', async () => {
    await fc.assert(
      fc.asyncProperty(textArb, capArb, fc.array(fc.integer({ min: 1, max: 500 }), { minLength: 1, maxLength: 20 }), async (text, cap, sizes) => {
        const whole = await preview(text, cap);
        expect(await preview(text, cap)).toBe(whole);
        const stream = createSpillPolicy({ backend: store(), maxInlineBytes: cap }).stream(exec);
        let at = 0;
        for (let i = 0; at < text.length; i++) {
          const size = sizes[i % sizes.length] as number;
          await stream.push(text.slice(at, at + size));
          at += size;
        }
        const streamed = await stream.finish();
        expect((streamed.content[0] as { text: string }).text).toBe(whole);
      }),
      { numRuns: RUNS },
    );
  });

  it('reads the text a bounded number of times over (linear), holding a bounded candidate set, for any chunking', () => {
    fc.assert(
      fc.property(textArb, capArb, fc.integer({ min: 1, max: 300 }), (text, cap, size) => {
        const scanner = new PreviewScanner(cap);
        let peak = 0;
        for (let at = 0; at < text.length; at += size) {
          scanner.push(text.slice(at, at + size));
          peak = Math.max(peak, scanner.retainedUnits);
        }
        scanner.finish();
        const lines = text.split('\n').length;
        expect(scanner.work).toBeLessThanOrEqual(6 * text.length + 2 * lines);
        // A partial line of at most 2048 units, and at most 256 candidates of four short lines each.
        expect(peak).toBeLessThanOrEqual(2048 + 256 * 4 * 400);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('the preview with excerpts (examples)', () => {
  it('shows an error from the middle of a long log, labelled with its line number, with its context', async () => {
    const lines = Array.from({ length: 3000 }, (_, i) => `INFO request ${String(i + 1)} ok`);
    lines[1499] = 'ERROR request 1500 failed: connection refused (db.ts:42)';
    const shown = await preview(lines.join('\n'), 2000);
    expect(shown.startsWith('[Preview of 3000 lines, ')).toBe(true);
    expect(shown).toContain('1 error line, the first at line 1500');
    expect(shown).toContain('[1499] INFO request 1499 ok\n[1500] ERROR request 1500 failed: connection refused (db.ts:42)\n[1501] INFO request 1501 ok\n');
  });

  it('collapses a flood into its first and last line with the count between', async () => {
    const lines = Array.from({ length: 2000 }, (_, i) => (i % 10 === 5 && i > 500 && i < 1500 ? `WARN retry ${String(i)} failed` : `INFO tick ${String(i)}`));
    const shown = await preview(lines.join('\n'), 3000);
    expect(shown).toMatch(/\[\d+\] WARN retry \d+ failed\n {4}\(\d+ more lines like it between lines \d+ and \d+\)\n/);
  });

  it('gives a JSON result its shape, showing small members whole', async () => {
    const text = JSON.stringify({ items: Array.from({ length: 2000 }, (_, i) => ({ id: i, name: `n${String(i)}` })), errors: [{ code: 'E1' }], total: 2000 }, null, 2);
    const shown = await preview(text, 2000);
    expect(shown).toContain('JSON: an object with 3 keys; "items" is an array of 2000 objects');
    expect(shown).toContain('  "errors": [{"code":"E1"}]\n');
    expect(shown).toContain('  "total": 2000\n');
  });

  it('is exactly the plain head and tail when nothing is salient, and with preview: head-tail always', async () => {
    const plain = Array.from({ length: 2000 }, (_, i) => `value ${String(i)}`).join('\n');
    const salient = await preview(plain, 1000);
    const old = await createSpillPolicy({ backend: store(), maxInlineBytes: 1000, preview: 'head-tail' }).applyToResult(exec, {
      content: [{ type: 'text', text: plain }],
    });
    expect(salient).toBe((old.content[0] as { text: string }).text);
    expect(salient).toContain('\n… [');
    expect(salient.startsWith('value 0\n')).toBe(true);
    const failing = `${plain}\nError: boom\n${plain}`;
    const forced = await createSpillPolicy({ backend: store(), maxInlineBytes: 1000, preview: 'head-tail' }).applyToResult(exec, {
      content: [{ type: 'text', text: failing }],
    });
    expect((forced.content[0] as { text: string }).text).not.toContain('Error: boom');
    expect(await preview(failing, 1000)).toContain('] Error: boom\n');
  });

  it('tells a model how to find things in a listing too short-lined for an outline', async () => {
    const listing = Array.from({ length: 3000 }, (_, i) => `./packages/pkg-${String(i % 40)}/src/file-${String(i)}.ts`).join('\n');
    const shown = await preview(listing, 2000);
    expect(shown.startsWith('./packages/pkg-0/src/file-0.ts\n')).toBe(true);
    expect(shown).toMatch(/\n… \[lines (\d+)-3000 of the list left out: grep the stored result for an item, or read it from line \1 on\] …\n/);
  });

  it('shows a file read with its line numbers (`nl -ba`, `cat -n`, a host\'s Read, a page) as its head and tail, the same text unnumbered with excerpts', async () => {
    const headTail = async (text: string, cap: number): Promise<string> => {
      const old = await createSpillPolicy({ backend: store(), maxInlineBytes: cap, preview: 'head-tail' }).applyToResult(exec, { content: [{ type: 'text', text }] });
      return (old.content[0] as { text: string }).text;
    };
    const doc = Array.from({ length: 400 }, (_, i) =>
      i % 50 === 25 ? `The settlement flow throws an Error when the wallet is missing (ADR-${String(i)}).` : i % 7 === 0 ? '' : `Section ${String(i)} of the plan keeps the ledger in USDC and records each snapshot.`,
    );
    const numbered = doc.map((line, i) => `${String(i + 1).padStart(6)}\t${line}`).join('\n');
    const shown = await preview(numbered, 2000);
    expect(shown).toBe(await headTail(numbered, 2000));
    expect(shown.startsWith(`     1\t${doc[0] ?? ''}\n`)).toBe(true);
    // Numbered by `nl`, which leaves blank lines unnumbered and blank and numbers the others in turn.
    let n = 0;
    const nl = doc.map((line) => (line === '' ? '' : `${String(++n).padStart(6)}\t${line}`)).join('\n');
    const views = {
      // A host's own lines before the file (Codex's header) do not change the view.
      framed: `Chunk ID: 1a2b3c\nWall time: 0.1 seconds\nOutput:\n${numbered}`,
      nl,
      // Claude Code's Read, in the form of its earlier versions.
      arrow: doc.map((line, i) => `${String(i + 1).padStart(6)}\u2192${line}`).join('\n'),
      // A page a web tool opened numbers its lines `L0: `, `L1: `…
      page: doc.map((line, i) => `L${String(i)}: ${line}`).join('\n'),
      // OpenCode's Read numbers its lines `1: ` after a head of its own.
      openCode: `<path>/work/plan.md</path>\n<type>file</type>\n<content>\n${doc.map((line, i) => `${String(i + 1)}: ${line}`).join('\n')}\n\n(End of file - total 400 lines)\n</content>`,
    };
    for (const [name, text] of Object.entries(views)) expect(await preview(text, 2000), name).toBe(await headTail(text, 2000));
    // Long lines: at 2 KiB the head holds a dozen of them.
    const wide = doc.map((line, i) => `${String(i + 1).padStart(6)}\t${line} ${line}`).join('\n');
    expect(await preview(wide, 2048)).toBe(await headTail(wide, 2048));
    // Without the numbers it is text like any other: its error lines are excerpted.
    expect(await preview(doc.join('\n'), 2000)).toContain(EXCERPTS_MARKER);
    // Numbered `1: ` without OpenCode's head, it is not taken for a file view.
    expect(await preview(doc.map((line, i) => `${String(i + 1)}: ${line}`).join('\n'), 2000)).not.toBe(await headTail(doc.map((line, i) => `${String(i + 1)}: ${line}`).join('\n'), 2000));
  });

  it('rejects an unknown preview style at construction', () => {
    expect(() => createSpillPolicy({ maxInlineBytes: 10, preview: 'fancy' as never })).toThrow(/preview must be 'salient'/);
  });
});
