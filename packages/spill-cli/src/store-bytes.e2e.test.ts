// `spillway --store s3://…` keeps bytes exactly and keeps the AWS SDK's warnings out of its
// output: a real s3rver on 127.0.0.1, the BUILT binary typed in a shell as a person would.
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from './test-bin.js';
import { s3rverPerFile } from './test-s3rver.js';

const BUCKET = 'cli-bytes';
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  ensureBuilt();
});
s3rverPerFile('spill-cli-s3-bytes-', BUCKET, async (made, awsEnv) => {
  dir = made;
  await mkdir(join(dir, 'bin'));
  await writeFile(join(dir, 'bin', 'spillway'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(BIN)} "$@"\n`, { mode: 0o755 });
  env = {
    PATH: `${join(dir, 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    ...awsEnv,
    NO_COLOR: '1',
    SPILLWAY_STORE: `s3://${BUCKET}/agents`,
  };
});

/** Runs `script` in sh inside the temp dir, with spillway on PATH and the store set. Async: s3rver answers in this process. */
function sh(script: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

const LOC_OF_NOTICE = `sed -n 's/.*stored at: \\(s3:[^ ]*\\)\\. Use .*/\\1/p'`;

describe('spillway on an S3 store, byte for byte', () => {
  it('run -- cat /usr/bin/ls stores the binary exactly, says it is binary, and cat gives it back (cmp)', async () => {
    const r = await sh(`
      set -e
      spillway run -- cat /usr/bin/ls > notice.txt
      grep -c 'The output is binary or not UTF-8: ' notice.txt
      LOC=$(${LOC_OF_NOTICE} notice.txt)
      spillway ls --json | grep -o "\\"locator\\":\\"$LOC\\",\\"bytes\\":[0-9]*"
      spillway cat "$LOC" > copy
      cmp copy /usr/bin/ls
      echo same`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const size = (await readFile('/usr/bin/ls')).length;
    const [binaryLine, listed, same] = r.stdout.trim().split('\n');
    expect(binaryLine).toBe('1');
    expect(listed).toMatch(new RegExp(`"bytes":${String(size)}$`));
    expect(same).toBe('same');
  });

  it('save stores binary stdin exactly, over several multipart parts too', async () => {
    // 12 MiB of every byte value: more than one 8 MiB part.
    await writeFile(join(dir, 'big.bin'), Buffer.from(Array.from({ length: 12 * 1024 * 1024 }, (_, i) => (i * 7 + (i >> 13)) & 0xff)));
    const r = await sh(`
      set -e
      for f in /usr/bin/ls big.bin; do
        LOC=$(spillway save --name "$(basename "$f")" < "$f" | ${LOC_OF_NOTICE})
        spillway cat "$LOC" | cmp - "$f"
        echo "same $(basename "$f")"
      done`);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('same ls\nsame big.bin\n');
    expect(r.code).toBe(0);
  }, 120_000);

  it('copies a 100,000-line artifact whole with cat', async () => {
    const r = await sh(`
      set -e
      seq 1 100000 > lines.txt
      LOC=$(spillway run --max-inline-bytes 1000 -- cat lines.txt | ${LOC_OF_NOTICE})
      spillway cat "$LOC" | cmp - lines.txt
      spillway read "$LOC" --raw > /dev/null 2> read.err
      cat read.err`);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^spillway: read stopped before the end of the artifact .*spillway cat s3:\/\/cli-bytes\/agents\/\S+ > FILE\n$/);
  });

  it("keeps the AWS SDK's Node version warning out of every command's output, and shows it with --verbose", async () => {
    const quiet = await sh(`
      printf 'x\\n' | spillway save > saved.txt
      LOC=$(${LOC_OF_NOTICE} saved.txt)
      spillway ls > /dev/null
      spillway read "$LOC" > /dev/null
      spillway grep "$LOC" x > /dev/null
      spillway cat "$LOC" > /dev/null
      spillway run -- echo hi
      spillway rm "$LOC"`);
    expect(quiet.code).toBe(0);
    expect(quiet.stdout).toMatch(/^hi\nremoved s3:\/\//);
    expect(quiet.stderr).toBe('');
    const major = Number(process.versions.node.split('.')[0]);
    const verbose = await sh('spillway ls --verbose > /dev/null');
    expect(verbose.code).toBe(0);
    // The SDK warns only on Node before 22; where it does, --verbose lets it through.
    if (major < 22) expect(verbose.stderr).toContain('NodeVersionSupportWarning');
    expect(verbose.stderr).toMatch(/spillway: store s3:\/\/cli-bytes\/agents/);
    // The switch that quiets the SDK does not leak into the commands run starts.
    const childEnv = await sh(`spillway run -- ${JSON.stringify(process.execPath)} -e 'console.log(process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ?? "unset")'`);
    expect(childEnv.stdout).toBe('unset\n');
  });
});
