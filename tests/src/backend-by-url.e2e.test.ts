// A third-party backend selected by URL: the example backend template, registered with
// SPILLWAY_BACKENDS, opened by `spillway` through its one backend registry — in this
// process (save, cat, grep, ls against one store) and in the real binary (`spillway run`
// and `spillway hook`, each storing a large output in it).
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { main, type CliIO } from '@spillway/cli';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const TEMPLATE = fileURLToPath(import.meta.resolve('@spillway/example-backend-template'));
const BIN = path.join(path.dirname(fileURLToPath(import.meta.resolve('@spillway/cli/package.json'))), 'bin', 'spillway.js');
const BACKENDS = `spill+template=${TEMPLATE}`;
const STORE = 'spill+template://e2e';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'spill-backend-url-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `spillway` in this process with captured output. */
async function spillway(args: readonly string[], env: Record<string, string> = {}, stdin = ''): Promise<{ code: number; out: string; err: string }> {
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (c: Buffer) => out.push(c));
  stderr.on('data', (c: Buffer) => err.push(c));
  const io: CliIO = {
    stdout,
    stderr,
    stdin: Readable.from([Buffer.from(stdin)]),
    env: { SPILLWAY_BACKENDS: BACKENDS, XDG_STATE_HOME: path.join(dir, 'state'), XDG_CACHE_HOME: path.join(dir, 'cache'), NO_COLOR: '1', ...env },
    cwd: dir,
    homedir: dir,
  };
  const code = await main(args, io);
  return { code, out: Buffer.concat(out).toString('utf8'), err: Buffer.concat(err).toString('utf8') };
}

function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state'), SPILLWAY_BACKENDS: BACKENDS, NO_COLOR: '1', ...extra };
}

describe('a third-party backend selected by URL', () => {
  it('saves, reads back, greps and lists through the registry, in one process', async () => {
    const saved = await spillway(['save', '--store', STORE, '--name', 'notes.txt', '--session', 'url', '--json'], {}, 'alpha\nbeta NEEDLE\ngamma\n');
    // The template keeps bytes exactly (bufferedSaves gives it saveBytesStream), so nothing is said.
    expect(saved.err).not.toMatch(/BYTES_UNSUPPORTED/);
    expect(saved.code).toBe(0);
    const { locator } = JSON.parse(saved.out) as { locator: string };
    expect(locator).toMatch(/^spill\+template:\/\/session-[0-9a-f]+\/[0-9a-f]{20}-notes\.txt$/);

    expect(await spillway(['cat', locator, '--store', STORE])).toMatchObject({ code: 0, out: 'alpha\nbeta NEEDLE\ngamma\n' });
    // SPILLWAY_STORE names it as well as --store does.
    expect((await spillway(['grep', locator, 'NEEDLE'], { SPILLWAY_STORE: STORE })).out).toContain('2:beta NEEDLE');
    const listed = JSON.parse((await spillway(['ls', '--json'], { SPILLWAY_STORE: STORE })).out) as { entries: { locator: string }[] };
    expect(listed.entries.map((e) => e.locator)).toEqual([locator]);
    // Another store name is another store.
    expect(JSON.parse((await spillway(['ls', '--json', '--store', 'spill+template://other'])).out)).toMatchObject({ entries: [] });
  });

  it('stores the output of `spillway run` there, in the real binary', async () => {
    const script = 'for (let i = 1; i <= 2000; i++) console.log(`row ${i}`)';
    const { stdout } = await promisify(execFile)(process.execPath, [BIN, 'run', '--store', STORE, '--max-inline-bytes', '2000', '--', process.execPath, '-e', script], {
      env: childEnv(),
      maxBuffer: 1 << 24,
    });
    expect(stdout).toMatch(/stored at: spill\+template:\/\/session-[0-9a-f]+\/[0-9a-f]{20}-\S+\. /);
    expect(stdout).toContain('row 1\n');
    expect(Buffer.byteLength(stdout)).toBeLessThan(4000);
  });

  it('stores a large tool output of a host hook there, in the real binary', async () => {
    const big = Array.from({ length: 3000 }, (_, i) => `line ${String(i)}`).join('\n');
    const input = JSON.stringify({
      session_id: 'url-hook',
      tool_name: 'Bash',
      tool_use_id: 'toolu_url',
      cwd: dir,
      tool_input: { command: 'make' },
      tool_response: { stdout: big, stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
    });
    const child = spawn(process.execPath, [BIN, 'hook', 'claude-code', '--store', STORE, '--max-inline-bytes', '4096'], { env: childEnv() });
    const out: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stdin.end(input);
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    expect(Buffer.concat(out).toString('utf8')).toMatch(/stored at: spill\+template:\/\/session-/);
  });

  it('refuses an unknown scheme with a usage error listing the known ones', async () => {
    const result = await spillway(['ls', '--store', 'nosuch://x']);
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/unknown scheme 'nosuch:'; known: file:\/\/\/dir, s3:\/\/bucket\/prefix, memory:, spill\+template: \(from SPILLWAY_BACKENDS\)/);
    expect(result.err).toContain('[USAGE]');
  });

  it('refuses a module whose backend speaks another seam version, saying what to do', async () => {
    const module = path.join(dir, 'old-backend.mjs');
    await writeFile(module, "export function createSpillwayBackend() { return { specificationVersion: 'v0', name: 'old', saveText() {}, saveTextStream() {} }; }\n");
    const result = await spillway(['ls', '--store', 'old://x', '--json'], { SPILLWAY_BACKENDS: `${BACKENDS},old=${module}` });
    const { error } = JSON.parse(result.err) as { error: { code: string; message: string } };
    expect(error.code).toBe('SPILL_INVALID_INPUT');
    expect(error.message).toMatch(/The old backend declares specificationVersion 'v0', but spillway \(the old: backend\) speaks 'v1'/);
  });

  it('refuses a registration that would load code from a relative path', async () => {
    const result = await spillway(['ls', '--store', 'rel://x'], { SPILLWAY_BACKENDS: 'rel=./backend.js' });
    expect(result.code).toBe(2);
    expect(result.err).toMatch(/give a package name, an absolute path or a file: URL/);
  });
});
