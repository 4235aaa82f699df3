import { describe, expect, it } from 'vitest';
import { heldOutNames, loadCorpus, lostCases, scoreCase, sumScores, type CorpusCase } from './preview-corpus.js';

describe('the preview corpus', () => {
  it('holds at least 40 labelled real outputs, every needle a verbatim part of its output', async () => {
    const corpus = await loadCorpus();
    expect(corpus.length).toBeGreaterThanOrEqual(40);
    for (const c of corpus) {
      if (c.kind === 'lookup') expect(c.needles).toEqual([]);
      else expect(c.needles.length).toBeGreaterThan(0);
      for (const needle of c.needles) expect(c.text.includes(needle), `${c.name}: ${needle}`).toBe(true);
    }
  });

  it('holds out a third, chosen by name alone, the same whatever order the names come in', async () => {
    const names = (await loadCorpus()).map((c) => c.name);
    const held = heldOutNames(names);
    expect(held.size).toBe(Math.ceil(names.length / 3));
    expect([...heldOutNames([...names].reverse())].sort()).toEqual([...held].sort());
  });

  it('counts a failure output only when every needle is kept, and finds the cases lost against a baseline', () => {
    const c = (name: string, kind: CorpusCase['kind'], needles: string[]): CorpusCase => ({ name, kind, needles, text: needles.join('\n'), heldOut: false });
    const cases = [c('a', 'failure', ['x', 'y']), c('b', 'failure', ['z']), c('j', 'json', ['"k"'])];
    const newer = sumScores(cases, [scoreCase(cases[0] as CorpusCase, 'x y'), scoreCase(cases[1] as CorpusCase, ''), scoreCase(cases[2] as CorpusCase, '"k"')]);
    const older = sumScores(cases, [scoreCase(cases[0] as CorpusCase, 'x'), scoreCase(cases[1] as CorpusCase, 'z'), scoreCase(cases[2] as CorpusCase, '')]);
    expect(newer).toMatchObject({ casesKept: 1, cases: 2, needlesKept: 3, needles: 4 });
    expect(older).toMatchObject({ casesKept: 1, cases: 2, needlesKept: 2 });
    expect(lostCases(newer, older)).toEqual(['b']);
  });
});
