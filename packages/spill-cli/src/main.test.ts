import { chmod, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpillError, spillLocator, type SpillEntry, type SpillErrorCode } from '@spillway/core';
import { HOSTS, hostFiles } from '@spillway/hosts';
import { EXIT_CODES } from './exit-codes.js';
import { localBackendFactory, type BackendFactory, type CliBackend } from './test-node-backends.js';
import { main, wantsJson } from './main.js';
import { testIO } from './test-io.js';
import { makePrivateDir, tempBasePerFile } from './test-temp-dirs.js';

// In-process runs of main() with captured I/O, on the real local backend in a private
// temporary root. The built binary is exercised separately in cli.e2e.test.ts.

let base: string;
let counter = 0;

tempBasePerFile('spillway-cli-main-', (dir) => {
  base = dir;
});

/** A fresh private root, so each test sees only its own artifacts. */
async function freshRoot(): Promise<BackendFactory> {
  counter++;
  const root = join(base, `root-${String(counter)}`);
  await makePrivateDir(root);
  return () => localBackendFactory({ path: root, source: 'option' });
}

/** Every file under `dir`, recursively. */
async function readdirDeep(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
}

/** The factory of a backend whose every operation fails with `code`. */
function failing(code: SpillErrorCode): BackendFactory {
  const fail = (): Promise<never> => Promise.reject(new SpillError(code, `Injected ${code}.`));
  const backend: CliBackend = {
    specificationVersion: 'v1',
    name: 'failing',
    saveText: fail,
    saveTextStream: fail,
    saveBytesStream: fail,
    reader: { read: fail, grep: fail },
    catalog: {
      delete: fail,
      list: () => ({
        [Symbol.asyncIterator]: () => ({ next: fail }),
      }),
    },
  };
  return () => backend;
}

async function cli(args: string[], options: { stdin?: string; env?: Record<string, string>; backend?: BackendFactory } = {}) {
  const { io, stdout, stderr } = testIO({
    ...(options.stdin === undefined ? {} : { stdin: options.stdin }),
    env: { SPILLWAY_ROOT: join(base, 'never-used'), ...options.env },
    homedir: join(base, 'home'),
  });
  const code = await main(args, io, options.backend === undefined ? {} : { backend: options.backend });
  // A captured stream hands on what was written in a later tick: let it.
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text(), bytes: stdout.bytes() };
}

/**
 * A node script printing 2 MB that is not UTF-8, in many writes, then exiting with `code`
 * (through exitCode: process.exit would drop writes still queued on the pipe).
 */
function binaryWriter(code: number): string {
  return `const b = Buffer.alloc(1000); for (let i = 0; i < b.length; i++) b[i] = (i * 7) % 256;
    let n = 0; const next = () => { if (n++ === 2000) process.exitCode = ${String(code)}; else if (process.stdout.write(b)) setImmediate(next); else process.stdout.once('drain', next); }; next();`;
}

function binaryWritten(): Buffer {
  const b = Buffer.alloc(1000);
  for (let i = 0; i < b.length; i++) b[i] = (i * 7) % 256;
  return Buffer.concat(Array.from({ length: 2000 }, () => b));
}

describe('wantsJson', () => {
  it('looks for --json only before --', () => {
    expect(wantsJson(['ls', '--json'])).toBe(true);
    expect(wantsJson(['run', '--', 'jq', '--json'])).toBe(false);
    expect(wantsJson(['run', '--json', '--', 'x'])).toBe(true);
  });
});

