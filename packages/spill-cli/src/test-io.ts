import { PassThrough, Readable } from 'node:stream';
import type { CliIO } from './context.js';

/** A captured stream: everything written to it, as text. */
export interface Captured {
  readonly stream: PassThrough & { isTTY?: boolean };
  text(): string;
  /** Everything written, as bytes. */
  bytes(): Buffer;
}

/** A writable that records what is written. */
export function capture(isTTY = false): Captured {
  const stream = new PassThrough() as PassThrough & { isTTY?: boolean };
  if (isTTY) stream.isTTY = true;
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8'), bytes: () => Buffer.concat(chunks) };
}

/** An in-memory {@link CliIO} with captured stdout/stderr and a fixed stdin. */
export function testIO(options: { env?: Record<string, string | undefined>; stdin?: string; cwd?: string; homedir?: string } = {}): {
  io: CliIO;
  stdout: Captured;
  stderr: Captured;
} {
  const stdout = capture();
  const stderr = capture();
  const io: CliIO = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    stdin: Readable.from(options.stdin === undefined ? [] : [Buffer.from(options.stdin)]),
    env: options.env ?? {},
    cwd: options.cwd ?? '/work',
    homedir: options.homedir ?? '/home/tester',
  };
  return { io, stdout, stderr };
}
