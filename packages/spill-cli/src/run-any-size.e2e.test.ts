// `spillway run` previews an output of any size the same way: past 64 MiB, a failing log
// keeps its first error and its last failure, not a plain head and tail.
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';

const FIRST = "src/config.ts(12,7): error TS2322: Type 'string' is not assignable to type 'number'.";
const LAST = ' FAIL  src/late.test.ts > breaks at the very end';
/** About 70 MiB: the first error at line 10, the failure 1,000 lines before the end, exit 1. */
const PROGRAM = `
const first = ${JSON.stringify(FIRST)}, last = ${JSON.stringify(LAST)};
const lines = 1_100_000;
let out = [];
for (let i = 1; i <= lines; i++) {
  out.push(i === 10 ? first : i === lines - 1000 ? last : 'compiling module ' + i + ' of the workspace, cache hit, 3 ms elapsed');
  if (out.length === 10000) { require('fs').writeSync(1, out.join('\\n') + '\\n'); out = []; }
}
if (out.length) require('fs').writeSync(1, out.join('\\n') + '\\n');
process.exitCode = 1;
`;

describe('spillway run past 64 MiB', () => {
  let dir: string;
  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'spillway-any-size-'));
    await chmod(dir, 0o700);
    await mkdir(join(dir, 'root'), { mode: 0o700 });
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('shows the first error and the last failure of a 70 MiB failing log', async () => {
    const r = await spillway(['run', '--max-inline-bytes', '8192', '--', process.execPath, '-e', PROGRAM], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, SPILLWAY_ROOT: join(dir, 'root'), SPILLWAY_AUTO_GC: 'off' },
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(1);
    expect(Buffer.byteLength(r.out)).toBeLessThanOrEqual(8192 + 1);
    const stored = /stored at: (\S+?)\. /.exec(r.out)?.[1];
    expect(stored).toBeDefined();
    // The whole output was scanned: the preview names both error lines, the first in the
    // head, the last as an excerpt with its line number (a plain head and tail has neither).
    expect(r.out).toContain('2 error lines, the first at line 10');
    expect(r.out).toContain(FIRST);
    expect(r.out).toContain(`[1099000] ${LAST}`);
    expect(r.out).toMatch(/Omitted 7\d{7} bytes/);
  }, 150_000);
});