describe('help and usage', () => {
  it('prints help with examples for the program and every command, exiting 0', async () => {
    const top = await cli(['--help']);
    expect(top.code).toBe(0);
    for (const name of ['run', 'save', 'read', 'grep', 'ls', 'rm']) expect(top.stdout).toContain(name);
    expect(top.stdout).toContain('Exit codes');
    for (const name of ['run', 'save', 'read', 'grep', 'ls', 'rm']) {
      const r = await cli([name, '--help']);
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).toContain('Examples:');
      expect(r.stdout, name).toContain('--root');
    }
  });

  it('names every exit code of its own in the program help', async () => {
    const top = await cli(['--help']);
    const section = top.stdout.slice(top.stdout.indexOf('Exit codes:'));
    for (const [name, code] of Object.entries(EXIT_CODES)) {
      expect(section, name).toMatch(new RegExp(`\\b${String(code)}\\b`));
    }
  });

  it("shows the hooks setup writes in hook's help, and every option the hook takes", async () => {
    const help = (await cli(['hook', '--help'])).stdout;
    const env = { home: '/h', cwd: '/c', env: {}, command: { node: '/usr/bin/node', spillway: '/s/spillway.js' } };
    const written = (['claude-code', 'gemini'] as const).flatMap((id) => hostFiles(HOSTS[id], env, 1).flatMap((spec) => (spec.hook === undefined ? [] : [spec.hook.matcher])));
    expect(written).toHaveLength(2);
    expect([...help.matchAll(/"matcher": "([^"]*)"/g)].map((m) => m[1])).toEqual(written);
    for (const option of ['--max-inline-bytes <bytes>', '--root <dir>', '--store <url>']) expect(help).toContain(option);
  });

  it('hook takes --store on the program path too', async () => {
    const store = join(base, 'hook-store');
    await makePrivateDir(store);
    const output = Array.from({ length: 2000 }, (_, i) => `line ${String(i)} of a long build`).join('\n');
    const stdin = JSON.stringify({ session_id: 's', tool_name: 'Bash', tool_use_id: 't', cwd: '/', tool_input: { command: 'make' }, tool_response: { stdout: output, stderr: '', interrupted: false, isImage: false } });
    const r = await cli(['hook', 'claude-code', '--max-inline-bytes', '4096', '--store', `file://${store}`], { stdin, env: { SPILLWAY_AUTO_GC: 'off', SPILLWAY_USAGE: 'off' } });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain(`stored at: ${store}/`);
  });

  it('prints the version', async () => {
    const r = await cli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });

  it.each([
    [['frobnicate'], /unknown command/],
    [['read'], /missing required argument/],
    [['read', '/x', '--offset', '0'], /--offset.*'0'/],
    [['read', '/x', '--limit', '-3'], /--limit/],
    [['grep', '/x', 'p', '--max', '1.5'], /--max.*'1\.5'/],
    [['ls', '--bogus'], /unknown option/],
    [['rm', 'a', 'b'], /too many arguments/],
    [['run'], /missing required argument/],
    [['run', '--max-inline-bytes', 'lots', '--', 'true'], /--max-inline-bytes/],
    [['ls', '--session', ''], /^spillway: error: --session needs a non-empty id\. \[USAGE\]$/],
    [['stats', '--session', ''], /^spillway: error: --session needs a non-empty id\. \[USAGE\]$/],
  ])('exits 2 with a one-line reason for %j', async (args, reason) => {
    const r = await cli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const first = r.stderr.split('\n')[0] ?? '';
    expect(first).toMatch(/^spillway: error: /);
    expect(first).toMatch(reason);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports a usage error as one JSON document under --json', async () => {
    const r = await cli(['read', '/x', '--offset', 'zero', '--json']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    const parsed = JSON.parse(r.stderr) as { error: { code: string; message: string; exitCode: number } };
    expect(parsed.error.code).toBe('USAGE');
    expect(parsed.error.exitCode).toBe(2);
    expect(parsed.error.message).toContain('--offset');
  });
});

describe('save, read, grep, ls and rm', () => {
  it('saves stdin, then reads, greps, lists and removes it', async () => {
    const factory = await freshRoot();
    const text = Array.from({ length: 50 }, (_, i) => `line ${String(i + 1)}${i === 30 ? ' NEEDLE' : ''}`).join('\n') + '\n';

    const saved = await cli(['save', '--name', 'notes', '--json', '--session', 's1'], { stdin: text, backend: factory });
    expect(saved.code).toBe(0);
    const ref = JSON.parse(saved.stdout) as { locator: string; bytes: number; retrievalHint: string; notice: string };
    expect(Object.keys(ref).sort()).toEqual(['bytes', 'locator', 'notice', 'retrievalHint']);
    expect(ref.bytes).toBe(Buffer.byteLength(text));
    expect(ref.notice).toBe(`(Omitted ${String(ref.bytes)} bytes. Full formatted result stored at: ${ref.locator}. ${ref.retrievalHint})`);

    const read = await cli(['read', ref.locator, '--offset', '30', '--limit', '3'], { backend: factory });
    expect(read.code).toBe(0);
    expect(read.stdout).toBe('    30\tline 30\n    31\tline 31 NEEDLE\n    32\tline 32\n… more lines follow: use --offset 33 to continue (' + String(ref.bytes) + ' bytes in all).\n');

    const grep = await cli(['grep', ref.locator, 'needle', '-i'], { backend: factory });
    expect(grep).toMatchObject({ code: 0, stdout: '31:line 31 NEEDLE\n' });

    const ls = await cli(['ls', '--json'], { backend: factory });
    const listing = JSON.parse(ls.stdout) as { entries: { locator: string; bytes: number; createdAt: string; session: string }[]; count: number; totalBytes: number };
    expect(listing.count).toBe(1);
    expect(listing.totalBytes).toBe(ref.bytes);
    expect(listing.entries[0]?.locator).toBe(ref.locator);
    expect(Object.keys(listing.entries[0] ?? {}).sort()).toEqual(['bytes', 'createdAt', 'locator', 'session']);
    expect(new Date(listing.entries[0]?.createdAt ?? '').toISOString()).toBe(listing.entries[0]?.createdAt);

    const other = await cli(['ls', '--session', 'someone-else', '--json'], { backend: factory });
    expect(JSON.parse(other.stdout)).toEqual({ entries: [], count: 0, totalBytes: 0, complete: true, skipped: [] });

    const lsText = await cli(['ls'], { backend: factory });
    expect(lsText.stdout).toContain('CREATED');
    expect(lsText.stdout).toContain(ref.locator.slice(ref.locator.lastIndexOf('/') + 1));
    expect(lsText.stdout).toMatch(/1 artifact, /);
    expect((await cli(['ls', '--long'], { backend: factory })).stdout).toContain(ref.locator);

    expect(await cli(['rm', ref.locator, '--json'], { backend: factory })).toMatchObject({ code: 0, stdout: `${JSON.stringify({ locator: ref.locator, removed: true })}\n` });
    const again = await cli(['rm', ref.locator], { backend: factory });
    expect(again.code).not.toBe(0);
    expect(again.stderr).toMatch(/^spillway: error: .*\[SPILL_(NOT_FOUND|EXPIRED)\]\n$/);
    const forced = await cli(['rm', '--force', ref.locator, '--json'], { backend: factory });
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toEqual({ locator: ref.locator, removed: false });
  });

  it('read --json and --raw give the text verbatim', async () => {
    const factory = await freshRoot();
    const text = 'α\r\nβ\n\nlast line without newline';
    const saved = await cli(['save', '--json'], { stdin: text, backend: factory });
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    const raw = await cli(['read', locator, '--raw'], { backend: factory });
    expect(raw.stdout).toBe(text);
    const json = await cli(['read', locator, '--json'], { backend: factory });
    expect(JSON.parse(json.stdout)).toEqual({
      locator,
      text,
      startLine: 1,
      endLine: 4,
      truncated: false,
      hasMore: false,
      nextOffset: null,
      totalBytes: Buffer.byteLength(text),
      stoppedEarly: false,
      continueWith: null,
    });
  });

  it('grep --json has a stable shape, and -F matches text literally', async () => {
    const factory = await freshRoot();
    const saved = await cli(['save', '--json'], { stdin: 'a.b\naxb\n', backend: factory });
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    const regex = JSON.parse((await cli(['grep', locator, 'a.b', '--json'], { backend: factory })).stdout) as { matches: unknown[] };
    expect(regex.matches).toHaveLength(2);
    const literal = await cli(['grep', locator, '-F', 'a.b', '--json'], { backend: factory });
    expect(JSON.parse(literal.stdout)).toEqual({
      locator,
      pattern: 'a.b',
      matches: [{ line: 1, text: 'a.b', truncated: false }],
      limitReached: false,
      totalBytes: 8,
    });
  });

  it('says so when grep finds nothing or stops at --max', async () => {
    const factory = await freshRoot();
    const saved = await cli(['save', '--json'], { stdin: 'x\nx\nx\n', backend: factory });
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    expect(await cli(['grep', locator, 'y'], { backend: factory })).toMatchObject({ code: 0, stdout: '… no lines match.\n', stderr: '' });
    const none = await cli(['grep', locator, 'y', '--json'], { backend: factory });
    expect(none.code).toBe(0);
    expect(JSON.parse(none.stdout)).toMatchObject({ matches: [], limitReached: false });
    // The choice is stated where a user or a model looks for it.
    expect((await cli(['grep', '--help'])).stdout).toMatch(/No match is not a failure[^]*exits 0/);
    const limited = await cli(['grep', locator, 'x', '--max', '2'], { backend: factory });
    expect(limited.stdout).toBe('1:x\n2:x\n… stopped after 2 matches: use --max with a larger number, or a narrower pattern.\n');
  });

  it('turns a bad pattern into a one-line usage error naming the code', async () => {
    const factory = await freshRoot();
    const saved = await cli(['save', '--json'], { stdin: 'x\n', backend: factory });
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    const r = await cli(['grep', locator, '(unclosed'], { backend: factory });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^spillway: error: .*\[SPILL_INVALID_PATTERN\]\n$/);
  });

  it('gives command-line advice, not library options, for a bad pattern and a missing root', async () => {
    const factory = await freshRoot();
    const saved = await cli(['save', '--json'], { stdin: 'x\n', backend: factory });
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    const pattern = await cli(['grep', locator, 'x('], { backend: factory });
    expect(pattern.code).toBe(2);
    expect(pattern.stderr).toMatch(/^spillway: error: .*use -F to search for the text as is\. \[SPILL_INVALID_PATTERN\]\n$/);
    expect(pattern.stderr).not.toMatch(/literal: true|pass literal/);
    const missing = join(base, `missing-${String(++counter)}`);
    // run says so once it stores the output elsewhere (an output that fits stores nothing and says nothing).
    for (const args of [['ls', '--root', missing], ['run', '--root', missing, '--max-inline-bytes', '10', '--', 'seq', '1', '100']]) {
      const r = await cli(args, { backend: (resolved) => localBackendFactory(resolved) });
      expect(r.stderr, args[0]).toContain(`create it with \`mkdir -m 700 ${missing}\``);
      expect(r.stderr, args[0]).toContain('[SPILL_UNSAFE_ROOT]');
      expect(r.stderr, args[0]).not.toContain('createRoot');
    }
  });

  it('answers a forged locator with its own exit code, and shows a stack only under --debug', async () => {
    const factory = await freshRoot();
    const plain = await cli(['read', '/etc/passwd'], { backend: factory });
    expect(plain.code).toBe(4);
    expect(plain.stderr.trim().split('\n')).toHaveLength(1);
    expect(plain.stderr).not.toMatch(/\n\s+at /);
    const debug = await cli(['read', '/etc/passwd', '--debug'], { backend: factory });
    expect(debug.code).toBe(plain.code);
    expect(debug.stderr).toMatch(/\n\s+at /);
  });

  it('prints errors as JSON under --json', async () => {
    const factory = await freshRoot();
    const r = await cli(['read', 'nope', '--json'], { backend: factory });
    const parsed = JSON.parse(r.stderr) as { error: { code: string; message: string; exitCode: number } };
    expect(parsed.error.code).toMatch(/^SPILL_(INVALID_LOCATOR|NOT_FOUND)$/);
    expect(parsed.error.exitCode).toBe(r.code);
    expect(r.stdout).toBe('');
  });

  it('escapes control characters of a hostile locator in the error line', async () => {
    const factory = await freshRoot();
    const r = await cli(['read', 'x\u001b]0;pwned\u0007\nsecond line'], { backend: factory });
    expect(r.code).not.toBe(0);
    expect(r.stderr).not.toContain('\u001b');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
  });

  it('colours the error prefix only when asked', async () => {
    const factory = await freshRoot();
    const forced = await cli(['read', 'nope'], { backend: factory, env: { FORCE_COLOR: '1' } });
    expect(forced.stderr).toContain('\u001b[31m');
    const none = await cli(['read', 'nope'], { backend: factory, env: { FORCE_COLOR: '1', NO_COLOR: '1' } });
    expect(none.stderr).toContain('\u001b[31m'); // FORCE_COLOR wins, as in Node
    const off = await cli(['read', 'nope'], { backend: factory, env: { NO_COLOR: '1' } });
    expect(off.stderr).not.toContain('\u001b[');
  });
});

