import { isSpillError } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_PATTERN_LENGTH, REGEX_WINDOWS, escapeRegex, planRegex } from './pattern-guard.js';

function refusal(pattern: string, ignoreCase = false): unknown {
  try {
    planRegex(pattern, ignoreCase);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('planRegex refuses', () => {
  const refused: readonly [string, string][] = [
    ['(a+)+$', 'a nested quantifier'],
    ['(a*)*b', 'a nested star'],
    ['(?:a+){2,}', 'a counted repeat of a quantified group'],
    ['(\\w+\\s?)*$', 'a quantified group with an optional inside'],
    ['(?:a?){25}a{25}', 'a counted repeat of an optional'],
    ['(.*a){20}', 'a repeated group holding .*'],
    ['(a|a)*$', 'a repeated alternation of equal branches'],
    ['(a|ab)+c', 'a repeated alternation whose branches share a first character'],
    ['(?:a|[ab])+c', 'a repeated alternation with a class branch'],
    ['(?:A|a)+c', 'branches that collide only under ignoreCase'],
    ['(a)\\1', 'a numbered back-reference'],
    ['(?<x>a)\\k<x>', 'a named back-reference'],
    ['\\01*\\01*\\01*\\01*x', 'octal escapes (one atom each, which a naive reading splits)'],
    ['(?<=a*a*a*a*)b', 'quantifiers inside a lookbehind, which runs right to left'],
    ['\\w+\\w+\\w+x', 'three overlapping quantifiers in a row'],
    ['x*x*x*y', 'three overlapping stars'],
    ['\\s*\\s*\\s*$', 'three overlapping optional runs'],
  ];
  for (const [pattern, what] of refused) {
    it(`${what}: ${pattern}`, () => {
      const error = refusal(pattern, what.includes('ignoreCase'));
      expect(isSpillError(error, 'SPILL_INVALID_PATTERN')).toBe(true);
      expect((error as Error).message).toContain('literal: true');
    });
  }

  it('an invalid regular expression, with the SyntaxError as cause', () => {
    const error = refusal('(unclosed');
    expect(isSpillError(error, 'SPILL_INVALID_PATTERN')).toBe(true);
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it(`a pattern longer than ${MAX_PATTERN_LENGTH} code units`, () => {
    expect(isSpillError(refusal('a'.repeat(MAX_PATTERN_LENGTH + 1)), 'SPILL_INVALID_PATTERN')).toBe(true);
    expect(refusal('a'.repeat(MAX_PATTERN_LENGTH))).toBeUndefined();
  });
});

describe('planRegex accepts everyday patterns', () => {
  const accepted: readonly [string, number][] = [
    // pattern, the smallest window it must get
    ['error', 65_536],
    ['\\[(ERROR|WARN)\\]', 65_536],
    ['\\bfoo\\b', 65_536],
    ['\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}', 4096],
    ['error.*timeout', 1024],
    ['function\\s+\\w+\\(', 1024],
    ['def\\s+\\w+\\s*\\(', 1024],
    ['"[^"]*"\\s*:', 1024],
    ['(\\w+)\\s*=\\s*(\\d+)', 1024],
    ['https?://\\S+', 1024],
    ['(?:ab|cd)+x', 1024],
    ['[a-z]+@[a-z]+\\.com', 1024],
    ['^\\s*at .*\\(.*:\\d+:\\d+\\)$', 128],
    ['.*foo.*bar.*', 1024],
    ['(?:foo|bar)', 65_536],
    ['a{', 65_536],
    ['x]', 65_536],
  ];
  for (const [pattern, minWindow] of accepted) {
    it(`${pattern} (window of at least ${minWindow})`, () => {
      const plan = planRegex(pattern, false);
      expect(plan.window).toBeGreaterThanOrEqual(minWindow);
      expect(REGEX_WINDOWS).toContain(plan.window);
    });
  }

  it('gives overlapping quantifiers a smaller window than disjoint ones', () => {
    expect(planRegex('\\d+\\d+x', false).window).toBeLessThan(planRegex('\\d+\\s+x', false).window);
  });
});

describe('planRegex variants', () => {
  it('keeps the meaning of the pattern in the whole-line variant', () => {
    const plan = planRegex('^a.b$', false);
    expect(plan.whole.test('axb')).toBe(true);
    expect(plan.whole.flags).toBe('g');
  });

  it('disables ^ after the first window and $ before the last', () => {
    const plan = planRegex('^start|end$', false);
    plan.first.lastIndex = 0;
    expect(plan.first.test('start')).toBe(true);
    plan.first.lastIndex = 0;
    expect(plan.first.test('end')).toBe(false);
    plan.middle.lastIndex = 0;
    expect(plan.middle.test('start end')).toBe(false);
    plan.last.lastIndex = 0;
    expect(plan.last.test('end')).toBe(true);
    plan.last.lastIndex = 0;
    expect(plan.last.test('start')).toBe(false);
  });

  it('leaves ^ and $ inside character classes alone', () => {
    const plan = planRegex('[$^]', false);
    plan.middle.lastIndex = 0;
    expect(plan.middle.test('a$')).toBe(true);
  });

  it('reads \\c without a control letter as a backslash and a c, as JavaScript does', () => {
    const plan = planRegex('\\c+', false);
    plan.whole.lastIndex = 0;
    expect(plan.whole.test('\\ccc')).toBe(true);
    plan.whole.lastIndex = 0;
    expect(plan.whole.test('\\\\')).toBe(false); // the + repeats the c, not the backslash
  });

  it('uses the i flag for ignoreCase', () => {
    expect(planRegex('abc', true).whole.flags).toBe('gi');
  });
});

describe('escapeRegex', () => {
  it('makes every syntax character match itself', () => {
    const text = '\\^$.*+?()[]{}|/-';
    expect(new RegExp(escapeRegex(text)).exec(`x${text}y`)?.[0]).toBe(text);
  });
});

/** Regex source from a small grammar: atoms, quantifiers, groups, alternation, anchors. */
const patternArbitrary: fc.Arbitrary<string> = fc.letrec<{ seq: string; term: string }>((tie) => ({
  seq: fc.array(tie('term'), { minLength: 1, maxLength: 4 }).map((terms) => terms.join('')),
  term: fc
    .tuple(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('a', 'b', '.', '\\w', '\\s', '[ab]', '[^a]', '\\d', ' ', '^', '$', '\\b', '\\c', '\\.') },
        { weight: 1, arbitrary: fc.tuple(tie('seq'), fc.option(tie('seq'), { nil: undefined })).map(([x, y]) => `(?:${x}${y === undefined ? '' : `|${y}`})`) },
        { weight: 1, arbitrary: tie('seq').map((x) => `(?=${x})`) },
      ),
      fc.constantFrom('', '', '*', '+', '?', '{1,3}', '{2,}', '*?'),
    )
    .map(([atom, q]) => (/^[$^]$|^\\b$/.test(atom) ? atom : atom + q)),
})).seq;

describe('planRegex keeps the meaning of every pattern it accepts', () => {
  it('answers like the original RegExp on lines within the window', () => {
    fc.assert(
      fc.property(
        patternArbitrary,
        fc.array(fc.string({ unit: fc.constantFrom('a', 'b', ' ', '1', '.', '\\', 'c', 'A'), maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.boolean(),
        (pattern, lines, ignoreCase) => {
          let original: RegExp;
          try {
            original = new RegExp(pattern, ignoreCase ? 'i' : '');
          } catch {
            return; // not a valid regex: planRegex refuses it (tested above)
          }
          let plan;
          try {
            plan = planRegex(pattern, ignoreCase);
          } catch (error) {
            expect(isSpillError(error, 'SPILL_INVALID_PATTERN')).toBe(true);
            return;
          }
          for (const line of lines) {
            plan.whole.lastIndex = 0;
            expect(plan.whole.test(line), `${pattern} on ${JSON.stringify(line)}`).toBe(original.test(line));
          }
        },
      ),
      { numRuns: 2000 },
    );
  });
});
