// `spillway --version` and `--help` are answered by the bin without loading the program;
// what they print is exactly what the program prints.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { programHelp } from './help-file.js';
import { BIN, ensureBuilt, PACKAGE_DIR } from './test-bin.js';

const SCRIPT = join(PACKAGE_DIR, 'bin', 'spillway.js');
const HELP_FILE = join(PACKAGE_DIR, 'dist', 'help.txt');
const run = (file: string, args: string[]) => spawnSync(process.execPath, [file, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });

describe('spillway --version and --help', () => {
  beforeAll(() => {
    ensureBuilt();
    // A build by tsc alone (as ensureBuilt does on a fresh checkout) writes no help file.
    if (!existsSync(HELP_FILE)) spawnSync(process.execPath, [join(PACKAGE_DIR, 'dist', 'help-file.js')]);
  });

  it('the help file is the help the program prints, so it cannot drift from the commands', async () => {
    expect(readFileSync(HELP_FILE, 'utf8')).toBe(await programHelp());
    expect(await programHelp()).toContain('Commands:');
  });

  it('prints what the program prints, for --help, -h, --version and -V', () => {
    const version = (JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')) as { version: string }).version;
    for (const args of [['--help'], ['-h'], ['--version'], ['-V']]) {
      const fast = run(SCRIPT, args);
      const full = run(BIN, args);
      expect(fast.status, args.join(' ')).toBe(0);
      expect(fast.stdout, args.join(' ')).toBe(full.stdout);
      expect(fast.stderr).toBe('');
    }
    expect(run(SCRIPT, ['--version']).stdout).toBe(`${version}\n`);
  });

  it('leaves anything else to the program: a command, an extra argument, an unknown flag', () => {
    expect(run(SCRIPT, ['ls', '--help']).stdout).toContain('Usage: spillway ls');
    expect(run(SCRIPT, ['--version', '--help']).stdout).toBe(run(BIN, ['--version', '--help']).stdout);
    const unknown = run(SCRIPT, ['--versio']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain("unknown option '--versio'");
  });
});
