import { accessSync, constants as fsConstants, fstatSync, lstatSync, readSync, statfsSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { exitCodeOf, runChild, type ChildOutcome } from './child.js';
import { xdgBaseDir } from '@spillway/core/xdg';
import { discardIncomingFile, openIncomingFile, type IncomingFile } from '@spillway/local/incoming';
import { createUsageLog } from '@spillway/usage';
import { DECIMAL, DEFAULT_MAX_INLINE_BYTES, DEFAULT_MAX_STORED_BYTES, MAX_STORED_ENV, sessionFrom } from './defaults.js';
import { namedRoot } from './root-choice.js';

/** `spillway run`'s options that the fast path understands; any other sends the call to the full program. */
export interface FastRunOptions {
  readonly maxInlineBytes: number;
  readonly maxInlineBytesOnFailure?: number;
  readonly maxStoredBytes?: number;
  readonly session?: string;
  readonly name?: string;
  readonly noticeReader: 'spillway-cli' | 'file-tools' | 'spill-tools' | 'spill-tools-and-search';
  readonly root?: string;
}

/** What the fast path runs: the command, its arguments and the options. */
export interface FastRun {
  readonly file: string;
  readonly args: readonly string[];
  readonly options: FastRunOptions;
  /** The most bytes the run stores, resolved once (see {@link maxStoredFrom}). */
  readonly maxStoredBytes: number;
}

/** The shell that joins the command's stderr to its stdout. */
const SHELL = '/bin/sh';

const READERS = new Set(['spillway-cli', 'file-tools', 'spill-tools', 'spill-tools-and-search']);
const NUMBER_OPTIONS = { '--max-inline-bytes': 'maxInlineBytes', '--max-inline-bytes-on-failure': 'maxInlineBytesOnFailure', '--max-stored-bytes': 'maxStoredBytes' } as const;
const TEXT_OPTIONS = { '--session': 'session', '--name': 'name', '--root': 'root', '--notice-reader': 'noticeReader' } as const;

/**
 * The arguments after `run`, when the fast path can take them: only the options above, each
 * with a value the full program would accept, then the command. `undefined` sends the call
 * to the full program (which also gives every usage error).
 */
export function parseFastRun(args: readonly string[], env: Readonly<Record<string, string | undefined>>): FastRun | undefined {
  // An object store is opened only by the full program.
  if (env.SPILLWAY_STORE !== undefined && env.SPILLWAY_STORE !== '') return undefined;
  const options: Record<string, string | number> = {};
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '--') {
      i++;
      break;
    }
    if (!arg.startsWith('-')) break;
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg : arg.slice(0, eq);
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === '') return undefined;
    if (name in NUMBER_OPTIONS) {
      if (!DECIMAL.test(value) || !Number.isSafeInteger(Number(value))) return undefined;
      if (name === '--max-stored-bytes' && Number(value) === 0) return undefined;
      options[NUMBER_OPTIONS[name as keyof typeof NUMBER_OPTIONS]] = Number(value);
    } else if (name in TEXT_OPTIONS) {
      if (name === '--notice-reader' && !READERS.has(value)) return undefined;
      options[TEXT_OPTIONS[name as keyof typeof TEXT_OPTIONS]] = value;
    } else {
      return undefined;
    }
  }
  // The program refuses a malformed SPILLWAY_MAX_STORED_BYTES before the command starts;
  // run here, the command would run and its output be lost to the refusal past the cap.
  const option = options.maxStoredBytes;
  const maxStoredBytes = maxStoredFrom(typeof option === 'number' ? option : undefined, env);
  if (maxStoredBytes === undefined) return undefined;
  const file = args[i];
  if (file === undefined || file === '' || file.startsWith('-') || !startable(file, env) || !startable(SHELL, env)) return undefined;
  return {
    file,
    args: args.slice(i + 1),
    options: { maxInlineBytes: DEFAULT_MAX_INLINE_BYTES, noticeReader: 'spillway-cli', ...options },
    maxStoredBytes,
  };
}

/** Whether `file` names a program this user may run (found on PATH when it has no slash); otherwise the full program says why not. */
function startable(file: string, env: Readonly<Record<string, string | undefined>>): boolean {
  const candidates = file.includes('/') ? [file] : (env.PATH ?? '').split(delimiter).filter((dir) => dir !== '').map((dir) => join(dir, file));
  return candidates.some((path) => {
    try {
      accessSync(path, fsConstants.X_OK);
      return statSync(path).isFile();
    } catch {
      return false;
    }
  });
}

/**
 * The root the run would store into (`--root`, else `SPILLWAY_ROOT`, else the default root)
 * when it is, at a glance, a private directory of this user's; `undefined` otherwise. The
 * fast path writes the output into that root (or through this process) before anyone knows
 * whether it will be stored; when the root cannot take it, the full program gives the
 * command the fallback root's file or its own stdout instead, and no byte passes through
 * here. The backend still checks the root in full: this only picks the route. A root not
 * made yet is left to the full program too.
 */
