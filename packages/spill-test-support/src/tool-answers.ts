// One test body for the bound on retrieval tool answers, run by every surface that offers
// spill_read and spill_grep (the AI SDK and LangChain tools, the MCP proxy, any later one)
// against its real tools: whatever a model asks for, an answer stays within the cap in
// bytes and in matches, shows what it shows correctly, and says how to continue.
import assert from 'node:assert/strict';

/** What the model is shown for one retrieval call. */
export interface ToolAnswer {
  readonly text: string;
  readonly isError: boolean;
}

/** A surface under test: its real retrieval tools, called as a model calls them. */
export interface ToolSurface {
  /** Calls `spill_read` or `spill_grep` with these arguments; answers the text the model is shown. */
  call(tool: 'spill_read' | 'spill_grep', args: Readonly<Record<string, unknown>>): Promise<ToolAnswer>;
}

/** The limits the surface is expected to hold. */
export interface ToolAnswerLimits {
  /** Cap on one answer's text, in UTF-8 bytes. */
  readonly maxAnswerBytes: number;
  /** The most matching lines one `spill_grep` answer holds. */
  readonly maxMatches: number;
}

/** One case of the shared body. */
export interface ToolAnswerCase {
  readonly name: string;
  /** Runs the case against `surface`, over the stored {@link toolAnswerArtifact} at `locator`. */
  run(surface: ToolSurface, locator: string): Promise<void>;
}

/** Lines in {@link toolAnswerArtifact}. */
export const TOOL_ANSWER_LINES = 200_000;
/** Lines 1 to this one are longer than a grep row holds (600 bytes). */
const LONG_LINES = 1000;
/** A line far longer than any answer. */
const HUGE_LINE = 150_000;
/** The lines that hold "needle". */
const NEEDLE_LINES = [5000, 123_456];

/** Line `n` (1-based) of {@link toolAnswerArtifact}. */
export function toolAnswerLine(n: number): string {
  if (n === HUGE_LINE) return `row ${String(n)} huge ${'H'.repeat(100_000)}`;
  if (NEEDLE_LINES.includes(n)) return `row ${String(n)} short needle`;
  if (n <= LONG_LINES) return `row ${String(n)} long ${'L'.repeat(600)}`;
  return `row ${String(n)} short ${(n * 2654435761 >>> 0).toString(16)}`;
}

/** The stored artifact every case searches: 200,000 lines, about 6 MB, no final newline. */
export function toolAnswerArtifact(): string {
  const lines: string[] = [];
  for (let n = 1; n <= TOOL_ANSWER_LINES; n++) lines.push(toolAnswerLine(n));
  return lines.join('\n');
}

const bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The `N: text` rows of a grep answer, checked against the artifact's lines. */
function rowsOf(answer: ToolAnswer): { line: number; text: string }[] {
  const rows: { line: number; text: string }[] = [];
  for (const row of answer.text.split('\n')) {
    const m = /^(\d+): (.*)$/s.exec(row);
    if (m === null) continue;
    const line = Number(m[1]);
    const text = (m[2] ?? '').replace(/ \[line cut\]$/, '');
    // Every row is (a window of) the very line it names.
    assert.ok(toolAnswerLine(line).includes(text), `row ${String(line)} is not a piece of line ${String(line)}`);
    if (!m[2]?.endsWith(' [line cut]')) assert.equal(text, toolAnswerLine(line));
    rows.push({ line, text });
  }
  return rows;
}

function withinCap(answer: ToolAnswer, limits: ToolAnswerLimits): void {
  assert.equal(answer.isError, false, `unexpected error: ${answer.text.slice(0, 300)}`);
  assert.ok(bytes(answer.text) <= limits.maxAnswerBytes, `the answer holds ${String(bytes(answer.text))} bytes, over the cap of ${String(limits.maxAnswerBytes)}`);
}

function consecutive(rows: readonly { line: number }[], from: number): void {
  rows.forEach((row, i) => {
    assert.equal(row.line, from + i);
  });
}

