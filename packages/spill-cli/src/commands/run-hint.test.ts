import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpillNotice } from '@spillway/policy/notice';
import { localBackendFactory } from '../context.js';
import { main } from '../main.js';
import { capture, testIO } from '../test-io.js';

// After a spill, a person at a terminal gets one stderr line with the commands to type;
// the model-facing notice on stdout stays exactly as it is.

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spillway-cli-hint-'));
  await mkdir(join(root, 'r'), { mode: 0o700 });
  await chmod(join(root, 'r'), 0o700);
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const LINES = [process.execPath, '-e', 'for (let i = 1; i <= 3000; i++) console.log(i)'];

async function run(args: string[], stderrTTY: boolean) {
  const { io: base, stdout } = testIO({ env: { SPILLWAY_ROOT: join(root, 'r') }, homedir: join(root, 'home') });
  const stderr = capture(stderrTTY);
  const code = await main(args, { ...base, stderr: stderr.stream }, { backend: localBackendFactory });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

describe('spillway run at a terminal', () => {
  it('prints one stderr line with the exact read and grep commands for the locator, and the hinted read works', async () => {
    const r = await run(['run', '--max-inline-bytes', '1000', '--', ...LINES], true);
    expect(r.code).toBe(0);
    const notice = parseSpillNotice(r.stdout.trimEnd());
    expect(notice).toBeDefined();
    const locator = notice?.locator ?? '';
    expect(r.stderr).toBe(`spillway: stored in full; see it with: spillway read ${locator} | search it with: spillway grep ${locator} PATTERN\n`);
    const read = await run(['read', locator, '--offset', '2999', '--limit', '2'], false);
    expect(read.stdout).toBe('  2999\t2999\n  3000\t3000\n');
  });

  it('prints the same stdout with or without a terminal, and no hint when stderr is not one', async () => {
    const tty = await run(['run', '--max-inline-bytes', '1000', '--', ...LINES], true);
    const plain = await run(['run', '--max-inline-bytes', '1000', '--', ...LINES], false);
    expect(plain.stderr).toBe('');
    const strip = (s: string): string => s.replace(/\/session-[0-9a-f]+\/[0-9a-f]+-/g, '/S/L-');
    expect(strip(plain.stdout)).toBe(strip(tty.stdout));
  });

  it('prints no hint when nothing spilled', async () => {
    const r = await run(['run', '--', process.execPath, '-e', 'console.log(1)'], true);
    expect(r).toMatchObject({ code: 0, stdout: '1\n', stderr: '' });
  });

  it('quotes a locator for the shell when it needs it', async () => {
    const odd = join(root, 'with space');
    await mkdir(odd, { mode: 0o700 });
    await chmod(odd, 0o700);
    const r = await run(['run', '--root', odd, '--max-inline-bytes', '1000', '--', ...LINES], true);
    const locator = parseSpillNotice(r.stdout.trimEnd())?.locator ?? '';
    expect(r.stderr).toContain(`spillway read '${locator}' |`);
  });
});