export function privateRoot(run: FastRun, env: Readonly<Record<string, string | undefined>>, cwd: string, home: string): string | undefined {
  const root = namedRoot(run.options.root, env, cwd)?.path ?? fastDefaultRoot(env, home);
  try {
    const st = lstatSync(root, { throwIfNoEntry: false });
    return st !== undefined && st.isDirectory() && st.uid === process.geteuid?.() && (st.mode & 0o077) === 0 ? root : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The most bytes the run stores: `--max-stored-bytes`, else `SPILLWAY_MAX_STORED_BYTES`,
 * else the default; `undefined` for a variable the full program refuses, so that
 * {@link parseFastRun} leaves the call to it.
 */
export function maxStoredFrom(option: number | undefined, env: Readonly<Record<string, string | undefined>>): number | undefined {
  if (option !== undefined) return option;
  const fromEnv = env[MAX_STORED_ENV];
  if (fromEnv === undefined || fromEnv === '') return DEFAULT_MAX_STORED_BYTES;
  const n = DECIMAL.test(fromEnv) ? Number(fromEnv) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : undefined;
}

/**
 * An incoming file in `root` for the command's output, when the volume has room, at the
 * start, for all the run may store: then only another writer filling the volume meanwhile
 * can cut the output short (the command's own writes would fail, as with `> file`).
 * `undefined` when it has not, or when the file cannot be made.
 */
function incomingFileIn(root: string, maxStoredBytes: number): IncomingFile | undefined {
  try {
    const volume = statfsSync(root);
    return volume.bavail * volume.bsize > maxStoredBytes ? openIncomingFile(root) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The local backend's default root (`defaultLocalRoot` of `@spillway/local`), found without
 * loading that package, which would start Node's ES module loader on every small output. A
 * test holds the two equal.
 */
export function fastDefaultRoot(env: Readonly<Record<string, string | undefined>>, home: string): string {
  return join(xdgBaseDir('state', env, home), 'spillway');
}

/** How the output continues once it is past what the fast path holds: the full program's routes (see `commands/run/adopted-run.ts`). */
export interface OutputTakeover {
  write(chunk: Buffer): Promise<void>;
  end(outcome: ChildOutcome): Promise<number>;
}

/** How an output the command writes into an incoming file continues once it is past the cap (see `commands/run/adopted-run.ts`). */
export interface FileTakeover {
  /** The file has grown to `size` bytes while the command runs. */
  follow(size: number): void;
  /** The command has ended: stores, previews and reports the output; resolves with the exit code. */
  end(outcome: ChildOutcome): Promise<number>;
}

/** How often the file route measures the output against the cap. */
const WATCH_INTERVAL_MS = 20;

/**
 * `spillway run` with little to load. With `root` (a private root, see {@link privateRoot})
 * whose volume has room for the whole limit, the command writes into an incoming file
 * there (see `runIntoFile`); otherwise its output comes on a pipe, held in memory up to the
 * cap. An output that fits is printed as it is, the usage log gets a "passed" event, and
 * nothing else is loaded. Once the output is past the cap, or it fails and is past the
 * lower cap, the full program's routes take it over: the file, or what was held and the
 * rest of the pipe. Resolves with the exit code.
 */
export async function runFast(run: FastRun, env: Readonly<Record<string, string | undefined>>, root?: string): Promise<number> {
  const { options } = run;
  const incoming = root === undefined ? undefined : incomingFileIn(root, run.maxStoredBytes);
  if (incoming !== undefined) return runIntoFile(run, env, incoming);
  const held: Buffer[] = [];
  let heldBytes = 0;
  let child: ChildProcess | undefined;
  let takeover: OutputTakeover | undefined;
  const takeOver = async (): Promise<OutputTakeover> => {
    const { adoptRun } = await import('./commands/run/adopted-run.js');
    const taken = await adoptRun({ ...run, child: () => child });
    for (const chunk of held.splice(0)) await taken.write(chunk);
    return taken;
  };
  // One pipe for both, as `> file 2>&1` gives the full program's direct route: the output
  // keeps the order it was written in. The shell replaces itself with the command.
  const outcome = await runChild(SHELL, ['-c', 'exec "$0" "$@" 2>&1', run.file, ...run.args], {
    onSpawn: (c) => {
      child = c;
    },
    onData: async (chunk) => {
      if (takeover !== undefined) return takeover.write(chunk);
      held.push(chunk);
      heldBytes += chunk.length;
      if (heldBytes > options.maxInlineBytes) takeover = await takeOver();
    },
  });
  const failed = exitCodeOf(outcome) !== 0;
  const cap = failed && options.maxInlineBytesOnFailure !== undefined ? Math.min(options.maxInlineBytesOnFailure, options.maxInlineBytes) : options.maxInlineBytes;
  if (takeover === undefined && heldBytes > cap) takeover = await takeOver();
  if (takeover !== undefined) return takeover.end(outcome);
  return passed(run, env, Buffer.concat(held, heldBytes), outcome);
}

/**
 * The file route: the command writes straight into an incoming file of the root, as `>
 * file 2>&1` would, so that nothing passes through this process. A timer measures the
 * file; once it is past the cap (or the limit) the full program's routes take the file
 * over while the command still writes, and the preview's scan follows it. An output that
 * fits is read back, printed and the file removed.
 */
async function runIntoFile(run: FastRun, env: Readonly<Record<string, string | undefined>>, incoming: IncomingFile): Promise<number> {
  const { options, maxStoredBytes: limit } = run;
  let child: ChildProcess | undefined;
  let takeover: Promise<FileTakeover> | undefined;
  const takeOver = (): Promise<FileTakeover> =>
    (takeover ??= import('./commands/run/adopted-run.js').then(({ adoptFileRun }) => adoptFileRun({ ...run, child: () => child, incoming })));
  const timer = setInterval(() => {
    let size: number;
    try {
      size = fstatSync(incoming.fd).size;
    } catch {
      return;
    }
    if (takeover === undefined && size <= options.maxInlineBytes && size <= limit) return;
    // A failure to take over is reported once the command ends, by the same call there.
    takeOver().then((taken) => { taken.follow(size); }, () => undefined);
  }, WATCH_INTERVAL_MS);
  let outcome: ChildOutcome;
  try {
    outcome = await runChild(run.file, run.args, { outputFd: incoming.fd, onSpawn: (c) => { child = c; } });
  } catch (error) {
    clearInterval(timer);
    if (takeover === undefined) discardIncomingFile(incoming);
    else await takeover.then((taken) => taken.end({ code: 1, signal: null }), () => { discardIncomingFile(incoming); });
    throw error;
  } finally {
    clearInterval(timer);
  }
  const size = fstatSync(incoming.fd).size;
  const failed = exitCodeOf(outcome) !== 0;
  const cap = failed && options.maxInlineBytesOnFailure !== undefined ? Math.min(options.maxInlineBytesOnFailure, options.maxInlineBytes) : options.maxInlineBytes;
  // Past the limit, the stored part is cut at the limit and the rest dropped, as by the program, however fast the command was.
  if (takeover === undefined && size <= cap && size <= limit) {
    const output = Buffer.allocUnsafe(size);
    let read = 0;
    for (let n = 1; read < size && n > 0; read += n) n = readSync(incoming.fd, output, read, size - read, read);
    discardIncomingFile(incoming);
    return passed(run, env, output.subarray(0, read), outcome);
  }
  let taken: FileTakeover;
  try {
    taken = await takeOver();
  } catch (error) {
    // Nothing can store it: the output is printed in full before the error, never lost.
    try {
      await printFile(incoming.fd);
    } finally {
      discardIncomingFile(incoming);
    }
    throw error;
  }
  return taken.end(outcome);
}

/** Prints what the file behind `fd` holds, a piece at a time. */
async function printFile(fd: number): Promise<void> {
  const piece = Buffer.allocUnsafe(1024 * 1024);
  for (let position = 0, n = readSync(fd, piece, 0, piece.length, 0); n > 0; position += n, n = readSync(fd, piece, 0, piece.length, position)) {
    const bytes = Buffer.from(piece.subarray(0, n));
    await new Promise<void>((done) => process.stdout.write(bytes, () => { done(); }));
  }
}

/** An output within the cap: printed as it is, with a "passed" usage event. */
async function passed(run: FastRun, env: Readonly<Record<string, string | undefined>>, output: Buffer, outcome: ChildOutcome): Promise<number> {
  const { options } = run;
  await new Promise<void>((done) => process.stdout.write(output, () => { done(); }));
  createUsageLog({ env }).record({
    kind: 'passed',
    surface: 'run',
    tool: options.name ?? (basename(run.file) || 'output'),
    session: sessionFrom(options.session, env),
    bytes: output.length,
  });
  return exitCodeOf(outcome);
}

/**
 * `spillway run …` as a process, when the fast path can take it (see {@link parseFastRun}):
 * sets the exit code and resolves `true`; resolves `false`, having done nothing, otherwise.
 * A failure is one `spillway: error:` line with its code, as from the full program.
 */
export async function runFastProcess(args: readonly string[]): Promise<boolean> {
  const run = parseFastRun(args, process.env);
  const root = run === undefined ? undefined : privateRoot(run, process.env, process.cwd(), homedir());
  if (run === undefined || root === undefined) return false;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  try {
    process.exitCode = await runFast(run, process.env, root);
  } catch (error) {
    const [{ describeError }, { colorEnabled, makeStyle }] = await Promise.all([import('./cli-error.js'), import('./color.js')]);
    const described = describeError(error);
    const style = makeStyle(colorEnabled(process.stderr.isTTY, process.env));
    const code = described.code === 'INTERNAL' ? '' : ` [${described.code}]`;
    process.stderr.write(`${style.red('spillway: error:')} ${described.message}${style.dim(code)}\n`);
    process.exitCode = described.exitCode;
  }
  return true;
}