describe('run', () => {
  const node = process.execPath;

  it('prints output within the cap byte for byte and exits with the child\'s code', async () => {
    const factory = await freshRoot();
    const r = await cli(['run', '--', node, '-e', 'process.stdout.write("héllo\\nno newline"); process.exitCode = 3'], { backend: factory });
    expect(r.stdout).toBe('héllo\nno newline');
    expect(r.code).toBe(3);
  });

  it('prints a preview and a notice within the cap when the output is larger', async () => {
    const factory = await freshRoot();
    const r = await cli(['run', '--max-inline-bytes', '2000', '--name', 'big', '--', node, '-e', 'for (let i = 0; i < 5000; i++) console.log("row " + i)'], {
      backend: factory,
    });
    expect(r.code).toBe(0);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(2001); // plus the newline after the notice
    expect(r.stdout.startsWith('row 0\n')).toBe(true);
    const locator = /stored at: (.*?)\. /.exec(r.stdout)?.[1];
    expect(locator).toBeDefined();
    const back = await cli(['read', locator ?? '', '--raw', '--max-bytes', '1000000', '--limit', '10000'], { backend: factory });
    expect(back.stdout).toBe(Array.from({ length: 5000 }, (_, i) => `row ${String(i)}\n`).join(''));
  });

  it('describes the run under --json', async () => {
    const factory = await freshRoot();
    const small = await cli(['run', '--json', '--', node, '-e', 'console.log("hi"); process.exit(4)'], { backend: factory });
    expect(small.code).toBe(4);
    expect(JSON.parse(small.stdout)).toEqual({
      text: 'hi\n',
      spilled: false,
      locator: null,
      omittedBytes: null,
      exitCode: 4,
      signal: null,
      isError: true,
      storeError: null,
    });
    const big = await cli(['run', '--json', '--max-inline-bytes', '1000', '--', node, '-e', 'console.log("z".repeat(100000))'], { backend: factory });
    const parsed = JSON.parse(big.stdout) as { text: string; spilled: boolean; locator: string; omittedBytes: number; storeError: unknown };
    expect(parsed.spilled).toBe(true);
    expect(parsed.storeError).toBeNull();
    expect(parsed.text).toContain(parsed.locator);
    expect(parsed.text).toContain(`(Omitted ${String(parsed.omittedBytes)} bytes.`);
  });

  it('exits 127 with a clear message for a missing command', async () => {
    const factory = await freshRoot();
    const r = await cli(['run', '--', 'spillway-no-such-command'], { backend: factory });
    expect(r.code).toBe(127);
    expect(r.stderr).toMatch(/^spillway: error: command not found: spillway-no-such-command\./);
  });

  it('keeps the output inline and warns when the backend cannot take it', async () => {
    const factory = failing('SPILL_NO_SPACE');
    const r = await cli(['run', '--max-inline-bytes', '500', '--', node, '-e', 'process.stdout.write("q".repeat(800))'], { backend: factory });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('q'.repeat(800));
    expect(r.stderr).toMatch(/^spillway: warning: the output \(800 bytes\) could not be spilled .*SPILL_NO_SPACE/);
    const json = await cli(['run', '--json', '--max-inline-bytes', '500', '--', node, '-e', 'process.stdout.write("q".repeat(800))'], { backend: factory });
    expect(JSON.parse(json.stdout)).toMatchObject({ text: 'q'.repeat(800), spilled: false, isError: false, storeError: { code: 'SPILL_NO_SPACE', message: expect.stringContaining('Injected SPILL_NO_SPACE.') as unknown } });
  });

  it('stores in the fallback root, and says so, when the root is unusable', async () => {
    const open = join(base, 'open-root');
    await mkdir(open, { recursive: true });
    await chmod(open, 0o777);
    const r = await cli(['run', '--max-inline-bytes', '1000', '--', node, '-e', 'process.stdout.write("w".repeat(5000)); process.exit(9)'], {
      env: { SPILLWAY_ROOT: open, XDG_STATE_HOME: join(base, 'fallback-state') },
    });
    expect(r.code).toBe(9);
    expect(r.stdout).toContain(`stored at: ${join(base, 'fallback-state', 'spillway')}`);
    expect(r.stderr).toMatch(/^spillway: warning: .*\[SPILL_UNSAFE_ROOT\]: the output is stored in the fallback root .*fallback-state\/spillway instead\.\n/);
  });

  it('streams the output through, with a warning, when neither the root nor a fallback root can be used', async () => {
    const open = join(base, 'open-root-2');
    await mkdir(open, { recursive: true });
    await chmod(open, 0o777);
    await writeFile(join(base, 'state-file'), '');
    const r = await cli(['run', '--max-inline-bytes', '100', '--', node, '-e', 'process.stdout.write("w".repeat(5000)); process.exit(9)'], {
      env: { SPILLWAY_ROOT: open, XDG_STATE_HOME: join(base, 'state-file'), TMPDIR: join(base, 'state-file') },
    });
    expect(r.code).toBe(9);
    expect(r.stdout).toBe('w'.repeat(5000));
    // One warning: the root's reason, then each fallback root's.
    expect(r.stderr).toMatch(/^spillway: warning: .*\[SPILL_UNSAFE_ROOT\]; the fallback root \S*state-file\/spillway was refused too: .*\[SPILL_STORAGE_FAILED\]; the fallback root \S*state-file\/spillway-\w+ was refused too: .*\[SPILL_STORAGE_FAILED\]: the output is printed in full, without spilling\.\n$/);
  });

  it('passes the output through byte for byte when the file sink cannot be opened (injected)', async () => {
    const refusing: BackendFactory = (root) => {
      const real = localBackendFactory(root);
      const fail = (): Promise<never> => Promise.reject(new SpillError('SPILL_STORAGE_FAILED', 'Injected EROFS.'));
      return { ...real, fileSink: { open: fail } };
    };
    const r = await cli(['run', '--', node, '-e', binaryWriter(6)], { backend: refusing });
    expect(r.code).toBe(6);
    expect(r.bytes.length).toBe(binaryWritten().length);
    expect(r.bytes.equals(binaryWritten())).toBe(true);
    // The fallback root's backend refuses too (the same factory): nothing can store it, and
    // one warning says so, never that the output was stored there.
    expect(r.stderr).toMatch(/^spillway: warning: Injected EROFS\. \[SPILL_STORAGE_FAILED\]; the fallback root \S+ was refused too: Injected EROFS\. \[SPILL_STORAGE_FAILED\]: the output is printed in full, without spilling\.\n$/);
  });

  it('prints the whole output byte for byte, with the command\'s exit code, when the store fails midway (injected ENOSPC)', async () => {
    const root = join(base, 'fills-up');
    await makePrivateDir(root);
    const fillsUp: BackendFactory = () => {
      const real = localBackendFactory({ path: root, source: 'option' });
      return {
        ...real,
        fileSink: {
          async open(input, options) {
            const sink = await real.fileSink!.open(input, options); // eslint-disable-line @typescript-eslint/no-non-null-assertion
            let writes = 0;
            return {
              ...sink,
              fd: sink.fd,
              freeBytes: () => Promise.resolve(0), // too little room for the direct route
              write: (bytes, position) => (++writes > 5 ? Promise.reject(new SpillError('SPILL_NO_SPACE', 'Injected ENOSPC.')) : sink.write(bytes, position)),
            };
          },
        },
      };
    };
    const r = await cli(['run', '--', node, '-e', binaryWriter(4)], { backend: fillsUp });
    expect(r.code).toBe(4);
    expect(r.bytes.length).toBe(binaryWritten().length);
    expect(r.bytes.equals(binaryWritten())).toBe(true);
    expect(r.stderr).toMatch(/Injected ENOSPC\..*\[SPILL_NO_SPACE\]: the output could not be stored under .*, so it is printed in full\./);
    expect(await readdirDeep(root)).toEqual([]);
  });

  it('--json: the whole output in the document, and why it was not stored, when publishing fails (injected)', async () => {
    const root = join(base, 'refuses-publish');
    await makePrivateDir(root);
    const refusing: BackendFactory = () => {
      const real = localBackendFactory({ path: root, source: 'option' });
      return {
        ...real,
        fileSink: {
          async open(input, options) {
            const sink = await real.fileSink!.open(input, options); // eslint-disable-line @typescript-eslint/no-non-null-assertion
            return { ...sink, fd: sink.fd, publish: () => Promise.reject(new SpillError('SPILL_NO_SPACE', 'Injected ENOSPC at publish.')) };
          },
        },
      };
    };
    const r = await cli(['run', '--json', '--max-inline-bytes', '1000', '--', node, '-e', 'process.stdout.write("p".repeat(50000)); process.exit(5)'], { backend: refusing });
    expect(r.code).toBe(5);
    expect(JSON.parse(r.stdout)).toMatchObject({ text: 'p'.repeat(50_000), spilled: false, locator: null, exitCode: 5, storeError: { code: 'SPILL_NO_SPACE', message: expect.stringContaining('Injected ENOSPC at publish.') as unknown } });
    expect(r.stderr).toMatch(/could not be stored under .* and is printed in full: Injected ENOSPC at publish\..*\[SPILL_NO_SPACE\]/);
  });

  it('warns when the cap cannot hold even a notice, and prints the output in full', async () => {
    const factory = await freshRoot();
    const r = await cli(['run', '--max-inline-bytes', '10', '--', node, '-e', 'process.stdout.write("n".repeat(300))'], { backend: factory });
    expect(r.stdout).toBe('n'.repeat(300));
    expect(r.stderr).toMatch(/--max-inline-bytes 10 cannot hold the spill notice/);
  });

  it('prints at most the cap, or the whole output with a warning, for every cap around the notice\'s size', async () => {
    const factory = await freshRoot();
    // Long enough that the notice fits under it whatever the length of the root's path.
    const output = Array.from({ length: 1000 }, (_, i) => `${String(i + 1)}\n`).join('');
    // From "no notice fits" through "only the real notice fits" to "preview and notice".
    let kept = 0;
    let spilled = 0;
    for (const cap of [0, 60, 100, 150, 200, 250, 300, 400, 600, 1000, 3892, 3893]) {
      const r = await cli(['run', '--max-inline-bytes', String(cap), '--', 'seq', '1', '1000'], { backend: factory });
      expect(r.code, `cap ${String(cap)}`).toBe(0);
      if (r.stdout === output) {
        if (cap < Buffer.byteLength(output)) {
          kept++;
          expect(r.stderr, `cap ${String(cap)}`).toMatch(/cannot hold the spill notice, so the output \(3893 bytes\) is printed in full\.\n$/);
        }
        continue;
      }
      spilled++;
      // Spilled: the result plus the one newline run adds after a notice.
      expect(Buffer.byteLength(r.stdout) - 1, `cap ${String(cap)}`).toBeLessThanOrEqual(cap);
      expect(r.stdout).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: .*\)\n$/);
    }
    expect(kept).toBeGreaterThan(0);
    expect(spilled).toBeGreaterThan(0);
    // Each kept original had its stored copy deleted again: only the spilled runs remain.
    const listed = await cli(['ls', '--json'], { backend: factory });
    expect((JSON.parse(listed.stdout) as { count: number }).count).toBe(spilled);
  });

  it('without a file sink, names the stored copy on stderr when the notice does not fit and the output cannot be read back', async () => {
    const factory = await freshRoot();
    const unreadable: BackendFactory = (root) => {
      // A backend that stores text only takes the policy route, which reads the artifact back.
      // eslint-disable-next-line @typescript-eslint/unbound-method -- dropped, never called
      const { fileSink: _sink, saveBytesStream: _bytes, ...real } = factory(root);
      const fail = (): Promise<never> => Promise.reject(new SpillError('SPILL_STORAGE_FAILED', 'Injected read failure.'));
      return { ...real, reader: { read: fail, grep: fail } };
    };
    const r = await cli(['run', '--max-inline-bytes', '150', '--', 'seq', '1', '100'], { backend: unreadable });
    expect(r.code).toBe(0);
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(151);
    expect(r.stderr).toMatch(/cannot hold the spill notice and the output \(292 bytes\) could not be read back, so only its head and tail are shown; the full output is stored at \/.*Injected read failure/);
  });

  it('leaves a --json after the command name to the command, for errors too', async () => {
    const factory = await freshRoot();
    const r = await cli(['run', 'spillway-no-such-command', '--json'], { backend: factory });
    expect(r.code).toBe(127);
    expect(r.stderr).toMatch(/^spillway: error: command not found/);
  });

  it('passes options after the command name to the command itself', async () => {
    const factory = await freshRoot();
    const r = await cli(['run', node, '-e', 'console.log(process.argv.slice(1).join(","))', '--', '--json', '-x'], { backend: factory });
    expect(r.stdout).toBe('--json,-x\n');
  });
});

