/**
 * The file where Claude Code keeps a Bash output too large for its hook input
 * (`tool_response.persistedOutputPath`). The hook input is untrusted: a path in it must not
 * make the hook copy another file (`/etc/shadow`, `/proc/self/environ`, a link to either)
 * into the store and preview it back. So the file is read only when it is what Claude Code
 * writes: a regular file of the user's own, with one link, in a `tool-results` folder,
 * opened without following links or waiting on a FIFO, whose head is the `stdout` the host
 * sent. It is then read in chunks, never whole.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, sep } from 'node:path';
import { StringDecoder } from 'node:string_decoder';

/** The largest persisted output the hook stores (a larger one is left to the host). */
export const MAX_PERSISTED_BYTES = 1024 ** 3;
/** Claude Code persists only outputs over 30,000 characters; a shorter `stdout` cannot vouch for a file. */
const MIN_STDOUT_CHARS = 1_000;
const CHUNK_BYTES = 1024 * 1024;

/** An opened persisted output: read it with {@link persistedChunks}, then close it. */
export interface PersistedOutput {
  readonly fd: number;
  readonly bytes: number;
}

/** Whether a folder on the real path is one Claude Code keeps tool results in. */
function inToolResults(realDir: string): boolean {
  return realDir.split(sep).some((part) => part === 'tool-results' || part.startsWith('claude-tool-results'));
}

/**
 * Opens `path` when it is Claude Code's persisted copy of `stdout`'s output; `undefined`
 * for anything else (the hook then works from `stdout` alone). Never throws.
 */
export function openPersistedOutput(path: string, stdout: string): PersistedOutput | undefined {
  if (!isAbsolute(path) || stdout.length < MIN_STDOUT_CHARS) return undefined;
  let fd: number;
  try {
    if (!inToolResults(realpathSync(dirname(path)))) return undefined;
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = fstatSync(fd);
    const me = process.geteuid?.();
    const owned = me === undefined || stat.uid === me;
    if (!stat.isFile() || !owned || stat.nlink !== 1 || stat.size > MAX_PERSISTED_BYTES || basename(path).startsWith('.')) {
      closeSync(fd);
      return undefined;
    }
    // The head must be what the host sent: the last character may have been cut in two.
    const expected = Buffer.from(stdout.slice(0, -1), 'utf8');
    const head = Buffer.alloc(expected.length);
    let done = 0;
    while (done < head.length) {
      const n = readSync(fd, head, done, head.length - done, done);
      if (n === 0) break;
      done += n;
    }
    if (done !== expected.length || !head.equals(expected)) {
      closeSync(fd);
      return undefined;
    }
    return { fd, bytes: stat.size };
  } catch {
    closeSync(fd);
    return undefined;
  }
}

/** The file's text in chunks of about 1 MiB, decoded as UTF-8 across chunk edges. Closes the file at the end. */
export function* persistedChunks(file: PersistedOutput): Generator<string> {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.alloc(CHUNK_BYTES);
  let position = 0;
  try {
    for (;;) {
      const n = readSync(file.fd, buffer, 0, buffer.length, position);
      if (n === 0) break;
      position += n;
      const text = decoder.write(buffer.subarray(0, n));
      if (text !== '') yield text;
    }
    const rest = decoder.end();
    if (rest !== '') yield rest;
  } finally {
    closeSync(file.fd);
  }
}
