import { EventEmitter } from 'node:events';
import { mkdtemp, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { exitCodeOf, QUEUED_OUTPUT_UNITS, runChild, type SignalSource } from './child.js';
import { CliError } from './cli-error.js';

const node = process.execPath;

async function collect(command: string, args: string[]): Promise<{ text: string; code: number | null; signal: string | null }> {
  let text = '';
  const outcome = await runChild(command, args, {
    onText: (t) => {
      text += t;
      return Promise.resolve();
    },
  });
  return { text, ...outcome };
}

/** write(2)'s number in /proc/<pid>/syscall, by architecture. */
const WRITE_SYSCALL: Partial<Record<string, number>> = { x64: 1, arm64: 64, ia32: 4, arm: 4 };

/**
 * Whether process `pid` is asleep inside write(2) on its stdout, from /proc/<pid>/syscall
 * (which shows `running` for a process on a CPU); `undefined` where /proc cannot tell.
 */
async function sleepsWritingStdout(pid: number): Promise<boolean | undefined> {
  const nr = WRITE_SYSCALL[process.arch];
  if (nr === undefined) return undefined;
  try {
    const [call, fd] = (await readFile(`/proc/${String(pid)}/syscall`, 'utf8')).trim().split(' ');
    return Number(call) === nr && Number(fd) === 1;
  } catch {
    return undefined;
  }
}

/**
 * Polls until the writer is blocked on its full stdout pipe and returns the bytes it had
 * written by then (its progress file is updated after each write returns, so while it
 * sleeps in the next write, the file is final). Where /proc cannot say, it falls back to
 * the count staying the same across ten checks. No fixed sleep decides the outcome.
 */
async function waitUntilBlockedWriting(pid: number, progressFile: string): Promise<number> {
  const deadline = Date.now() + 60_000;
  let last = -1;
  let steady = 0;
  for (;;) {
    const blocked = await sleepsWritingStdout(pid);
    const written = Number(await readFile(progressFile, 'utf8').catch(() => '0'));
    steady = written > 0 && written === last ? steady + 1 : 0;
    last = written;
    if (written > 0 && (blocked === true || (blocked === undefined && steady >= 10))) return written;
    if (Date.now() > deadline) throw new Error(`the writer never blocked (wrote ${String(written)} bytes; /proc says ${String(blocked)})`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'spillway-child-test-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('runChild', () => {
  it('merges stdout and stderr in the order they arrive', async () => {
    // Each write waits until the test has received the one before (a marker file), so
    // the order is the one the child chose however slow either side is.
    const seen = join(dir, 'merge-seen-');
    const script = `
      const fs = require('node:fs');
      const seen = (n) => new Promise((r) => { const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(seen)} + n)) { clearInterval(t); r(); } }, 5); });
      (async () => {
        process.stdout.write('out1 '); await seen(1);
        process.stderr.write('err1 '); await seen(2);
        process.stdout.write('out2');
      })();`;
    let text = '';
    let parts = 0;
    const outcome = await runChild(node, ['-e', script], {
      onText: async (t) => {
        text += t;
        parts += 1;
        await writeFile(seen + String(parts), '');
      },
    });
    expect(text).toBe('out1 err1 out2');
    expect(parts).toBe(3);
    expect(outcome.code).toBe(0);
  });

  it('never splits a UTF-8 code point that arrives in two writes', async () => {
    // The second byte is written only once the first has been read as a chunk of its
    // own, so the code point really arrives split, however loaded the machine is.
    const firstRead = join(dir, 'euro-first-read');
    const script = `
      const fs = require('node:fs');
      const euro = Buffer.from('€');
      fs.writeSync(1, euro.subarray(0, 1));
      const t = setInterval(() => { if (fs.existsSync(${JSON.stringify(firstRead)})) { clearInterval(t); fs.writeSync(1, euro.subarray(1)); } }, 5);`;
    const chunks: number[] = [];
    const texts: string[] = [];
    await runChild(node, ['-e', script], {
      onSpawn: (child) => {
        child.stdout?.on('data', (chunk: Buffer) => {
          chunks.push(chunk.length);
          if (chunks.length === 1) void writeFile(firstRead, '');
        });
      },
      onText: (t) => {
        texts.push(t);
        return Promise.resolve();
      },
    });
    expect(chunks).toEqual([1, 2]);
    expect(texts).toEqual(['€']);
  });

  it('passes the child\'s exit code through', async () => {
    expect((await collect('sh', ['-c', 'exit 42'])).code).toBe(42);
  });

  it('passes arguments without a shell: metacharacters stay literal', async () => {
    const { text } = await collect('printf', ['%s', '$HOME; echo injected `id` | cat']);
    expect(text).toBe('$HOME; echo injected `id` | cat');
  });

  it('pauses the child while a chunk is being consumed, and loses nothing after', async () => {
    const progress = join(dir, 'progress');
    const total = 64 * 1024 * 1024;
    // Writes 64 MiB in 64 KiB blocking writes, recording (atomically) after each how much it has written.
    const script = `
      const fs = require('node:fs');
      const block = Buffer.alloc(65536, 'x');
      let written = 0;
      while (written < ${total}) {
        written += fs.writeSync(1, block);
        fs.writeFileSync(${JSON.stringify(progress + '.tmp')}, String(written));
        fs.renameSync(${JSON.stringify(progress + '.tmp')}, ${JSON.stringify(progress)});
      }`;
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let received = 0;
    let stalled: () => void = () => undefined;
    const firstChunk = new Promise<void>((resolve) => {
      stalled = resolve;
    });
    let first = true;
    let writer: ChildProcess | undefined;
    onTestFinished(() => {
      // If an assertion failed while the child was stalled, do not leave it running.
      release();
      writer?.kill('SIGKILL');
    });
    const done = runChild(node, ['-e', script], {
      onSpawn: (child) => {
        writer = child;
      },
      onText: async (t) => {
        received += Buffer.byteLength(t);
        if (first) {
          first = false;
          stalled();
          await gate;
        }
      },
    });
    // Wait for the first chunk to be stalled on, then until the child can run no further:
    // blocked in write(2), not merely slow, so a loaded machine cannot make this flaky.
    await firstChunk;
    const writtenWhileStalled = await waitUntilBlockedWriting(writer?.pid ?? 0, progress);
    // The pipes are read on until more than QUEUED_OUTPUT_UNITS wait for the consumer, so
    // the child is not paused after every piece; then only the pipe's and the stream's
    // buffers can fill while the consumer is stalled.
    expect(writtenWhileStalled).toBeGreaterThan(QUEUED_OUTPUT_UNITS);
    expect(writtenWhileStalled).toBeLessThan(QUEUED_OUTPUT_UNITS + 2 * 1024 * 1024);
    release();
    const outcome = await done;
    expect(outcome.code).toBe(0);
    expect(received).toBe(total);
  });

  it('forwards a signal to the child and reports 128+N when it dies of it', async () => {
    const source = new EventEmitter() as unknown as SignalSource & EventEmitter;
    const outcome = await runChild(node, ['-e', 'setTimeout(() => {}, 30000)'], {
      onText: () => Promise.resolve(),
      signalSource: source,
      onSpawn: () => {
        setTimeout(() => source.emit('SIGTERM', 'SIGTERM'), 100);
      },
    });
    expect(outcome).toEqual({ code: null, signal: 'SIGTERM' });
    expect(exitCodeOf(outcome)).toBe(143);
    expect(source.listenerCount('SIGTERM')).toBe(0);
  });

  it('lets a child that handles the forwarded signal choose its exit code', async () => {
    const source = new EventEmitter() as unknown as SignalSource & EventEmitter;
    const script = `process.on('SIGINT', () => { process.stdout.write('cleaned up'); process.exit(7); }); setTimeout(() => {}, 30000); process.stdout.write('ready');`;
    let text = '';
    const outcome = await runChild(node, ['-e', script], {
      onText: (t) => {
        text += t;
        if (t.includes('ready')) source.emit('SIGINT', 'SIGINT');
        return Promise.resolve();
      },
      signalSource: source,
    });
    expect(outcome.code).toBe(7);
    expect(text).toBe('readycleaned up');
  });

  it('answers COMMAND_NOT_FOUND (127) for a program that does not exist', async () => {
    const error: unknown = await collect('spillway-no-such-program-x9', []).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({ code: 'COMMAND_NOT_FOUND', exitCode: 127 });
    expect((error as Error).message).toContain('spillway-no-such-program-x9');
  });

  it('answers COMMAND_NOT_EXECUTABLE (126) for a directory or a file without the x bit', async () => {
    const file = join(dir, 'not-executable');
    await writeFile(file, '#!/bin/sh\necho hi\n');
    await chmod(file, 0o644);
    for (const target of [dir, file]) {
      // exec needs an x bit even for root.
      const error: unknown = await collect(target, []).catch((e: unknown) => e);
      expect(error).toMatchObject({ code: 'COMMAND_NOT_EXECUTABLE', exitCode: 126 });
    }
  });

  it('rejects with the consumer\'s error after draining the child', async () => {
    const boom = new Error('consumer broke');
    const error: unknown = await runChild('sh', ['-c', 'printf a; sleep 0.1; printf b'], {
      onText: () => Promise.reject(boom),
    }).catch((e: unknown) => e);
    expect(error).toBe(boom);
  });
});

describe('exitCodeOf', () => {
  it('is the code when there is one, else 128 plus the signal number', () => {
    expect(exitCodeOf({ code: 0, signal: null })).toBe(0);
    expect(exitCodeOf({ code: 3, signal: null })).toBe(3);
    expect(exitCodeOf({ code: null, signal: 'SIGKILL' })).toBe(137);
    expect(exitCodeOf({ code: null, signal: 'SIGINT' })).toBe(130);
  });
});
