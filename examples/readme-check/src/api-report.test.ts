import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collectApi } from '../../../scripts/api-report.mjs';

// Each published package's public API is checked in (packages/<dir>/api-report.txt), made
// from its built type declarations, so an entry point never changes without its report
// changing in the same commit; and each public name has one door, the package and entry
// point that declares it.

/**
 * The one documented second door: the design names `@spillway/policy/notice` as where
 * writers import the notice protocol, which lives in `@spillway/core/notice` so that
 * readers (retention) need not depend on the policy.
 */
const SECOND_DOORS = [/^@spillway\/policy\/notice#/];

describe('public API', () => {
  const { reports, multiple } = collectApi();

  it('matches the checked-in report of every published package (run node scripts/api-report.mjs after changing an entry)', () => {
    const stale: string[] = [];
    for (const [pkg, text] of reports) {
      const file = path.join(pkg.dir, 'api-report.txt');
      const old = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (old !== text) stale.push(pkg.name);
    }
    expect(reports.size).toBeGreaterThan(10);
    expect(stale).toEqual([]);
  });

  it('gives each public name one door', () => {
    const extra = multiple
      .map((m) => ({ ...m, doors: m.doors.filter((door) => !SECOND_DOORS.some((re) => re.test(door))) }))
      .filter((m) => m.doors.length > 1)
      .map((m) => m.doors.join(' = '));
    expect(extra).toEqual([]);
  });
});
