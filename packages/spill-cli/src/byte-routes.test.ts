import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpillError } from '@spillway/core';
import { localBackendFactory, type BackendFactory, type CliBackend } from './test-node-backends.js';
import { main } from './main.js';
import { testIO } from './test-io.js';
import { makePrivateDir, tempBasePerFile } from './test-temp-dirs.js';

// The routes of `run` and `save` by what a backend can do: bytes through saveBytesStream
// (an object store's way: no file on this host), and text only, said before storing.

const node = process.execPath;
let base: string;
let counter = 0;

tempBasePerFile('spillway-cli-routes-', (dir) => {
  base = dir;
});

async function freshRoot(): Promise<string> {
  const root = join(base, `root-${String(++counter)}`);
  await makePrivateDir(root);
  return root;
}

type Change = (real: CliBackend) => { [K in keyof CliBackend]?: CliBackend[K] | undefined };

/** The local backend on a fresh root without its file sink (so it stores as an object store does), changed by `change`. */
async function without(change: Change = () => ({})): Promise<BackendFactory> {
  const path = await freshRoot();
  return () => {
    const real = localBackendFactory({ path, source: 'option' });
    const { fileSink: _sink, ...rest } = real;
    return { ...rest, ...change(real) } as CliBackend;
  };
}

async function cli(args: string[], backend: BackendFactory, stdin?: string | Buffer) {
  const { io, stdout, stderr } = testIO({ env: {}, homedir: join(base, 'home') });
  const input = stdin === undefined ? io : { ...io, stdin: (await import('node:stream')).Readable.from([Buffer.from(stdin)]) };
  const code = await main(args, input, { backend });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: stdout.text(), stderr: stderr.text(), bytes: stdout.bytes() };
}

/** A node script writing `n` bytes of every value, in 1000-byte writes. */
function writer(n: number): string {
  return `const b = Buffer.alloc(1000); for (let i = 0; i < 1000; i++) b[i] = (i * 7) % 256;
    let left = ${String(n)}; const next = () => { if (left <= 0) return; const c = b.subarray(0, Math.min(1000, left)); left -= c.length; if (process.stdout.write(c)) setImmediate(next); else process.stdout.once('drain', next); }; next();`;
}

function written(n: number): Buffer {
  const b = Buffer.alloc(1000);
  for (let i = 0; i < 1000; i++) b[i] = (i * 7) % 256;
  return Buffer.concat(Array.from({ length: Math.ceil(n / 1000) }, () => b)).subarray(0, n);
}

function locatorIn(text: string): string {
  const found = /stored at: (.*?)\. Use /.exec(text)?.[1];
  if (found === undefined) throw new Error(`no notice in: ${text.slice(-300)}`);
  return found;
}