/** A backend whose listing yields `good` entries and then fails with `code`. */
function failingPartWay(good: number, code: SpillErrorCode): BackendFactory {
  const base = failing(code)({ path: '/unused', source: 'option' });
  async function* entries(): AsyncGenerator<SpillEntry> {
    for (let i = 0; i < good; i++) {
      await Promise.resolve();
      yield { locator: spillLocator(`/r/session-a/${String(i)}-x.txt`), bytes: 10 + i, createdAt: new Date(0), session: 'session-a' };
    }
    throw new SpillError(code, `Injected ${code} after ${String(good)} entries.`);
  }
  const backend: CliBackend = { ...base, catalog: { ...base.catalog, list: () => entries() } };
  return () => backend;
}

describe('--json prints one complete document on stdout, or nothing', () => {
  it('leaves stdout empty when ls --json meets an unsafe root', async () => {
    const root = join(base, `shared-${String(++counter)}`);
    await mkdir(root);
    await chmod(root, 0o777);
    const r = await cli(['ls', '--root', root, '--json'], { backend: (resolved) => localBackendFactory(resolved) });
    expect(r.code).toBe(6);
    expect(r.stdout).toBe('');
    expect((JSON.parse(r.stderr) as { error: { code: string } }).error.code).toBe('SPILL_UNSAFE_ROOT');
  });

  it('leaves stdout empty when the listing fails before its first entry', async () => {
    const r = await cli(['ls', '--json'], { backend: failingPartWay(0, 'SPILL_STORAGE_FAILED') });
    expect(r.code).toBe(7);
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'SPILL_STORAGE_FAILED', exitCode: 7 } });
  });

  it('closes the ls document, marked incomplete, when the listing fails part way', async () => {
    const r = await cli(['ls', '--json'], { backend: failingPartWay(2, 'SPILL_STORAGE_FAILED') });
    expect(r.code).toBe(7);
    expect(r.stdout.endsWith('\n')).toBe(true);
    const doc = JSON.parse(r.stdout) as { entries: { bytes: number }[]; count: number; totalBytes: number; complete: boolean };
    expect(doc).toMatchObject({ count: 2, totalBytes: 21, complete: false });
    expect(doc.entries.map((e) => e.bytes)).toEqual([10, 11]);
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'SPILL_STORAGE_FAILED', exitCode: 7 } });
  });

  it.each([
    [['read', '/x']],
    [['grep', '/x', 'p']],
    [['ls']],
    [['rm', '/x']],
    [['save']],
    [['gc', '--older-than', '1d']],
    [['run', '--max-inline-bytes', '10', '--', process.execPath, '-e', 'process.stdout.write("z".repeat(100))']],
  ])('keeps stdout empty when %j fails under --json', async (args) => {
    const json = args[0] === 'run' ? ['run', '--json', ...args.slice(1)] : [...args, '--json'];
    const r = await cli(json, { backend: failing('SPILL_UNSAFE_ROOT'), stdin: 'data' });
    if (args[0] === 'run') {
      // run keeps the output when storage fails: stdout is its one document.
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ spilled: false, text: 'z'.repeat(100), storeError: { code: 'SPILL_UNSAFE_ROOT' } });
      return;
    }
    expect(r.code, json.join(' ')).not.toBe(0);
    if (args[0] === 'gc') {
      // gc reports listing failures inside its report: one document, and an exit code.
      expect(JSON.parse(r.stdout)).toMatchObject({ complete: false });
      return;
    }
    expect(r.stdout).toBe('');
    expect(JSON.parse(r.stderr)).toMatchObject({ error: { code: 'SPILL_UNSAFE_ROOT', exitCode: 6 } });
  });
});

describe('exit codes for backend errors', () => {
  it.each([
    ['SPILL_NOT_FOUND', 3],
    ['SPILL_INVALID_LOCATOR', 4],
    ['SPILL_EXPIRED', 5],
    ['SPILL_UNSAFE_ROOT', 6],
    ['SPILL_STORAGE_FAILED', 7],
    ['SPILL_NO_SPACE', 7],
    ['SPILL_TIMEOUT', 8],
    ['SPILL_INVALID_PATTERN', 2],
    ['SPILL_ABORTED', 1],
  ] as const)('maps %s to exit %i for read, grep, ls, rm and save', async (code, exit) => {
    const backend = failing(code);
    for (const args of [['read', '/x'], ['grep', '/x', 'p'], ['ls'], ['rm', '/x'], ['save']]) {
      const r = await cli(args, { backend, stdin: 'data' });
      expect(r.code, args.join(' ')).toBe(exit);
      expect(r.stderr).toMatch(new RegExp(`^spillway: error: Injected ${code}\\..*\\[${code}\\]\\n$`));
      expect(r.stdout).toBe('');
    }
  });
});
