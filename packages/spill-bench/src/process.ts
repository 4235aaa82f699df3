import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What {@link runProcess} observed. */
export interface ProcessRun {
  /** Exit code, or `null` when a signal ended the process. */
  readonly code: number | null;
  /** The signal that ended it, if any. */
  readonly signal: NodeJS.Signals | null;
  /** Wall time from spawn to exit, in milliseconds. */
  readonly wallMs: number;
  /** Captured standard output (empty unless `captureStdout`). */
  readonly stdout: string;
  /** Captured standard error (the last 64 KiB). */
  readonly stderr: string;
  /** True when the deadline passed and the process was killed. */
  readonly timedOut: boolean;
}

/** Options for {@link runProcess}. */
export interface ProcessOptions {
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>>;
  /** Keep standard output (otherwise it is drained and dropped). */
  readonly captureStdout?: boolean;
  /** Kill the process (SIGKILL) after this many milliseconds. */
  readonly deadlineMs?: number;
}

const STDERR_KEEP = 64 * 1024;

/** Spawns `command` without a shell and waits for it to exit, timing it. */
export function runProcess(command: string, args: readonly string[], options: ProcessOptions = {}): Promise<ProcessRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(command, args, {
      stdio: ['ignore', options.captureStdout === true ? 'pipe' : 'ignore', 'pipe'],
      env: { ...process.env, ...options.env },
    });
    const out: Buffer[] = [];
    let err = '';
    let timedOut = false;
    child.stdout?.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      err = (err + chunk).slice(-STDERR_KEEP);
    });
    const timer =
      options.deadlineMs === undefined
        ? undefined
        : setTimeout(() => {
            timedOut = true;
            child.kill('SIGKILL');
          }, options.deadlineMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({
        code,
        signal,
        wallMs: performance.now() - started,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: err,
        timedOut,
      });
    });
  });
}

/** Throws with the process's stderr when it did not exit with code 0. */
export function assertSucceeded(run: ProcessRun, what: string): void {
  if (run.code !== 0) {
    const why = run.timedOut ? 'was killed at its deadline' : `exited with ${run.code ?? run.signal ?? 'nothing'}`;
    throw new Error(`${what} ${why}: ${run.stderr.trim().slice(-2000)}`);
  }
}

/** The compiled file of a helper in `src/children/`, such as `stream-child.js`. */
export function childScript(name: string): string {
  return fileURLToPath(new URL(`./children/${name}`, import.meta.url));
}

/** The environment variable that tells the max-RSS hook where to write. */
export const MAXRSS_FILE_ENV = 'SPILLWAY_BENCH_MAXRSS_FILE';

/**
 * Runs a Node script with the max-RSS hook preloaded, so that the peak resident set of
 * that one process (not its children, not the harness) is read from the kernel at exit
 * (`VmHWM`; see `peakRssBytes`). No `/usr/bin/time` needed.
 *
 * @returns the run and the peak RSS in bytes.
 */
export async function runNodeWithMaxRss(
  script: string,
  args: readonly string[],
  scratchDir: string,
  options: ProcessOptions = {},
): Promise<ProcessRun & { readonly maxRssBytes: number }> {
  const rssFile = path.join(scratchDir, `maxrss-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}`);
  const hook = new URL('./children/maxrss-hook.js', import.meta.url).href;
  const run = await runProcess(process.execPath, ['--import', hook, script, ...args], {
    ...options,
    env: { ...options.env, [MAXRSS_FILE_ENV]: rssFile },
  });
  let maxRssBytes = Number.NaN;
  try {
    maxRssBytes = Number(await readFile(rssFile, 'utf8'));
  } catch {
    // The process died before its exit hook ran; leave NaN so the figure cannot hold.
  }
  await rm(rssFile, { force: true });
  return { ...run, maxRssBytes };
}