describe('run on a backend that stores bytes through saveBytesStream', () => {
  it('stores binary output exactly, keeps the line that says it is binary, and cat gives it back', async () => {
    const factory = await without();
    const r = await cli(['run', '--max-inline-bytes', '3000', '--', node, '-e', writer(300_000)], factory);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('(The output is binary or not UTF-8: 300000 bytes, stored exactly;');
    expect(Buffer.byteLength(r.stdout)).toBeLessThanOrEqual(3001);
    const copy = await cli(['cat', locatorIn(r.stdout)], factory);
    expect(copy.code).toBe(0);
    expect(copy.bytes.equals(written(300_000))).toBe(true);
  });

  it('prints output that fits the cap exactly, storing nothing', async () => {
    let saves = 0;
    const factory = await without((real) => ({
      saveBytesStream: (input, options) => {
        saves++;
        return real.saveBytesStream?.(input, options) ?? Promise.reject(new Error('no saveBytesStream'));
      },
    }));
    const r = await cli(['run', '--max-inline-bytes', '5000', '--', node, '-e', writer(4000)], factory);
    expect(r.bytes.equals(written(4000))).toBe(true);
    expect(saves).toBe(0);
  });

  it('stops the command past --max-stored-bytes and stores exactly the first bytes', async () => {
    const factory = await without();
    const r = await cli(['run', '--max-inline-bytes', '2000', '--max-stored-bytes', '50000', '--', node, '-e', `${writer(10_000_000)}; setInterval(() => {}, 1000)`], factory);
    expect(r.stderr).toMatch(/went past --max-stored-bytes 50000: its first 50000 bytes are stored/);
    const copy = await cli(['cat', locatorIn(r.stdout)], factory);
    expect(copy.bytes.equals(written(50_000))).toBe(true);
  });

  it('prints the output in full, with a warning, when the save fails and the output is small enough to keep', async () => {
    const factory = await without(() => ({ saveBytesStream: () => Promise.reject(new SpillError('SPILL_NO_SPACE', 'Injected ENOSPC.')) }));
    const r = await cli(['run', '--max-inline-bytes', '500', '--', node, '-e', writer(200_000)], factory);
    expect(r.code).toBe(0);
    expect(r.bytes.equals(written(200_000))).toBe(true);
    expect(r.stderr).toMatch(/^spillway: warning: the output \(200000 bytes\) could not be spilled and is printed in full: .*\[SPILL_NO_SPACE\]\n$/);
    const json = await cli(['run', '--json', '--max-inline-bytes', '500', '--', node, '-e', 'process.stdout.write("t".repeat(200000))'], factory);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({ text: 't'.repeat(200_000), spilled: false, locator: null, storeError: { code: 'SPILL_NO_SPACE' } });
  });

  it('shows head and tail, and says so, when the save fails on output too large to keep', async () => {
    const factory = await without(() => ({
      saveBytesStream: async (input) => {
        for await (const _chunk of input.content) {
          // take everything, then fail, as a store that refuses the completion does
        }
        throw new SpillError('SPILL_STORAGE_FAILED', 'Injected refusal.');
      },
    }));
    const r = await cli(['run', '--max-inline-bytes', '500', '--', node, '-e', writer(3_000_000)], factory);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(/could not be stored, so only its head and tail are shown: .*\[SPILL_STORAGE_FAILED\]/);
    expect(r.stdout).toMatch(/bytes not stored and not shown/);
    expect(r.bytes.length).toBeLessThan(10_000);
    const json = await cli(['run', '--json', '--max-inline-bytes', '500', '--', node, '-e', writer(3_000_000)], factory);
    expect(JSON.parse(json.stdout)).toMatchObject({ text: expect.stringContaining('bytes not stored and not shown') as unknown, spilled: false, storeError: { code: 'SPILL_STORAGE_FAILED' } });
  });
});

describe('a backend that stores text only', () => {
  const textOnly = (calls: string[]): Change => () => ({
    saveBytesStream: undefined,
    saveTextStream: () => {
      calls.push('saveTextStream');
      return Promise.reject(new SpillError('SPILL_STORAGE_FAILED', 'Injected: recorded only.'));
    },
  });

  it('save says so, with its code, before anything is stored', async () => {
    const calls: string[] = [];
    const factory = await without(textOnly(calls));
    const r = await cli(['save'], factory, Buffer.from([0xff, 0x00, 0x41]));
    expect(calls).toEqual(['saveTextStream']);
    const lines = r.stderr.split('\n');
    expect(lines[0]).toMatch(/^spillway: warning: the local backend stores text only .*\[BYTES_UNSUPPORTED\]$/);
    expect(lines[1]).toMatch(/^spillway: error: /);
  });

  it('run says so, with its code, before the command runs', async () => {
    const calls: string[] = [];
    const factory = await without(textOnly(calls));
    const r = await cli(['run', '--max-inline-bytes', '10', '--', node, '-e', 'console.error("child started"); console.log("x".repeat(100))'], factory);
    expect(r.stderr.indexOf('[BYTES_UNSUPPORTED]')).toBeGreaterThanOrEqual(0);
    expect(r.stdout).toContain('x'.repeat(100));
    expect(r.stderr.split('\n')[0]).toMatch(/^spillway: warning: the local backend stores text only.*\[BYTES_UNSUPPORTED\]$/);
  });

  it('cat refuses a reader without readBytes with BYTES_UNSUPPORTED and prints nothing', async () => {
    const factory = await without((real) => ({ reader: { read: real.reader.read.bind(real.reader), grep: real.reader.grep.bind(real.reader) } }));
    const saved = await cli(['save', '--json'], factory, 'abc\n');
    const { locator } = JSON.parse(saved.stdout) as { locator: string };
    const r = await cli(['cat', locator], factory);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^spillway: error: The local backend cannot hand back stored bytes exactly .*\[BYTES_UNSUPPORTED\]\n$/);
  });
});
