import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { SpillBackend, SpillSearcher } from '@spillway/core';
import { checkOptionNames, DEFAULT_READ_MAX_BYTES, wholeNumberProblem } from '@spillway/core';
import { checkSpillToolOptions } from '@spillway/tools';
import type { SpillProxyEvent } from './diagnostics.js';

/** `maxInlineBytes` when none is given: 32 KiB, as for `spillway run`. */
export const DEFAULT_MAX_INLINE_BYTES = 32_768;
/** The largest single message accepted from the upstream server or the host: 500 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 500 * 1024 * 1024;
/** How long a forwarded request may go without an answer or progress: 5 minutes. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;
/**
 * The matches one `spill_grep` call returns when the model names no `maxMatches`. The
 * bound on every answer, in bytes and matches, is the shared tool implementation's.
 */
export const DEFAULT_MAX_GREP_MATCHES = 100;
/** The `_meta` key that tells Claude Code how large a tool's answers may be before it spills them itself. */
export const MAX_RESULT_SIZE_META_KEY = 'anthropic/maxResultSizeChars';

/** An upstream server started as a child process, spoken to over its stdin/stdout. */
export interface SpillProxyStdioUpstream {
  /** The program (looked up on `PATH`, no shell). */
  readonly command: string;
  /** Its arguments. */
  readonly args?: readonly string[] | undefined;
  /** Its whole environment. Default: this process's environment (`process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Its working directory. Default: this process's. */
  readonly cwd?: string | undefined;
}

/** An upstream server reached over MCP Streamable HTTP. */
export interface SpillProxyHttpUpstream {
  /** The server's MCP endpoint. */
  readonly url: string | URL;
  /** Headers sent with every request, such as `Authorization`. */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** Where the real MCP server is. */
export type SpillProxyUpstream = SpillProxyStdioUpstream | SpillProxyHttpUpstream;

/** Configuration for {@link createSpillProxy}. */
export interface SpillProxyOptions {
  /** The real MCP server. */
  readonly upstream: SpillProxyUpstream;
  /**
   * Where oversized results are stored: any `SpillBackend`. With a `reader`, the proxy adds
   * the `spill_read` and `spill_grep` tools. Without a backend nothing is spilled.
   */
  readonly backend?: SpillBackend | undefined;
  /**
   * The cap, in UTF-8 bytes, on the text of a tool result, a read resource or a prompt.
   * Default {@link DEFAULT_MAX_INLINE_BYTES}.
   */
  readonly maxInlineBytes?: number | undefined;
  /** The session every spill belongs to. Default: a new random id for each proxy. */
  readonly sessionId?: string | undefined;
  /** The host side. Default: this process's stdin/stdout (closed when stdin ends). */
  readonly downstream?: Transport | undefined;
  /**
   * Where the upstream server's stderr and the proxy's own reports go. Default
   * `process.stderr`; `null` discards both (use `onEvent`).
   */
  readonly stderr?: NodeJS.WritableStream | null | undefined;
  /** The largest message accepted from either side. Default {@link DEFAULT_MAX_MESSAGE_BYTES}. */
  readonly maxMessageBytes?: number | undefined;
  /**
   * How long a forwarded request may wait for its answer; progress from the upstream server
   * restarts the clock. Default {@link DEFAULT_REQUEST_TIMEOUT_MS}, which is also the least
   * time the upstream server is given to initialize.
   */
  readonly requestTimeoutMs?: number | undefined;
  /** Byte cap on one `spill_read` answer. Default `DEFAULT_READ_MAX_BYTES` of `@spillway/core`. */
  readonly maxReadBytes?: number | undefined;
  /**
   * How many matches `spill_grep` returns when the model names no `maxMatches`. Default
   * {@link DEFAULT_MAX_GREP_MATCHES}. Every answer stays within the shared tools' own bound.
   */
  readonly maxGrepMatches?: number | undefined;
  /** Passed to the policy: an upper bound on the preview. */
  readonly previewBytes?: number | undefined;
  /** Passed to the policy: how long a save may take before the result is kept. */
  readonly saveTimeoutMs?: number | undefined;
  /** Receives every {@link SpillProxyEvent}. It may throw; the proxy is unaffected. */
  readonly onEvent?: ((event: SpillProxyEvent) => void) | undefined;
  /**
   * What answers `spill_search` over this proxy's session, which the proxy then offers
   * (`spillway mcp` passes one from `@spillway/search` when the backend has a reader and a
   * catalog). Omitted: no `spill_search`.
   */
  readonly search?: SpillSearcher | undefined;
}

/** Every option {@link createSpillProxy} accepts; any other is refused at construction. */
const PROXY_OPTIONS: readonly (keyof SpillProxyOptions)[] = Object.freeze([
  'upstream',
  'backend',
  'maxInlineBytes',
  'sessionId',
  'downstream',
  'stderr',
  'maxMessageBytes',
  'requestTimeoutMs',
  'maxReadBytes',
  'maxGrepMatches',
  'previewBytes',
  'saveTimeoutMs',
  'onEvent',
  'search',
]);

/** The options with every default filled in, checked once by {@link checkOptions}. */
export interface ResolvedOptions {
  readonly upstream: SpillProxyUpstream;
  readonly label: string;
  readonly sessionId: string | undefined;
  readonly stderr: NodeJS.WritableStream | null;
  readonly maxInlineBytes: number;
  readonly maxMessageBytes: number;
  readonly requestTimeoutMs: number;
  readonly maxReadBytes: number;
  readonly maxGrepMatches: number;
}

/** Whether the upstream is reached over HTTP. */
export function isHttp(upstream: SpillProxyUpstream): upstream is SpillProxyHttpUpstream {
  return 'url' in upstream;
}

/** A word as a POSIX shell would need it quoted. */
export function quoteWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}

