import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// docs/errors.md is the one table of error codes: every code the sources define has a row,
// and the README links to it. The codes are read from the sources as text, so the table
// cannot drift from them.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file: string): string => fs.readFileSync(path.join(REPO, file), 'utf8');

/** The quoted codes between `start` and the end of its array or union. */
function codesIn(file: string, start: string, end: string): string[] {
  const text = read(file);
  const from = text.indexOf(start);
  expect(from, `${start} in ${file}`).toBeGreaterThanOrEqual(0);
  const body = text.slice(from, text.indexOf(end, from));
  return [...body.matchAll(/'([A-Z][A-Z_]+)'/g)].map((m) => m[1] ?? '');
}

describe('the error-code table', () => {
  const table = read('docs/errors.md');
  const rows = new Set([...table.matchAll(/^\| `([A-Z_]+)` \|/gm)].map((m) => m[1]));
  const sources: readonly [string, string[]][] = [
    ['SpillError', codesIn('packages/spill-core/src/errors.ts', 'export const SPILL_ERROR_CODES', '] as const')],
    ['SpillProxyError', codesIn('packages/spill-mcp/src/errors.ts', 'export type SpillProxyErrorCode', ';')],
    ['the CLI', codesIn('packages/spill-cli/src/cli-error.ts', 'export type CliErrorCode', ';')],
    ['AuditError', codesIn('packages/spill-audit/src/errors.ts', 'export type AuditErrorCode', ';')],
  ];

  it.each(sources)('has a row for every %s code', (_label, codes) => {
    expect(codes.length).toBeGreaterThan(2);
    expect(codes.filter((code) => !rows.has(code))).toEqual([]);
  });

  it('is linked from the README', () => {
    expect(read('README.md')).toContain('(docs/errors.md)');
  });
});
