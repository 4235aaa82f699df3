import { describe, expect, it } from 'vitest';
import { SessionAnalyzer } from './analyze.js';
import { callReads, LineRangeTracker } from './line-ranges.js';

const lineRangesOf = (input: string) => callReads(input).ranges;
const numberedViewOf = (input: string) => callReads(input).viewed;

const numbered = (from: number, to: number, sep = '\t'): string =>
  Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i).padStart(6)}${sep}const value${String(from + i)} = compute(${String(from + i)});`).join('\n');

describe('callReads', () => {
  it('read the ranges of Read, `sed -n` and `nl -ba | sed -n`, and the file a numbered view shows', () => {
    expect(lineRangesOf(JSON.stringify({ file_path: '/app/src/x.ts', offset: 120, limit: 40 }))).toEqual([{ path: '/app/src/x.ts', first: 120, last: 159 }]);
    expect(lineRangesOf(JSON.stringify({ file_path: '/app/src/x.ts', offset: 10 }))).toEqual([{ path: '/app/src/x.ts', first: 10, last: 2009 }]);
    expect(lineRangesOf(JSON.stringify({ file_path: '/app/src/x.ts' }))).toEqual([]);
    expect(lineRangesOf(JSON.stringify({ cmd: "sed -n '230,370p' crates/service/src/lib.rs", workdir: '/w' }))).toEqual([{ path: '/w/crates/service/src/lib.rs', first: 230, last: 370 }]);
    expect(lineRangesOf(JSON.stringify({ cmd: "nl -ba libs/knowledge.py | sed -n '280,760p'" }))).toEqual([{ path: 'libs/knowledge.py', first: 280, last: 760 }]);
    expect(lineRangesOf(JSON.stringify({ command: 'sed -n 9,3p a.txt' }))).toEqual([]);
    expect(lineRangesOf('{"command":"grep -n foo src"}')).toEqual([]);
    expect(numberedViewOf(JSON.stringify({ file_path: '/app/src/x.ts' }))).toBe('/app/src/x.ts');
    expect(numberedViewOf(JSON.stringify({ cmd: "nl -ba libs/knowledge.py | sed -n '1,280p'" }))).toBe('libs/knowledge.py');
    expect(numberedViewOf(JSON.stringify({ command: 'cat -n "notes.md"' }))).toBe('notes.md');
    expect(numberedViewOf(JSON.stringify({ command: 'cat notes.md' }))).toBeUndefined();
    expect(numberedViewOf(JSON.stringify({ cmd: 'nl -ba -w4 src/app.py' }))).toBe('src/app.py');
    // Against the call's working directory, and an argument list joined.
    expect(numberedViewOf(JSON.stringify({ cmd: 'nl -ba src/app.py', workdir: '/repo/' }))).toBe('/repo/src/app.py');
    expect(lineRangesOf(JSON.stringify({ command: ['bash', '-lc', "sed -n '5,9p' a/b.txt"], workdir: '/w' }))).toEqual([{ path: '/w/a/b.txt', first: 5, last: 9 }]);
    // A file's contents to write, and a search tool's offset (results skipped), are not reads of lines.
    expect(lineRangesOf(JSON.stringify({ file_path: '/w/notes.md', content: "run sed -n '700,720p' crates/a/src/lib.rs to see it" }))).toEqual([]);
    expect(lineRangesOf(JSON.stringify({ pattern: 'fn main', path: '/w/crates/a/src/lib.rs', offset: 20 }))).toEqual([]);
  });

  it("read OpenCode's Read (`filePath`, `offset` and `limit` from line 1) and Gemini CLI's `read_file` (`start_line` to `end_line`)", () => {
    expect(lineRangesOf(JSON.stringify({ filePath: '/app/src/x.ts', offset: 300, limit: 50 }))).toEqual([{ path: '/app/src/x.ts', first: 300, last: 349 }]);
    expect(lineRangesOf(JSON.stringify({ filePath: '/app/src/x.ts', offset: 7 }))).toEqual([{ path: '/app/src/x.ts', first: 7, last: 2006 }]);
    expect(numberedViewOf(JSON.stringify({ filePath: '/app/src/x.ts' }))).toBe('/app/src/x.ts');
    expect(lineRangesOf(JSON.stringify({ file_path: 'src/x.ts', start_line: 40, end_line: 60 }))).toEqual([{ path: 'src/x.ts', first: 40, last: 60 }]);
    expect(lineRangesOf(JSON.stringify({ file_path: 'src/x.ts', start_line: 40 }))).toEqual([{ path: 'src/x.ts', first: 40, last: 2039 }]);
    expect(lineRangesOf(JSON.stringify({ file_path: 'src/x.ts', end_line: 25 }))).toEqual([{ path: 'src/x.ts', first: 1, last: 25 }]);
    expect(lineRangesOf(JSON.stringify({ file_path: 'src/x.ts', start_line: 60, end_line: 40 }))).toEqual([]);
    expect(lineRangesOf(JSON.stringify({ file_path: 'src/x.ts', start_line: 0 }))).toEqual([]);
    // OpenCode reads `offset: 0` as line 1; Claude Code's Read, and a host not named, name no line 0.
    expect(callReads(JSON.stringify({ filePath: '/a.ts', offset: 0, limit: 5 }), 'opencode').ranges).toEqual([{ path: '/a.ts', first: 1, last: 5 }]);
    expect(callReads(JSON.stringify({ filePath: '/a.ts', offset: 9, limit: 5 }), 'opencode').ranges).toEqual([{ path: '/a.ts', first: 9, last: 13 }]);
    expect(callReads(JSON.stringify({ file_path: '/a.ts', offset: 0, limit: 5 }), 'claude-code').ranges).toEqual([]);
    expect(lineRangesOf(JSON.stringify({ filePath: '/a.ts', offset: 0, limit: 5 }))).toEqual([]);
  });

  it("reads Gemini CLI's earlier `read_file` (`file_path` or `absolute_path`, `offset` from 0) one line on", () => {
    expect(callReads(JSON.stringify({ absolute_path: '/w/a.py', offset: 0, limit: 10 }), 'gemini').ranges).toEqual([{ path: '/w/a.py', first: 1, last: 10 }]);
    expect(callReads(JSON.stringify({ file_path: '/w/a.py', offset: 99, limit: 10 }), 'gemini').ranges).toEqual([{ path: '/w/a.py', first: 100, last: 109 }]);
    expect(callReads(JSON.stringify({ file_path: '/w/a.py', offset: 99 }), 'gemini').ranges).toEqual([{ path: '/w/a.py', first: 100, last: 2099 }]);
    // The same arguments of another host count from line 1; `absolute_path` is Gemini CLI's alone.
    expect(callReads(JSON.stringify({ file_path: '/w/a.py', offset: 99, limit: 10 }), 'claude-code').ranges).toEqual([{ path: '/w/a.py', first: 99, last: 108 }]);
    expect(callReads(JSON.stringify({ absolute_path: '/w/a.py', offset: 99, limit: 10 }), 'codex').ranges).toEqual([]);
  });
});

describe('LineRangeTracker', () => {
  it('names the previews that left out lines of the range that the output held, by the numbers each preview shows', () => {
    const t = new LineRangeTracker();
    const output = numbered(1, 100);
    const head = numbered(1, 20);
    const headAndExcerpt = `${head}\n… [excerpts] …\n[50] ${numbered(50, 50)}`;
    t.record('/app/x.ts', 3, output, [
      { bit: 0, text: head },
      { bit: 1, text: headAndExcerpt },
    ]);
    const seen: [number, number][] = [];
    const at = (path: string, first: number, last: number): void => {
      t.omissions({ path, first, last }, (o, bits) => seen.push([o, bits]));
    };
    at('/app/x.ts', 5, 15); // both show it
    at('/app/x.ts', 50, 50); // only the excerpt
    at('app/x.ts', 60, 70); // the same file by a relative path: both leave it out
    at('/app/x.ts', 200, 300); // past the output's lines
    at('/other/x.tsx', 60, 70); // another file
    expect(seen).toEqual([
      [3, 0b01],
      [3, 0b11],
    ]);
  });

  it('ignores an output that is not mostly numbered, and follows the newest output holding the lines', () => {
    const t = new LineRangeTracker();
    // A log with a few tab-numbered lines among others is not a numbered view.
    const log = Array.from({ length: 40 }, (_, i) => (i % 5 === 0 ? `${String(i + 1)}\tstep ${String(i + 1)}` : `INFO step ${String(i + 1)} ok`)).join('\n');
    t.record('/w/a.log', 0, log, [{ bit: 0, text: 'INFO step 1 ok\n' }]);
    const seen: [number, number][] = [];
    const at = (first: number, last: number): void => {
      t.omissions({ path: '/w/a.log', first, last }, (o, bits) => seen.push([o, bits]));
    };
    at(11, 11);
    expect(seen).toEqual([]);
    t.record('/w/a.log', 1, numbered(1, 50), [{ bit: 0, text: numbered(1, 5) }]);
    t.record('/w/a.log', 2, numbered(1, 50), [{ bit: 0, text: numbered(1, 50) }]);
    at(10, 20);
    expect(seen).toEqual([]);
    // A later part of the file (lines 20 to 30, shown only up to 22) does not hide an earlier whole view's other lines.
    t.record('/w/a.log', 3, numbered(20, 30), [{ bit: 0, text: numbered(20, 22) }]);
    at(25, 26);
    at(40, 45);
    expect(seen).toEqual([[3, 1]]);
  });

  it('follows what the policy takes for a numbered view, from the first numbered line on', () => {
    const followed = (output: string, preview: string): boolean => {
      const t = new LineRangeTracker();
      t.record('/w/doc.md', 0, output, [{ bit: 0, text: preview }]);
      let seen = false;
      t.omissions({ path: '/w/doc.md', first: 40, last: 45 }, () => (seen = true));
      return seen;
    };
    // A page's `L1: ` lines; blank lines left unnumbered and blank.
    const page = Array.from({ length: 100 }, (_, i) => `L${String(i + 1)}: line ${String(i + 1)}`).join('\n');
    expect(followed(page, page.split('\n').slice(0, 10).join('\n'))).toBe(true);
    const spaced = numbered(1, 100).replaceAll('\n', '\n\n\n');
    expect(followed(spaced, numbered(1, 10))).toBe(true);
    // After a host's header, a short view is judged on its own lines.
    expect(followed(`Chunk ID: 1a2b3c\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 90\nOutput:\n${numbered(36, 50)}`, numbered(36, 38))).toBe(true);
    // Numbers that do not run in turn, and fewer than 8 lines, are no file view.
    const counts = Array.from({ length: 100 }, (_, i) => `${String(200 - i * 2).padStart(6)}\tAuthor ${String(i)}`).join('\n');
    expect(followed(counts, '')).toBe(false);
    expect(followed(`${numbered(40, 46)}\n`, numbered(40, 41))).toBe(false);
    expect(followed(`${numbered(40, 47)}\n`, numbered(40, 41))).toBe(true);
  });

  it('matches a relative path only to an absolute one ending with it, of two parts or more', () => {
    const t = new LineRangeTracker();
    t.record('/repo/crates/a/src/lib.rs', 0, numbered(1, 100), [{ bit: 0, text: numbered(1, 5) }]);
    const seen: string[] = [];
    for (const path of ['src/lib.rs', 'lib.rs', '/repo/crates/b/src/lib.rs', 'a/src/lib.rs', './a/src/lib.rs']) t.omissions({ path, first: 50, last: 60 }, () => seen.push(path));
    expect(seen).toEqual(['src/lib.rs', 'a/src/lib.rs', './a/src/lib.rs']);
  });

  it('takes a relative path with and without a leading `./` for one file, whatever its parts', () => {
    const t = new LineRangeTracker();
    t.record('notes.md', 0, numbered(1, 100), [{ bit: 0, text: numbered(1, 5) }]);
    t.record('./todo.md', 1, numbered(1, 100), [{ bit: 0, text: numbered(1, 5) }]);
    const seen: string[] = [];
    for (const path of ['./notes.md', 'notes.md', 'todo.md', '.\\todo.md', 'other.md', '/w/notes.md']) t.omissions({ path, first: 50, last: 60 }, () => seen.push(path));
    expect(seen).toEqual(['./notes.md', 'notes.md', 'todo.md', '.\\todo.md']);
  });
});

describe('SessionAnalyzer with line ranges', () => {
  it('counts a later Read of lines that only the omitted middle of a numbered Read held as needed later', () => {
    const a = new SessionAnalyzer('claude-code', [2048, 65536 * 4]);
    const file = '/app/src/engine.ts';
    a.push({ kind: 'call', session: 's', id: 'r1', tool: 'Read', input: JSON.stringify({ file_path: file }) });
    a.push({ kind: 'result', session: 's', id: 'r1', output: numbered(1, 3000, '\u2192') });
    // The head of any preview shows line 3; the middle, line 1500.
    a.push({ kind: 'call', session: 's', id: 'r2', tool: 'Read', input: JSON.stringify({ file_path: file, offset: 3, limit: 2 }) });
    a.push({ kind: 'result', session: 's', id: 'r2', output: 'ok' });
    expect(a.results[0]?.caps.map((o) => o.neededSpillway || o.neededHeadTail)).toEqual([false]);
    a.push({ kind: 'call', session: 's', id: 'r3', tool: 'Edit', input: JSON.stringify({ file_path: file, old_string: 'x', new_string: 'y' }) });
    a.push({ kind: 'call', session: 's', id: 'r4', tool: 'Read', input: JSON.stringify({ file_path: file, offset: 1500, limit: 20 }) });
    expect(a.results[0]?.caps).toEqual([expect.objectContaining({ cap: 2048, neededHeadTail: true, neededSpillway: true, example: `${file}:1500-1519` })]);
  });

  it("counts a later Read of lines that OpenCode's numbered Read (`12: code`) held only in the omitted middle", () => {
    const file = '/app/src/engine.ts';
    const body = Array.from({ length: 3000 }, (_, i) => `${String(i + 1)}: const value${String(i + 1)} = compute(${String(i + 1)});`).join('\n');
    const view = `<path>${file}</path>\n<type>file</type>\n<content>\n${body}\n\n(End of file - total 3000 lines)\n</content>`;
    const session = (output: string) => {
      const a = new SessionAnalyzer('opencode', [4096]);
      a.push({ kind: 'call', session: 's', id: 'r1', tool: 'read', input: JSON.stringify({ filePath: file }) });
      a.push({ kind: 'result', session: 's', id: 'r1', output });
      a.push({ kind: 'call', session: 's', id: 'r2', tool: 'read', input: JSON.stringify({ filePath: file, offset: 2, limit: 3 }) });
      a.push({ kind: 'result', session: 's', id: 'r2', output: 'ok' });
      return a;
    };
    // What a Read of lines `first` to `last` answers, as OpenCode writes it.
    const read = (first: number, last: number, footer: string): string =>
      `<path>${file}</path>\n<type>file</type>\n<content>\n${Array.from({ length: last - first + 1 }, (_, i) => `${String(first + i)}: line ${String(first + i)}`).join('\n')}\n\n${footer}\n</content>`;
    const a = session(view);
    expect(a.results[0]?.caps[0]).toMatchObject({ neededHeadTail: false, neededSpillway: false });
    a.push({ kind: 'call', session: 's', id: 'r3', tool: 'read', input: JSON.stringify({ filePath: file, offset: 1500, limit: 20 }) });
    // What it read is known from its output: OpenCode may stop a Read short of its limit.
    expect(a.results[0]?.caps[0]).toMatchObject({ neededHeadTail: false, neededSpillway: false });
    a.push({ kind: 'result', session: 's', id: 'r3', output: read(1500, 1519, '(Showing lines 1500-1519 of 3000. Use offset=1520 to continue.)') });
    expect(a.results[0]?.caps[0]).toMatchObject({ neededHeadTail: true, neededSpillway: true, example: `${file}:1500-1519` });
    // The same lines without OpenCode's head are a list whose items are numbered, not a view of the file.
    const list = session(body);
    list.push({ kind: 'call', session: 's', id: 'r3', tool: 'read', input: JSON.stringify({ filePath: file, offset: 1500, limit: 20 }) });
    list.push({ kind: 'result', session: 's', id: 'r3', output: read(1500, 1519, '(Showing lines 1500-1519 of 3000. Use offset=1520 to continue.)') });
    expect(list.results[0]?.caps[0]).toMatchObject({ neededHeadTail: false, neededSpillway: false });
  });

  it("counts only the lines an OpenCode Read's output showed: it stops at 50 KB, whatever its limit", () => {
    const file = '/app/src/engine.ts';
    const numbered = (first: number, last: number): string => Array.from({ length: last - first + 1 }, (_, i) => `${String(first + i)}: const value${String(first + i)} = compute(${String(first + i)}); // padding padding padding`).join('\n');
    const wrap = (body: string, footer: string): string => `<path>${file}</path>\n<type>file</type>\n<content>\n${body}\n\n${footer}\n</content>`;
    const run = (secondOutput: string): SessionAnalyzer => {
      const a = new SessionAnalyzer('opencode', [4096]);
      // Lines 1000 to 1600 of the file, the rest cut at 50 KB; the preview at 4 KiB leaves out most of them.
      a.push({ kind: 'call', session: 's', id: 'r1', tool: 'read', input: JSON.stringify({ filePath: file, offset: 1000 }) });
      a.push({ kind: 'result', session: 's', id: 'r1', output: wrap(numbered(1000, 1600), '(Output capped at 50 KB. Showing lines 1000-1600. Use offset=1601 to continue.)') });
      // From line 1, 2,000 lines asked for.
      a.push({ kind: 'call', session: 's', id: 'r2', tool: 'read', input: JSON.stringify({ filePath: file, offset: 1 }) });
      a.push({ kind: 'result', session: 's', id: 'r2', output: secondOutput });
      return a;
    };
    // Cut at 50 KB before line 1000: none of the first output's lines was read again.
    expect(run(wrap(numbered(1, 600), '(Output capped at 50 KB. Showing lines 1-600. Use offset=601 to continue.)')).results[0]?.caps[0]).toMatchObject({ neededHeadTail: false, neededSpillway: false });
    // Reaching into them: needed.
    expect(run(wrap(numbered(1, 1200), '(Showing lines 1-1200 of 5000. Use offset=1201 to continue.)')).results[0]?.caps[0]).toMatchObject({ neededHeadTail: true, neededSpillway: true });
    // An error shows no lines.
    expect(run('Error: Offset 1 is out of range for this file (0 lines)').results[0]?.caps[0]).toMatchObject({ neededHeadTail: false, neededSpillway: false });
  });

  it('counts `sed -n` of lines a Codex `nl -ba` view left out, and not of lines it showed', () => {
    const a = new SessionAnalyzer('codex', [4096]);
    a.push({ kind: 'call', session: 's', id: 'c1', tool: 'exec_command', input: JSON.stringify({ cmd: "nl -ba src/app.py | sed -n '1,400p'" }) });
    // Codex's five lines before the output.
    a.push({ kind: 'result', session: 's', id: 'c1', output: `Chunk ID: 1a2b3c\nWall time: 0.1 seconds\nProcess exited with code 0\nOriginal token count: 9000\nOutput:\n${numbered(1, 400)}` });
    a.push({ kind: 'call', session: 's', id: 'c2', tool: 'exec_command', input: JSON.stringify({ cmd: "sed -n '395,400p' src/app.py" }) });
    expect(a.results[0]?.caps[0]?.neededHeadTail).toBe(false);
    a.push({ kind: 'call', session: 's', id: 'c3', tool: 'exec_command', input: JSON.stringify({ cmd: "sed -n '200,240p' src/app.py" }) });
    expect(a.results[0]?.caps[0]).toMatchObject({ neededHeadTail: true, neededSpillway: true, example: 'src/app.py:200-240' });
  });
});