/** The upstream as a person would type it: the command line, or the URL. */
export function describeUpstream(upstream: SpillProxyUpstream): string {
  if (isHttp(upstream)) return String(upstream.url);
  return [upstream.command, ...(upstream.args ?? [])].map(quoteWord).join(' ');
}

function checkCount(value: number | undefined, name: string, min: number): void {
  const problem = value === undefined ? undefined : wholeNumberProblem(value, { min });
  if (problem !== undefined) throw new TypeError(`createSpillProxy: ${name} ${problem}.`);
}

/** Checks the options (a `TypeError` for a mistake) and fills in the defaults. */
export function checkOptions(options: SpillProxyOptions): ResolvedOptions {
  const given = (options as { upstream?: unknown } | undefined)?.upstream;
  if (typeof given !== 'object' || given === null) throw new TypeError('createSpillProxy: upstream is required.');
  // A misspelt option (`maxReadByte`) would otherwise be silently ignored.
  checkOptionNames('createSpillProxy', options, PROXY_OPTIONS);
  const upstream = given as SpillProxyUpstream;
  if (isHttp(upstream)) {
    // Throws a TypeError for a URL that cannot be parsed.
    new URL(String(upstream.url));
  } else if (typeof upstream.command !== 'string' || upstream.command === '') {
    throw new TypeError('createSpillProxy: upstream.command must be a non-empty string.');
  }
  checkCount(options.maxInlineBytes, 'maxInlineBytes', 0);
  checkCount(options.maxMessageBytes, 'maxMessageBytes', 1024);
  checkCount(options.requestTimeoutMs, 'requestTimeoutMs', 1);
  // The retrieval tools' own option, checked as every surface checks it.
  checkSpillToolOptions({ maxReadBytes: options.maxReadBytes }, { caller: 'createSpillProxy' });
  checkCount(options.maxGrepMatches, 'maxGrepMatches', 1);
  if (options.sessionId === '') throw new TypeError('createSpillProxy: sessionId must be non-empty.');
  return {
    upstream,
    label: describeUpstream(upstream),
    sessionId: options.sessionId,
    stderr: options.stderr === undefined ? process.stderr : options.stderr,
    maxInlineBytes: options.maxInlineBytes ?? DEFAULT_MAX_INLINE_BYTES,
    maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    maxReadBytes: options.maxReadBytes ?? DEFAULT_READ_MAX_BYTES,
    maxGrepMatches: options.maxGrepMatches ?? DEFAULT_MAX_GREP_MATCHES,
  };
}