/** The shared cases, for a surface expected to hold `limits`. */
export function toolAnswerCases(limits: ToolAnswerLimits): ToolAnswerCase[] {
  return [
    {
      name: 'a grep for every line with maxMatches 1e6 stays within the byte cap and says after which line more exist',
      async run(surface, locator) {
        const answer = await surface.call('spill_grep', { locator, pattern: 'row', maxMatches: 1_000_000 });
        withinCap(answer, limits);
        const rows = rowsOf(answer);
        assert.ok(rows.length > 0 && rows.length <= limits.maxMatches);
        consecutive(rows, 1);
        const last = rows.at(-1)?.line ?? 0;
        assert.match(answer.text, new RegExp(`more exist after line ${String(last)}\\b`));
        assert.match(answer.text, new RegExp(`from line ${String(last + 1)} with spill_read`));
      },
    },
    {
      name: 'a grep of short lines with maxMatches 1e6 holds at most the most matches one answer holds',
      async run(surface, locator) {
        const answer = await surface.call('spill_grep', { locator, pattern: 'short', maxMatches: 1_000_000 });
        withinCap(answer, limits);
        const rows = rowsOf(answer);
        const fit = Math.min(limits.maxMatches, rows.length);
        assert.ok(rows.length > 0 && rows.length <= limits.maxMatches);
        consecutive(rows.slice(0, fit), LONG_LINES + 1);
        assert.match(answer.text, new RegExp(`more exist after line ${String(rows.at(-1)?.line ?? 0)}\\b`));
      },
    },
    {
      name: 'a grep with a small maxMatches holds exactly that many and says more exist',
      async run(surface, locator) {
        const answer = await surface.call('spill_grep', { locator, pattern: 'short', maxMatches: 3 });
        withinCap(answer, limits);
        assert.deepEqual(rowsOf(answer).map((r) => r.line), [LONG_LINES + 1, LONG_LINES + 2, LONG_LINES + 3]);
        assert.match(answer.text, /more exist after line 1003\b/);
      },
    },
    {
      name: 'a grep with few matches answers every one of them and nothing else',
      async run(surface, locator) {
        const answer = await surface.call('spill_grep', { locator, pattern: 'needle', maxMatches: 1_000_000 });
        withinCap(answer, limits);
        assert.deepEqual(rowsOf(answer).map((r) => r.line), NEEDLE_LINES);
        assert.match(answer.text, /\(2 matching lines for "needle"\.\)$/);
      },
    },
    {
      name: 'a grep for a 4,000-character pattern answers within the cap, quoting only its start',
      async run(surface, locator) {
        const answer = await surface.call('spill_grep', { locator, pattern: 'q'.repeat(4000), literal: true, maxMatches: 1_000_000 });
        withinCap(answer, limits);
        assert.match(answer.text, /^\(No line matches "q+…"\.\)$/);
      },
    },
    {
      name: 'a read with limit 1e6 stays within the byte cap, and continuing where it says gives the next lines',
      async run(surface, locator) {
        const answer = await surface.call('spill_read', { locator, offset: 1, limit: 1_000_000 });
        withinCap(answer, limits);
        const next = Number(/continue with spill_read offset (\d+)/.exec(answer.text)?.[1]);
        assert.ok(next > 1, 'the answer says where to continue');
        const expected = Array.from({ length: next - 1 }, (_, i) => toolAnswerLine(i + 1)).join('\n');
        assert.ok(answer.text.startsWith(`${expected}\n(`), 'the answer is the lines before where it says to continue');
        const after = await surface.call('spill_read', { locator, offset: next, limit: 2 });
        withinCap(after, limits);
        assert.ok(after.text.startsWith(`${toolAnswerLine(next)}\n${toolAnswerLine(next + 1)}\n(`));
      },
    },
    {
      name: 'a read of a line longer than the cap shows its start, says it was cut, and where to go on',
      async run(surface, locator) {
        const answer = await surface.call('spill_read', { locator, offset: HUGE_LINE, limit: 1_000_000 });
        withinCap(answer, limits);
        assert.ok(answer.text.startsWith(`row ${String(HUGE_LINE)} huge HHHH`));
        assert.match(answer.text, /cut/);
        assert.match(answer.text, new RegExp(`offset ${String(HUGE_LINE + 1)}\\b`));
      },
    },
  ];
}
