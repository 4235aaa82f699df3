import { spawn, type ChildProcess } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { CliError } from './cli-error.js';
import { EXIT_CODES } from './exit-codes.js';

/** How a child process ended. */
export interface ChildOutcome {
  /** The exit code, or `null` when a signal ended it. */
  readonly code: number | null;
  /** The signal that ended it, or `null`. */
  readonly signal: NodeJS.Signals | null;
}

/** Where signals come from; `process` in the CLI, an emitter in tests. */
export interface SignalSource {
  on(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
  off(signal: NodeJS.Signals, listener: (signal: NodeJS.Signals) => void): unknown;
}

/**
 * Output (bytes, or code units of text) that may wait for the consumer before the child's
 * pipes are paused: a few pipe reads' worth, so that the next ones arrive while a call is
 * under way (the consumer writes to disk on another thread) and not one at a time.
 */
export const QUEUED_OUTPUT_UNITS = 1024 * 1024;

/** Options for {@link runChild}. */
export interface RunChildOptions {
  /**
   * Receives the output, stdout and stderr merged in the order the chunks arrive, decoded
   * as UTF-8 (a malformed sequence becomes U+FFFD). Calls are made one at a time, in order;
   * while more than {@link QUEUED_OUTPUT_UNITS} of output wait for them, both pipes are
   * paused, so a slow consumer slows the child instead of filling memory.
   * Exactly one of `onText`, `onData` and `outputFd` is given.
   */
  readonly onText?: (text: string) => Promise<void>;
  /** Like `onText`, with the bytes exactly as the child wrote them. */
  readonly onData?: (chunk: Buffer) => Promise<void> | void;
  /**
   * A descriptor the child gets as both stdout and stderr (`> file 2>&1`): the kernel
   * writes its output there directly and nothing passes through this process.
   */
  readonly outputFd?: number;
  /** The child's environment. Default: this process's. */
  readonly env?: NodeJS.ProcessEnv;
  /** The child's working directory. Default: this process's. */
  readonly cwd?: string;
  /** Signals to pass on to the child. Default: SIGINT, SIGTERM, SIGHUP. */
  readonly forwardSignals?: readonly NodeJS.Signals[];
  /** Where forwarded signals are received. Default: `process`. */
  readonly signalSource?: SignalSource;
  /** Called once the child has started. */
  readonly onSpawn?: (child: ChildProcess) => void;
}

/** The signals `spillway run` passes on to its child. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Stops a command whose output went past `--max-stored-bytes`: SIGTERM, once it is still
 * running (a command that has ended, or was never started, is left alone).
 */
export function stopRunning(child: ChildProcess | undefined): void {
  if (child !== undefined && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
}

/** The exit code a shell would report for `outcome`: the code, or 128 + the signal number. */
export function exitCodeOf(outcome: ChildOutcome): number {
  if (outcome.code !== null) return outcome.code;
  const number = outcome.signal === null ? undefined : (constants.signals as Partial<Record<string, number>>)[outcome.signal];
  return EXIT_CODES.SIGNAL_BASE + (number ?? 0);
}

function spawnFailure(command: string, error: unknown): CliError {
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'ENOENT') {
    return new CliError(
      'COMMAND_NOT_FOUND',
      `command not found: ${command}. Check its name and your PATH, or give the path to the program.`,
      undefined,
      { cause: error },
    );
  }
  if (code === 'EACCES' || code === 'EISDIR' || code === 'ENOEXEC' || code === 'EPERM') {
    return new CliError(
      'COMMAND_NOT_EXECUTABLE',
      `cannot execute ${command} (${code}): make sure it is a program you may run.`,
      undefined,
      { cause: error },
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  return new CliError('FAILED', `could not start ${command}: ${message}`, undefined, { cause: error });
}

/**
 * Runs `command` with `args`, without a shell, feeding its merged output to
 * `options.onText` with backpressure, and forwarding signals to it. Resolves with how it
 * ended once it has exited, its pipes have closed and every `onText` call has settled.
 *
 * @throws CliError `COMMAND_NOT_FOUND` (127) or `COMMAND_NOT_EXECUTABLE` (126) when it
 * cannot start; rejects with `onText`'s error if one call fails (the rest of the output is
 * then drained and dropped so the child is not blocked).
 */
export function runChild(command: string, args: readonly string[], options: RunChildOptions): Promise<ChildOutcome> {
  return new Promise<ChildOutcome>((resolve, reject) => {
    let child: ChildProcess;
    try {
      const out = options.outputFd ?? 'pipe';
      child = spawn(command, args, {
        stdio: ['inherit', out, out],
        env: options.env ?? process.env,
        cwd: options.cwd ?? process.cwd(),
        shell: false,
      });
    } catch (error) {
      // Synchronous failures: a NUL byte in an argument, for example.
      reject(spawnFailure(command, error));
      return;
    }
    const pipes: Readable[] = [];
    if (child.stdout) pipes.push(child.stdout);
    if (child.stderr) pipes.push(child.stderr);

    let chain: Promise<void> = Promise.resolve();
    let queued = 0; // bytes or code units waiting for their call
    let failure: { readonly error: unknown } | undefined;
    let settled = false;

    const enqueue = (size: number, consume: () => Promise<void> | void): void => {
      if (failure !== undefined) return;
      queued += size;
      if (queued > QUEUED_OUTPUT_UNITS) for (const pipe of pipes) pipe.pause();
      chain = chain
        .then(consume)
        .catch((error: unknown) => {
          failure ??= { error };
        })
        .finally(() => {
          const before = queued;
          queued -= size;
          if (before > QUEUED_OUTPUT_UNITS && queued <= QUEUED_OUTPUT_UNITS) for (const pipe of pipes) pipe.resume();
        });
    };

    const { onText, onData } = options;
    for (const pipe of pipes) {
      if (onData !== undefined) {
        pipe.on('data', (chunk: Buffer) => {
          enqueue(chunk.length, () => onData(chunk));
        });
        continue;
      }
      const decoder = new StringDecoder('utf8');
      const deliver = (text: string): void => {
        if (text !== '' && onText !== undefined) enqueue(text.length, () => onText(text));
      };
      pipe.on('data', (chunk: Buffer) => {
        deliver(decoder.write(chunk));
      });
      pipe.on('end', () => {
        deliver(decoder.end());
      });
    }

    const source = options.signalSource ?? process;
    const signals = options.forwardSignals ?? FORWARDED_SIGNALS;
    const forward = (signal: NodeJS.Signals): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    for (const signal of signals) source.on(signal, forward);
    const stopForwarding = (): void => {
      for (const signal of signals) source.off(signal, forward);
    };

    child.once('spawn', () => options.onSpawn?.(child));
    child.once('error', (error) => {
      // Only a failure to start settles here; a failed kill() also lands on 'error'.
      if (child.pid !== undefined || settled) return;
      settled = true;
      stopForwarding();
      reject(spawnFailure(command, error));
    });
    child.once('close', (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      stopForwarding();
      void chain.then(() => {
        if (failure !== undefined) reject(failure.error instanceof Error ? failure.error : new Error(String(failure.error)));
        else resolve({ code, signal });
      });
    });
  });
}
