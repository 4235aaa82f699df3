import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateLimit, FLOOD_KEEP, PreviewScanner, type Candidate } from './scan.js';
import { severityOf } from './salient.js';

/** What the scan keeps of a candidate, by line numbers. */
interface Kept {
  line: number;
  severity: number;
  count: number;
  lastLine: number;
  last: number | undefined;
  before: number | undefined;
  after: number | undefined;
  shape: string;
}

/** The shape by its definition, for the reference. */
function shapeByRegex(line: string): string {
  return line.replace(/0x[0-9a-fA-F]+|[0-9a-f]{8,}|\d+/g, '#').replace(/"[^"]*"|'[^']*'/g, '"…"');
}

/**
 * The candidates of one cap by the rule alone, a line at a time with a map of shapes of its
 * own: what the scan, which rates and shapes each line once for every cap, must keep.
 */
function reference(lines: readonly string[], cap: number): Kept[] {
  const limit = candidateLimit(cap);
  const set: Kept[] = [];
  const shapes = new Map<string, { kept: number; latest: Kept }>();
  let awaiting: Kept[] = [];
  for (const [i, text] of lines.entries()) {
    const lineNo = i + 1;
    for (const c of awaiting) c.after = lineNo;
    awaiting = [];
    const severity = severityOf(text);
    if (severity === 0) continue;
    const shape = shapeByRegex(text);
    const same = shapes.get(shape);
    if (same !== undefined && same.kept >= FLOOD_KEEP) {
      same.latest.count++;
      same.latest.lastLine = lineNo;
      same.latest.last = lineNo;
      continue;
    }
    if (set.length >= limit) {
      const worst = set[set.length - 1] as Kept;
      if (worst.severity >= severity) continue;
      set.pop();
      if (shapes.get(worst.shape)?.latest === worst) shapes.delete(worst.shape);
    }
    const candidate: Kept = { line: lineNo, severity, count: 1, lastLine: lineNo, last: undefined, before: i > 0 ? i : undefined, after: undefined, shape };
    let at = set.length;
    while (at > 0 && (set[at - 1] as Kept).severity < severity) at--;
    set.splice(at, 0, candidate);
    shapes.set(shape, { kept: (same?.kept ?? 0) + 1, latest: candidate });
    awaiting.push(candidate);
  }
  return set;
}

function kept(c: Candidate): Kept {
  return { line: c.line, severity: c.severity, count: c.count, lastLine: c.lastLine, last: c.last?.line, before: c.before?.line, after: c.after?.line, shape: c.shape };
}

/** Words without hex letters, so that each makes a shape of its own. */
const wordArb = fc.constantFrom('io', 'jit', 'kv', 'log', 'mux', 'net', 'orm', 'pool', 'qs', 'rpc', 'sql', 'tls', 'url', 'vm', 'wal', 'xml', 'yml', 'zip', 'gz', 'http');

/**
 * Shapes of each severity, more of them than a small cap keeps, with numbers, hex and quotes
 * that the shape collapses: floods form, break and form again, and higher severities push
 * lower ones (and the latest line of a flood) out of small caps, after which the shape returns.
 */
const lineArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('INFO ok', 'compiling', '') },
  { weight: 5, arbitrary: fc.tuple(wordArb, fc.nat({ max: 99 })).map(([w, n]) => `src/${w}.ts:${String(n)}: value`) },
  { weight: 3, arbitrary: fc.tuple(fc.constantFrom('error: bad "', 'Error: failed at 0x', 'FAIL case '), wordArb, fc.nat({ max: 0xffff })).map(([p, w, n]) => `${p}${w}${n.toString(16)}"`) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom('panic: ', 'FATAL '), wordArb, fc.nat({ max: 9 })).map(([p, w, n]) => `${p}${w} ${String(n)} 'x'`) },
  { weight: 1, arbitrary: fc.constantFrom('- Expected', 'AssertionError: no') },
  // One shape, several severities: a shape's line may come back above the lines that pushed it out.
  { weight: 2, arbitrary: fc.tuple(fc.constantFrom(30, 50, 60), wordArb).map(([level, w]) => `{"level":${String(level)},"msg":"${w}"}`) },
  { weight: 1, arbitrary: fc.nat({ max: 3 }).map((code) => `process exited with code ${String(code)}`) },
  { weight: 3, arbitrary: fc.tuple(wordArb, fc.nat({ max: 99 })).map(([w, n]) => `at "${w}.ts:${String(n)}:"`) },
  { weight: 1, arbitrary: fc.constant('at "error"') },
);

describe('PreviewScanner', () => {
  it('keeps, for each cap, the candidates the rule gives a cap alone, for any chunking', () => {
    fc.assert(
      fc.property(
        fc.array(lineArb, { minLength: 1, maxLength: 600 }),
        fc.array(fc.integer({ min: 0, max: 3000 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 400 }),
        (parts, caps, chunk) => {
          const text = parts.join('\n');
          // A text's lines: an empty piece after its last line break is none.
          const lines = text.split('\n');
          if (lines.at(-1) === '') lines.pop();
          const scanner = new PreviewScanner(caps);
          for (let at = 0; at < text.length; at += chunk) scanner.push(text.slice(at, at + chunk));
          const scans = scanner.finishAll();
          for (const [k, cap] of caps.entries()) expect((scans[k]?.candidates ?? []).map(kept)).toEqual(reference(lines, cap));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('counts a shape afresh when it comes back after the latest of its lines was pushed out', () => {
    const others = ['io', 'jit', 'kv', 'log', 'mux', 'net', 'orm', 'pool', 'qs', 'rpc', 'sql', 'tls', 'url'].map((w) => `src/${w}.ts:1: value`);
    // The flood's three lines fill a cap of 16 last, so the first error pushes out its latest;
    // the shape then comes back as errors, which must not be counted into that old flood.
    const lines = [...others, 'at "zip.ts:1:"', 'at "zip.ts:2:"', 'at "zip.ts:3:"', 'error: disk full', 'at "error"', 'at "error"', 'at "error"'];
    const scanner = new PreviewScanner([0, 2000]);
    scanner.push(lines.join('\n'));
    const scans = scanner.finishAll();
    expect(scans[0]?.candidates.map(kept)).toEqual(reference(lines, 0));
    expect(scans[1]?.candidates.map(kept)).toEqual(reference(lines, 2000));
    expect(scans[0]?.candidates.filter((c) => c.text === 'at "error"').map((c) => c.count)).toEqual([1, 1, 1]);
  });
});
