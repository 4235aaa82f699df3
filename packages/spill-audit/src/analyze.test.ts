import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HOST_BIT, MAX_CAPS, overHostLimit, SessionAnalyzer } from './analyze.js';

const S = 'session-1';
const CAP = 4096;

/** About 40 KB of plain rows, with `middle` put halfway. */
function log(middle: string): string {
  const rows = Array.from({ length: 1600 }, (_, i) => `row-${String(i).padStart(6, '0')} ok`);
  rows.splice(800, 0, middle);
  return rows.join('\n');
}

function run(events: (['text', string] | ['call', string, string] | ['result', string, string])[], caps: readonly number[] = [CAP]): SessionAnalyzer {
  const a = new SessionAnalyzer('claude-code', caps);
  for (const e of events) {
    if (e[0] === 'text') a.push({ kind: 'text', session: S, text: e[1] });
    else if (e[0] === 'call') a.push({ kind: 'call', session: S, id: e[1], tool: 'Bash', input: e[2] });
    else a.push({ kind: 'result', session: S, id: e[1], output: e[2] });
  }
  return a;
}

describe('needed later', () => {
  it('a string only the omitted part held, used by a later call, counts for both previews', () => {
    const a = run([
      ['call', '1', '{"command":"cat build.log"}'],
      ['result', '1', log('written to cache_key_9d8e7f')],
      ['call', '2', '{"command":"cat /var/cache/cache_key_9d8e7f"}'],
      ['result', '2', 'ok'],
    ]);
    const [first] = a.results;
    expect(first?.caps).toEqual([{ cap: CAP, tokensKeptOut: expect.any(Number) as number, neededHeadTail: true, neededSpillway: true, example: 'cache_key_9d8e7f' }]);
    expect(a.results[1]?.caps).toEqual([]);
  });

  it("an error line spillway's preview shows is needed only with head+tail", () => {
    const a = run([
      ['call', '1', '{"command":"make"}'],
      ['result', '1', log('src/deep/module_42.ts:17:3: error TS2322: bad type')],
      ['call', '2', '{"file_path":"src/deep/module_42.ts"}'],
    ]);
    expect(a.results[0]?.caps[0]).toMatchObject({ neededHeadTail: true, neededSpillway: false });
  });

  it('a string the agent had seen before the output is not counted', () => {
    const a = run([
      ['text', 'please look at cache_key_9d8e7f'],
      ['call', '1', '{"command":"cat build.log"}'],
      ['result', '1', log('written to cache_key_9d8e7f')],
      ['call', '2', '{"command":"cat cache_key_9d8e7f"}'],
    ]);
    expect(a.results[0]?.caps[0]).toMatchObject({ neededHeadTail: false, neededSpillway: false });
  });

  it('a string in the kept head is not counted', () => {
    const a = run([
      ['call', '1', 'x'],
      ['result', '1', log('filler')],
      ['call', '2', '{"pattern":"row-000001"}'],
    ]);
    expect(a.results[0]?.caps[0]).toMatchObject({ neededHeadTail: false, neededSpillway: false });
    expect(a.unanswered).toBe(1);
  });

  it('invariants: over a cap iff bytes > cap; kept out ≤ tokens; nothing needed without a later call', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), fc.uniqueArray(fc.integer({ min: 64, max: 4000 }), { minLength: 1, maxLength: 4 }), (output, caps) => {
        const sorted = [...caps].sort((x, y) => x - y);
        const a = run([['call', '1', 'x'], ['result', '1', output]], sorted);
        const [r] = a.results;
        expect(r?.caps.map((c) => c.cap)).toEqual(sorted.filter((c) => (r?.bytes ?? 0) > c));
        for (const c of r?.caps ?? []) {
          expect(c.tokensKeptOut).toBeLessThanOrEqual(r?.tokens ?? 0);
          expect(c.neededHeadTail || c.neededSpillway).toBe(false);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe('SessionAnalyzer caps', () => {
  it('refuses more caps than its mask holds, and caps that are not positive integers', () => {
    expect(() => new SessionAnalyzer('generic', Array.from({ length: 16 }, (_, i) => (i + 1) * 100))).toThrow(TypeError);
    expect(() => new SessionAnalyzer('generic', [0])).toThrow(TypeError);
    expect(() => new SessionAnalyzer('generic', Array.from({ length: 15 }, (_, i) => (i + 1) * 100))).not.toThrow();
  });
});

describe('overHostLimit', () => {
  it("knows Claude Code's Bash and MCP limits, Codex's and Gemini CLI's shell limit", () => {
    expect(overHostLimit('claude-code', 'Bash', undefined, 'x'.repeat(30_001), 30_001)).toBe(true);
    expect(overHostLimit('claude-code', 'Bash', undefined, 'é'.repeat(20_000), 40_000)).toBe(false);
    expect(overHostLimit('claude-code', 'q', 'db', '', 100_004)).toBe(true);
    expect(overHostLimit('claude-code', 'q', 'db', '', 100_000)).toBe(false);
    expect(overHostLimit('claude-code', 'Read', undefined, '', 1e6)).toBeNull();
    expect(overHostLimit('codex', 'shell', undefined, '', 10_241)).toBe(true);
    expect(overHostLimit('gemini', 'run_shell_command', undefined, 'x'.repeat(40_001), 40_001)).toBe(true);
    expect(overHostLimit('gemini', 'run_shell_command', undefined, 'x'.repeat(40_000), 40_000)).toBe(false);
    expect(overHostLimit('gemini', 'read_file', undefined, '', 1e9)).toBeNull();
    expect(overHostLimit('generic', 'shell', undefined, '', 1e9)).toBeNull();
  });
});

describe('a session past the strings it follows', () => {
  /** An output of `n` distinct ids, one a line. */
  const ids = (prefix: string, n: number): string => Array.from({ length: n }, (_, i) => `${prefix}_${String(i).padStart(5, '0')} ok`).join('\n');

  it('follows no string met after its table is full: a later use of one is not counted', () => {
    const a = new SessionAnalyzer('generic', [CAP], { maxStrings: 1000 });
    const push = (id: string, output: string, later: string): void => {
      a.push({ kind: 'call', session: S, id, tool: 'Bash', input: `run ${id}` });
      a.push({ kind: 'result', session: S, id, output });
      a.push({ kind: 'call', session: S, id: `${id}-next`, tool: 'Bash', input: later });
      a.push({ kind: 'result', session: S, id: `${id}-next`, output: 'ok' });
    };
    // 800 strings fit; the omitted middle's string is followed and its later use counted.
    push('1', ids('first', 800), 'cat first_00400');
    // 800 more do not: the table fills at the 200th, and a string from past there is not followed.
    push('2', ids('second', 800), 'cat second_00500');
    expect(a.results[0]?.caps[0]?.neededHeadTail).toBe(true);
    expect(a.results[2]?.caps[0]?.neededHeadTail).toBe(false);
  });

  it('never counts an output needed that it would not count with room for every string', () => {
    const event = fc.oneof(
      fc.record({ kind: fc.constant('result' as const), n: fc.integer({ min: 1, max: 600 }), prefix: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ kind: fc.constant('call' as const), n: fc.nat(599), prefix: fc.constantFrom('a', 'b', 'c') }),
    );
    fc.assert(
      fc.property(fc.array(event, { maxLength: 12 }), fc.integer({ min: 1, max: 1500 }), (events, maxStrings) => {
        const run = (limit: number | undefined): SessionAnalyzer => {
          const a = new SessionAnalyzer('generic', [1024, CAP], limit === undefined ? {} : { maxStrings: limit });
          events.forEach((e, k) => {
            const id = String(k);
            if (e.kind === 'call') a.push({ kind: 'call', session: S, id, tool: 'Bash', input: `cat ${e.prefix}_${String(e.n).padStart(5, '0')}` });
            else {
              a.push({ kind: 'call', session: S, id, tool: 'Bash', input: 'run' });
              a.push({ kind: 'result', session: S, id, output: ids(e.prefix, e.n) });
            }
          });
          return a;
        };
        const full = run(undefined).results;
        const bounded = run(maxStrings).results;
        expect(bounded.map((r) => r.bytes)).toEqual(full.map((r) => r.bytes));
        bounded.forEach((r, i) => { r.caps.forEach((o, j) => {
            const whole = full[i]?.caps[j];
            if (o.neededHeadTail) expect(whole?.neededHeadTail).toBe(true);
            if (o.neededSpillway) expect(whole?.neededSpillway).toBe(true);
          }); },
        );
      }),
      { numRuns: 60 },
    );
  });
});

describe('the omission bits', () => {
  it('fit a signed 32-bit mask: two per cap and one for the host, below the sign bit', () => {
    // `1 << 31` is negative and `1 << 32` is 1: a larger MAX_CAPS would make the host's bit collide with a cap's.
    expect(HOST_BIT).toBe(2 * MAX_CAPS);
    expect(HOST_BIT).toBeLessThanOrEqual(30);
  });

  it("takes a Codex or Gemini CLI output within the host's limit for unknown, not whole: their transcripts hold only what the host kept", () => {
    for (const format of ['codex', 'gemini', 'claude-code'] as const) {
      const a = new SessionAnalyzer(format, [1024]);
      const tool = format === 'gemini' ? 'run_shell_command' : format === 'codex' ? 'exec_command' : 'Bash';
      a.push({ kind: 'call', session: 's', id: 'c1', tool, input: '{}' });
      a.push({ kind: 'result', session: 's', id: 'c1', output: 'ok\n'.repeat(100) });
      expect(a.results[0]?.hostView, format).toBe(format === 'claude-code' ? 'whole' : 'unknown');
    }
  });
});
