import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { itemKind, ListScanner, nextSampledAfter, sampleLimit } from './list-scan.js';

function scan(text: string, cap = 8192, chunk = text.length): ReturnType<ListScanner['finish']> {
  const scanner = new ListScanner(cap);
  for (let i = 0; i < text.length; i += Math.max(1, chunk)) scanner.push(text.slice(i, i + Math.max(1, chunk)));
  return scanner.finish();
}

const lines = (n: number, f: (i: number) => string): string => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

describe('list detection', () => {
  it('finds the lists agents read: paths, ls -l, grep -n, git log --oneline, NDJSON, numbered, bulleted, pretty JSON', () => {
    const lists = {
      find: lines(100, (i) => `/usr/share/doc/pkg-${String(i)}/README.txt`),
      lsl: lines(100, (i) => `-rwxr-xr-x 1 root root ${String(1000 + i)} May 29  2025 tool-${String(i)}`),
      grep: lines(100, (i) => `src/file-${String(i)}.ts:${String(i)}:export function f${String(i)}() {}`),
      gitLog: lines(100, (i) => `${(0xabc0000 + i).toString(16)} fix: item ${String(i)} of the changelog`),
      ndjson: lines(100, (i) => `{"id":${String(i)},"name":"pkg-${String(i)}"}`),
      numbered: lines(100, (i) => `${String(i)}. Result title ${String(i)} https://example.org/${String(i)}`),
      bulleted: lines(100, (i) => `- package-${String(i)} 1.${String(i)}.0`),
      bullets: lines(100, (i) => `  \u2022 Result title ${String(i)}: a page about item ${String(i)} of the search`),
      prettyJson: `[\n${Array.from({ length: 40 }, (_, i) => `  {\n    "id": ${String(i)},\n    "name": "n${String(i)}"\n  }`).join(',\n')}\n]\n`,
    };
    for (const [name, text] of Object.entries(lists)) expect(scan(text), name).toBeDefined();
  });

  it('finds `name - summary` search results (apt-cache search, whatis), some of whose summaries name a failure', () => {
    const results = lines(100, (i) =>
      i % 7 === 0 ? `python3-pkg-${String(i)} - keep track of failed login attempts` : `python3-pkg-${String(i)} - library number ${String(i)} for Python 3`,
    );
    expect(scan(results)).toBeDefined();
    expect(itemKind('python3-django-axes - Keep track of failed login attempts in Django-powered sites')).toBeGreaterThanOrEqual(0);
    expect(itemKind('This sentence - with a dash - is prose, not a result')).toBe(-1);
  });

  it('takes `ls | nl` for a list, and a file numbered by `nl -ba` or `cat -n` for a document', () => {
    expect(scan(lines(100, (i) => `${String(i).padStart(6)}\tlibname-${String(i)}.so.0`))).toBeDefined();
    expect(scan(lines(100, (i) => `${String(i).padStart(6)}\t/usr/lib/pkg-${String(i)}/README.txt`))).toBeDefined();
    const markdown = lines(100, (i) => `${String(i).padStart(6)}\t${i % 5 === 0 ? '' : i % 5 === 1 ? `## Part ${String(i)}` : `Prose of part ${String(i)}, which says what it does.`}`);
    const code = lines(100, (i) => `${String(i)}\t${i % 4 === 0 ? '}' : `  const value${String(i)} = compute(${String(i)});`}`);
    expect(scan(markdown)).toBeUndefined();
    expect(scan(markdown.replaceAll('\t', '\u2192'))).toBeUndefined();
    // Numbered lines that are a list: fields after a tab (`git diff --numstat`, a table with an
    // id column), and numbers that do not run in turn (`git shortlog -sn`'s counts).
    expect(scan(lines(100, (i) => `${String((i * 37) % 50)}\t${String(i % 9)}\tsrc/file-${String(i)}.ts`))).toBeDefined();
    expect(scan(lines(100, (i) => `${String(i)}\tfixture ${String(i)}\t2026-12-0${String(1 + (i % 9))}\tready`))).toBeDefined();
    expect(scan(lines(100, (i) => `${String(300 - 2 * i).padStart(6)}\tAuthor Number ${String(i)}`))).toBeDefined();
    expect(scan(lines(100, (i) => `L${String(i)}: ${i % 3 === 0 ? '' : `A page's line ${String(i)} of prose, as a web tool opened it.`}`))).toBeUndefined();
    expect(scan(code)).toBeUndefined();
  });

  it('does not take prose, logs or a few lines for a list', () => {
    const prose = lines(100, (i) => `This is sentence number ${String(i)}, which goes on for a while; and then, it stops.`);
    const log = lines(100, (i) => `2026-12-01T10:00:00.000Z INFO worker-1 GET /api/items/${String(i)} 200`);
    const pino = lines(100, (i) => `{"level":30,"time":${String(i)},"msg":"ok"}`);
    const levels = lines(100, (i) => `info: built module ${String(i)}`);
    const few = lines(10, (i) => `/usr/share/doc/pkg-${String(i)}/README.txt`);
    for (const text of [prose, log, pino, levels, few]) expect(scan(text)).toBeUndefined();
  });

  it('keeps every stride-th line, the stride doubling so the sample spans the whole list within its limit', () => {
    const result = scan(lines(100_000, (i) => `/data/item-${String(i)}`), 2048);
    expect(result).toBeDefined();
    const { sample, stride } = result as NonNullable<typeof result>;
    expect(sample.length).toBeLessThanOrEqual(sampleLimit(2048));
    expect(sample.length).toBeGreaterThan(sampleLimit(2048) / 2);
    sample.forEach((s, k) => {
      expect(s.line).toBe(1 + k * stride);
      expect(s.text).toBe(`/data/item-${String(s.line)}`);
    });
    expect((sample.at(-1) as { line: number }).line).toBeGreaterThan(100_000 - stride);
  });

  it('tells kinds of item apart', () => {
    expect(itemKind('/usr/bin/env')).toBe(itemKind('/etc/hosts'));
    expect(itemKind('/usr/bin/env')).not.toBe(itemKind('abc1234 fix: a thing'));
    expect(itemKind('\u2022 first of the results, as a bullet')).toBe(itemKind('- second of the results, as a dash'));
    expect(itemKind("src/a.ts(1,2): error TS2322: Type 'x' is not assignable to type 'y'.")).toBe(-1);
  });

  it('answers the same for any chunking, and holds no more than its sample and one cut line', () => {
    const item = fc.oneof(
      fc.integer({ min: 0, max: 9999 }).map((n) => `/srv/files/${String(n)}/😀é.txt`),
      fc.integer({ min: 0, max: 9999 }).map((n) => `src/x.ts:${String(n)}:  call(${String(n)})`),
      fc.constantFrom('', 'some words that are not an item', 'x'.repeat(500), '\r'),
    );
    fc.assert(
      fc.property(fc.array(item, { minLength: 0, maxLength: 300 }), fc.boolean(), fc.integer({ min: 1, max: 97 }), fc.integer({ min: 0, max: 20_000 }), (items, trailing, chunk, cap) => {
        const text = items.join('\n') + (trailing ? '\n' : '');
        const whole = scan(text, cap);
        expect(scan(text, cap, chunk)).toEqual(whole);
        const scanner = new ListScanner(cap);
        scanner.push(text);
        expect(scanner.retainedUnits).toBeLessThanOrEqual((sampleLimit(cap) + 2) * 161);
      }),
      { numRuns: 200 },
    );
  });
});

describe('nextSampledAfter', () => {
  it('is the first line after n that a sample of the stride keeps', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1_000_000 }), fc.integer({ min: 0, max: 20 }), (n, power) => {
        const stride = 2 ** power;
        const next = nextSampledAfter(n, stride);
        expect(next).toBeGreaterThan(n);
        expect((next - 1) % stride).toBe(0);
        // No line between n and it is kept.
        expect(next - n).toBeLessThanOrEqual(stride);
      }),
      { numRuns: 500 },
    );
  });
});
