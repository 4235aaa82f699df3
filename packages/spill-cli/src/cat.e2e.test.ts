import { spawnSync } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from './test-bin.js';
import { privateRootPerFile } from './test-temp-dirs.js';

// `spillway cat` on the BUILT binary, typed in a shell as a person would: copy an artifact
// out whole, byte for byte, and `cmp` it with the original.

let base: string;
let root: string;
let bin: string;

beforeAll(() => {
  ensureBuilt();
});
privateRootPerFile('spillway-cli-cat-', (dirs) => {
  ({ base, root } = dirs);
});

beforeAll(async () => {
  bin = join(base, 'bin');
  await mkdir(bin);
  // `spillway` on PATH, as `pnpm link-cli` puts it there.
  await writeFile(join(bin, 'spillway'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, { mode: 0o755 });
});

/** Runs `script` in sh inside the temp dir, with spillway on PATH and the root set. */
function sh(script: string): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', script], {
    cwd: base,
    env: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: base, SPILLWAY_ROOT: root, NO_COLOR: '1' },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}


describe('spillway cat', () => {
  it('copies a binary artifact out byte for byte: run -- cat /usr/bin/ls, then cat "$LOC" > copy, cmp', async () => {
    const r = sh(`
      set -e
      out=$(spillway run -- cat /usr/bin/ls)
      printf '%s\\n' "$out" | grep -q 'The output is binary or not UTF-8'
      LOC=$(printf '%s' "$out" | sed -n 's/.*stored at: \\(.*\\)\\. Use .*/\\1/p')
      spillway cat "$LOC" > copy
      cmp copy /usr/bin/ls
      echo same`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('same\n');
    expect(r.code).toBe(0);
    expect((await readFile(join(base, 'copy'))).equals(await readFile('/usr/bin/ls'))).toBe(true);
  });

  it('copies a 100,000-line text artifact whole, where read --raw stops early and says so', () => {
    const r = sh(`
      set -e
      seq 1 100000 | sed 's/$/ some words on this line/' > lines.txt
      LOC=$(spillway save --name lines.txt --json < lines.txt | sed 's/.*"locator":"\\([^"]*\\)".*/\\1/')
      spillway cat "$LOC" > whole.txt
      cmp whole.txt lines.txt
      spillway read "$LOC" --raw --max-bytes 1000000 > short.txt 2> short.err
      wc -l < short.txt
      cat short.err
      spillway read "$LOC" --raw --json > short.json 2>/dev/null
      grep -o '"stoppedEarly":true' short.json
      grep -o '"continueWith":"[^"]*"' short.json`);
    expect(r.code).toBe(0);
    const [count, note, early, how] = r.stdout.split('\n');
    expect(Number(count?.trim())).toBe(2000);
    expect(note).toMatch(/^spillway: read stopped before the end of the artifact \(lines 1-2000 of \d+ bytes shown\); continue with --offset 2001, or copy it whole with: spillway cat \/\S+ > FILE$/);
    expect(early).toBe('"stoppedEarly":true');
    expect(how).toMatch(/continue with --offset \d+, or copy it whole with: spillway cat \//);
  });

  it('says nothing on stderr when read reaches the end', () => {
    const r = sh(`printf 'a\\nb\\n' | spillway save --json | sed 's/.*"locator":"\\([^"]*\\)".*/\\1/' > loc && spillway read "$(cat loc)" --raw`);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('a\nb\n');
    expect(r.stderr).toBe('');
  });

  it('refuses a forged locator with a clear error and its code, writing nothing', () => {
    const r = sh(`spillway cat ${JSON.stringify(join(root, 'session-0000000000000000', 'nope.txt'))} > out; echo "exit $?"; wc -c < out`);
    expect(r.stdout).toMatch(/^exit [34]\n0\n$/);
    expect(r.stderr).toMatch(/^spillway: error: .*\[SPILL_(NOT_FOUND|INVALID_LOCATOR)\]\n$/);
    const outside = sh('spillway cat /etc/passwd; echo "exit $?"');
    expect(outside.stdout).toBe('exit 4\n');
    expect(outside.stderr).toMatch(/\[SPILL_INVALID_LOCATOR\]/);
  });

  it('help: the copy example of read uses cat', () => {
    const r = sh('spillway read --help');
    expect(r.stdout).toContain('spillway cat "$LOCATOR" > copy.txt');
    expect(r.stdout).not.toMatch(/--raw --max-bytes \d+ > copy/);
  });
});
