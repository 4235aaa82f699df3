import { describe, expect, it } from 'vitest';
import { isNumberedView, isOpenCodeFileView, lineNumberOf } from './index.js';

/** Lines `from` to `to` of a file, each numbered by `number`, one per line. */
const view = (from: number, to: number, number: (n: number) => string = (n) => `${String(n).padStart(6)}\t`): string =>
  Array.from({ length: to - from + 1 }, (_, i) => `${number(from + i)}const value${String(from + i)} = compute();\n`).join('');

describe('lineNumberOf', () => {
  it("reads the number `cat -n`, `nl`, a host's Read and a web tool's page put before a line", () => {
    expect(lineNumberOf('    12\tconst x = 1;')).toBe(12);
    expect(lineNumberOf('12\t')).toBe(12);
    expect(lineNumberOf('     7\u2192# Title')).toBe(7);
    expect(lineNumberOf('L0: # Title')).toBe(0);
    expect(lineNumberOf('L31:text')).toBe(31);
    for (const line of ['', 'const x = 1;', '12 apples', '12: x', 'x\t12\t', 'l3: x', '[12] x']) expect(lineNumberOf(line), line).toBeUndefined();
  });

  it("reads OpenCode's `12: ` only when told the line is of its Read", () => {
    expect(lineNumberOf('12: const x = 1;', { openCodeRead: true })).toBe(12);
    expect(lineNumberOf('    12\tconst x = 1;', { openCodeRead: true })).toBe(12);
    expect(lineNumberOf('12: const x = 1;', { openCodeRead: false })).toBeUndefined();
    for (const line of ['12 : x', ' 12: x', '12:x', 'x: 12: y']) expect(lineNumberOf(line, { openCodeRead: true }), line).toBeUndefined();
  });
});

describe('isNumberedView', () => {
  it("takes a file shown numbered by `cat -n`, `nl -ba`, a host's Read or a page, and not the same text unnumbered", () => {
    expect(isNumberedView(view(1, 100))).toBe(true);
    expect(isNumberedView(view(40, 100, (n) => `${String(n)}\u2192`))).toBe(true);
    expect(isNumberedView(view(0, 100, (n) => `L${String(n)}: `))).toBe(true);
    expect(isNumberedView(view(1, 100, () => ''))).toBe(false);
    // `nl` leaves blank lines unnumbered and blank; a host's few lines may come first.
    let n = 0;
    expect(isNumberedView(Array.from({ length: 100 }, (_, i) => (i % 3 === 0 ? '\n' : `${String(++n).padStart(6)}\tline ${String(n)}\n`)).join(''))).toBe(true);
    expect(isNumberedView(`Chunk ID: 1a2b3c\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 9000\nOutput:\n${view(1, 100)}`)).toBe(true);
  });

  it("takes OpenCode's Read, whose lines are numbered `1: ` after its head, and not a list numbered so without that head", () => {
    const head = '<path>/work/app/src/ledger.ts</path>\n<type>file</type>\n<content>\n';
    const lines = view(1, 100, (n) => `${String(n)}: `);
    expect(isNumberedView(`${head}${lines}\n(End of file - total 100 lines)\n</content>\n`)).toBe(true);
    expect(isNumberedView(head + view(1, 8, (n) => `${String(n)}: `))).toBe(true);
    expect(isNumberedView(lines)).toBe(false);
    expect(isNumberedView(`<path>/work/app/src</path>\n<type>directory</type>\n<content>\n${lines}`)).toBe(false);
    expect(isOpenCodeFileView(`${head}${lines}`)).toBe(true);
    // A view numbered otherwise is not OpenCode's, nor is its head anywhere but at the start.
    expect(isOpenCodeFileView(view(1, 100))).toBe(false);
    expect(isOpenCodeFileView(`note\n${head}${lines}`)).toBe(false);
  });

  it('needs numbers in turn: counts and ids are not line numbers', () => {
    expect(isNumberedView(view(1, 100, (i) => `${String(300 - 2 * i).padStart(6)}\t`))).toBe(false);
    expect(isNumberedView(view(1, 100, (i) => `${String((i * 37) % 50)}\t`))).toBe(false);
  });

  it('decides on at least 8 non-blank whole lines among the first 64, within the first `units` code units', () => {
    expect(isNumberedView(view(1, 8))).toBe(true);
    expect(isNumberedView(view(1, 7))).toBe(false);
    // A last line without its line break is not looked at.
    expect(isNumberedView(view(1, 8).slice(0, -1))).toBe(false);
    expect(isNumberedView(view(1, 100), view(1, 8).length)).toBe(true);
    expect(isNumberedView(view(1, 100), view(1, 8).length - 1)).toBe(false);
    // Three in four of the first 64 lines; what follows them is not read.
    const prose = 'Prose that goes on without a number.\n'.repeat(200);
    expect(isNumberedView(view(1, 48) + prose)).toBe(true);
    expect(isNumberedView(view(1, 47) + prose)).toBe(false);
    expect(isNumberedView('prose\n'.repeat(16) + view(1, 1000))).toBe(true);
    expect(isNumberedView('prose\n'.repeat(17) + view(1, 1000))).toBe(false);
  });
});
