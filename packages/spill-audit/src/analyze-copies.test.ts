import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CANDIDATE_CAPS, MAX_STRINGS_PER_OUTPUT, SessionAnalyzer } from './analyze.js';
import { ReferenceAnalyzer } from './test-reference-analyzer.js';
import type { TranscriptEvent } from './transcript.js';

/** One output, then a call per string in `used`, through both analyzers; answers both results. */
function both(output: string, used: readonly string[], caps: readonly number[] = CANDIDATE_CAPS): { fast: unknown; plain: unknown } {
  const events: TranscriptEvent[] = [
    { kind: 'call', session: 's', id: 'c0', tool: 'Bash', input: '{"command":"make"}' },
    { kind: 'result', session: 's', id: 'c0', output },
    ...used.flatMap((s, i): TranscriptEvent[] => [
      { kind: 'call', session: 's', id: `u${String(i)}`, tool: 'Bash', input: JSON.stringify({ command: `cat ${s}` }) },
      { kind: 'result', session: 's', id: `u${String(i)}`, output: 'ok' },
    ]),
  ];
  const fast = new SessionAnalyzer('claude-code', caps);
  const plain = new ReferenceAnalyzer('claude-code', caps);
  for (const e of events) {
    fast.push(e);
    plain.push(e);
  }
  return { fast: fast.results, plain: plain.results };
}

describe("what a preview's copies of the output's head and tail show", () => {
  it('past the most strings kept per output, a kept string repeated in the tail counts as shown', () => {
    const lines = Array.from({ length: MAX_STRINGS_PER_OUTPUT + 5000 }, (_, i) => `line ${String(i)} key_${String(i)}x.bin`);
    // Kept strings (first met in the middle) repeated at the end, and one first met past the limit.
    lines.push('again key_12000x.bin key_15000x.bin', `late key_${String(MAX_STRINGS_PER_OUTPUT + 4000)}x.bin`);
    const output = lines.join('\n');
    const shown = both(output, ['key_12000x.bin', 'key_15000x.bin', `key_${String(MAX_STRINGS_PER_OUTPUT + 4000)}x.bin`]);
    expect(shown.fast).toEqual(shown.plain);
    expect(JSON.stringify(shown.plain)).not.toMatch(/"needed\w+":true/);
    // A kept string only the middle holds is needed.
    const omitted = both(output, ['key_13000x.bin']);
    expect(omitted.fast).toEqual(omitted.plain);
    expect(JSON.stringify(omitted.plain)).toContain('"neededSpillway":true');
  });

  it('outputs that look like the markers and headers around the copies are measured as the plain way does', () => {
    const rows = fc.constantFrom('… [the end] …', '\n… [', '[12] src/a_1.ts:3: x', 'src/mod_1/file_2.ts:3: value 7', ' …', 'key_9x.bin', '', '[Preview of a_1.ts]', 'x'.repeat(300));
    fc.assert(
      fc.property(fc.array(rows, { minLength: 200, maxLength: 1500 }), fc.boolean(), fc.array(fc.constantFrom('key_9x.bin', 'src/mod_1/file_2.ts', 'a_1.ts'), { maxLength: 2 }), (drawn, trailingBreak, used) => {
        const output = drawn.join('\n') + (trailingBreak ? '\n' : '');
        const { fast, plain } = both(output, used, [256, 1024, 4096]);
        expect(fast).toEqual(plain);
      }),
      { numRuns: 40 },
    );
  });
});
