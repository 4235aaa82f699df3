import { accessSync, constants as fsConstants, lstatSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, delimiter, join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { exitCodeOf, runChild, type ChildOutcome } from './child.js';
import { xdgBaseDir } from '@spillway/core/xdg';
import { createUsageLog } from '@spillway/usage';
import { DECIMAL, DEFAULT_MAX_INLINE_BYTES, sessionFrom } from './defaults.js';
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
  const file = args[i];
  if (file === undefined || file === '' || file.startsWith('-') || !startable(file, env) || !startable(SHELL, env)) return undefined;
  return {
    file,
    args: args.slice(i + 1),
    options: { maxInlineBytes: DEFAULT_MAX_INLINE_BYTES, noticeReader: 'spillway-cli', ...options },
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
 * Whether the root the run would store into is, at a glance, a private directory of this
 * user's (`--root`, else `SPILLWAY_ROOT`, else the default root). The fast path gives the
 * command a pipe, and an output past the cap passes through this process; when the root
 * cannot take it, the full program gives the command the fallback root's file or its own
 * stdout instead, and no byte passes through here. The backend still checks the root in
 * full: this only picks the route. A root not made yet is left to the full program too.
 */
export function rootLooksPrivate(run: FastRun, env: Readonly<Record<string, string | undefined>>, cwd: string, home: string): boolean {
  const root = namedRoot(run.options.root, env, cwd)?.path ?? fastDefaultRoot(env, home);
  try {
    const st = lstatSync(root, { throwIfNoEntry: false });
    return st !== undefined && st.isDirectory() && st.uid === process.geteuid?.() && (st.mode & 0o077) === 0;
  } catch {
    return false;
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

/**
 * `spillway run` with little to load: the command runs with its output on pipes, held in
 * memory up to the cap. An output that fits is printed as it is, the usage log gets a
 * "passed" event, and nothing else is loaded. Once the output is past the cap, or it fails
 * and is past the lower cap, the full program's routes take it over, with what was held.
 * Resolves with the exit code.
 */
export async function runFast(run: FastRun, env: Readonly<Record<string, string | undefined>>): Promise<number> {
  const { options } = run;
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
  const output = Buffer.concat(held, heldBytes);
  await new Promise<void>((done) => process.stdout.write(output, () => { done(); }));
  createUsageLog({ env }).record({
    kind: 'passed',
    surface: 'run',
    tool: options.name ?? (basename(run.file) || 'output'),
    session: sessionFrom(options.session, env),
    bytes: heldBytes,
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
  if (run === undefined || !rootLooksPrivate(run, process.env, process.cwd(), homedir())) return false;
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
  try {
    process.exitCode = await runFast(run, process.env);
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
