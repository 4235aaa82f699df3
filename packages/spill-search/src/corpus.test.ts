import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

// The labelled set is data that the quality figures trust: a needle that is not in its
// output, or that only exists across a line break, would score as a miss for every system
// and hide itself in the figures. These checks read the set and the outputs only.

const CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../corpus');
const KINDS = new Set(['keyword', 'question']);
const KEYS = ['file', 'id', 'kind', 'needle', 'query'];

/** What is wrong with a labelled set, one sentence per fault; empty when nothing is. */
function labelledSetFaults(set: unknown, outputs: ReadonlyMap<string, string>): string[] {
  if (typeof set !== 'object' || set === null || !Array.isArray((set as { queries?: unknown }).queries)) return ['the set has no queries array'];
  const faults: string[] = [];
  if (typeof (set as { note?: unknown }).note !== 'string') faults.push('the set has no note');
  const seen = new Set<string>();
  for (const [i, entry] of ((set as { queries: unknown[] }).queries).entries()) {
    if (typeof entry !== 'object' || entry === null) {
      faults.push(`query ${String(i)} is not an object`);
      continue;
    }
    const q = entry as Record<string, unknown>;
    const name = typeof q['id'] === 'string' && q['id'] !== '' ? q['id'] : `query ${String(i)}`;
    if (Object.keys(q).sort().join() !== KEYS.join()) faults.push(`${name}: keys are ${Object.keys(q).sort().join()}, not ${KEYS.join()}`);
    if (typeof q['id'] !== 'string' || q['id'] === '') faults.push(`${name}: no id`);
    else if (seen.has(q['id'])) faults.push(`${name}: id used twice`);
    else seen.add(q['id']);
    if (typeof q['kind'] !== 'string' || !KINDS.has(q['kind'])) faults.push(`${name}: kind ${String(q['kind'])} is neither keyword nor question`);
    if (typeof q['query'] !== 'string' || q['query'].trim() === '') faults.push(`${name}: empty query`);
    const file = q['file'];
    const needle = q['needle'];
    const text = typeof file === 'string' ? outputs.get(file) : undefined;
    if (text === undefined) {
      faults.push(`${name}: no output named ${String(file)}`);
      continue;
    }
    if (typeof needle === 'string' && needle.includes('\n')) faults.push(`${name}: the needle spans lines`);
    else if (typeof needle !== 'string' || needle.trim() === '') faults.push(`${name}: empty needle`);
    else if (!text.split('\n').some((line) => line.includes(needle))) faults.push(`${name}: the needle is not on any line of ${String(file)}`);
  }
  return faults;
}

const outputs = new Map(readdirSync(path.join(CORPUS, 'outputs')).map((name) => [name, readFileSync(path.join(CORPUS, 'outputs', name), 'utf8')] as const));
const set = JSON.parse(readFileSync(path.join(CORPUS, 'queries.json'), 'utf8')) as { note: string; queries: Record<string, string>[] };

describe('the labelled set', () => {
  it('has no faults: unique ids, known kinds, real queries, and each needle on one line of its output', () => {
    expect(labelledSetFaults(set, outputs)).toEqual([]);
    expect(set.queries.length).toBeGreaterThan(0);
  });

  it('holds only text outputs (valid UTF-8, no NUL), since the bench repeats them as text', () => {
    for (const name of outputs.keys()) {
      const bytes = readFileSync(path.join(CORPUS, 'outputs', name));
      expect(bytes.includes(0), `${name} has a NUL byte`).toBe(false);
      expect(() => new TextDecoder('utf-8', { fatal: true }).decode(bytes), `${name} is not UTF-8`).not.toThrow();
    }
  });

  it('finds each kind of broken entry', () => {
    const good = set.queries[0];
    if (good === undefined) throw new Error('the set is empty');
    const broken = (change: Record<string, unknown>) => labelledSetFaults({ note: '', queries: [good, { ...good, id: 'x', ...change }] }, outputs);
    expect(broken({})).toEqual([]);
    expect(broken({ id: good.id })).toEqual([`${good.id}: id used twice`]);
    expect(broken({ kind: 'regex' })).toEqual(['x: kind regex is neither keyword nor question']);
    expect(broken({ query: '  ' })).toEqual(['x: empty query']);
    expect(broken({ file: 'missing.txt' })).toEqual(['x: no output named missing.txt']);
    expect(broken({ needle: '' })).toEqual(['x: empty needle']);
    expect(broken({ needle: `${good.needle}\u0000 not in any output` })).toEqual([`x: the needle is not on any line of ${good.file}`]);
    expect(broken({ extra: 1 })).toEqual(['x: keys are extra,file,id,kind,needle,query, not file,id,kind,needle,query']);
    expect(labelledSetFaults({ queries: 'none' }, outputs)).toEqual(['the set has no queries array']);
  });

  it('rejects any needle that crosses a line break of its output, and accepts any piece of one line', () => {
    const files = [...outputs.entries()].filter(([, text]) => text.includes('\n'));
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.nat({ max: 40 }), fc.nat({ max: 40 }), (f, at, before, after) => {
        const [file, text] = files[f % files.length] ?? ['', ''];
        const breaks = [...text.matchAll(/\n/g)].map((m) => m.index);
        const nl = breaks[at % breaks.length] ?? 0;
        const lineStart = text.lastIndexOf('\n', nl - 1) + 1;
        const entry = { id: 'p', kind: 'keyword', query: 'q', file };
        const across = text.slice(Math.max(0, nl - before), nl + 1 + after);
        expect(labelledSetFaults({ note: '', queries: [{ ...entry, needle: across }] }, outputs)).toEqual(['p: the needle spans lines']);
        const piece = text.slice(Math.max(lineStart, nl - 1 - before), nl);
        const faults = labelledSetFaults({ note: '', queries: [{ ...entry, needle: piece }] }, outputs);
        expect(faults).toEqual(piece.trim() === '' ? ['p: empty needle'] : []);
      }),
    );
  });
});
