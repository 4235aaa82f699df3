import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package directory. */
export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The built binary the end-to-end tests run. */
export const BIN = join(PACKAGE_DIR, 'dist', 'bin.js');

/** The command as a package manager links it (`bin/spillway.js`), with its fast paths for `run` and `hook`. */
export const COMMAND = join(PACKAGE_DIR, 'bin', 'spillway.js');

/**
 * Builds the package (and what it references) when `dist/bin.js` is missing. CI builds
 * before testing, so this only runs on a fresh checkout.
 */
export function ensureBuilt(): void {
  if (existsSync(BIN)) return;
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', join(PACKAGE_DIR, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) throw new Error('building @spillway/cli for the end-to-end tests failed');
  chmodSync(BIN, 0o755); // as the package's build script does
}

/** What one run of the binary produced. */
export interface BinResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: Buffer;
  readonly stderr: string;
  /** stdout as UTF-8. */
  readonly out: string;
}

/** Options for {@link spillway}. */
export interface BinOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly input?: string | Buffer;
  readonly timeoutMs?: number;
  /** The working directory (the test process's own by default). */
  readonly cwd?: string;
  /** Called once the process has started. */
  readonly onStart?: (child: ChildProcess) => void;
  /** The script to run: {@link BIN} (the default) or {@link COMMAND}. */
  readonly entry?: string;
  /** A command to start node through, which runs the arguments after it (`['/bin/sh', '-c', 'ulimit -f 200 && exec "$@"', 'sh']`). */
  readonly through?: readonly string[];
}

/**
 * How long one command may run before it is killed: under the suite's 60 s test timeout,
 * so the error names the command, yet far above what a loaded machine needs.
 */
const DEFAULT_TIMEOUT_MS = 50_000;

/** Runs `node dist/bin.js …args` (or another entry) and collects everything it prints. */
export function spillway(args: readonly string[], options: BinOptions): Promise<BinResult> {
  return new Promise((resolve, reject) => {
    const [file = process.execPath, ...argv] = [...(options.through ?? []), process.execPath, options.entry ?? BIN, ...args];
    const child = spawn(file, argv, { env: options.env, cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (b: Buffer) => out.push(b));
    child.stderr.on('data', (b: Buffer) => err.push(b));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`spillway ${args.join(' ')} did not finish within ${String(options.timeoutMs ?? DEFAULT_TIMEOUT_MS)} ms`));
    }, options.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const stdout = Buffer.concat(out);
      resolve({ code, signal, stdout, out: stdout.toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    child.stdin.end(options.input ?? '');
    options.onStart?.(child);
  });
}
