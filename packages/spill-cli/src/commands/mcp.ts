import { Command } from 'commander';
import type { SpillReader } from '@spillway/core';
import type { SpillProxyUpstream } from '@spillway/mcp';
import { startAutoGc } from '../auto-gc.js';
import { CliError } from '../cli-error.js';
import { fallbackWarning } from '../fallback-warning.js';
import { addCommonOptions, type CliBackend, type CliContext, type CommonOptions } from '../context.js';
import { EXIT_CODES } from '../exit-codes.js';
import { lazySearcher } from '../search-support.js';
import { resolveStore } from '../store.js';
import { DEFAULT_MAX_INLINE_BYTES, nonNegativeInt, positiveInt, SESSION_ENV } from '../options.js';

interface McpOptions extends CommonOptions {
  readonly maxInlineBytes: number;
  readonly session?: string;
  readonly url?: string;
  readonly header?: string[];
  readonly timeout?: number;
  readonly maxMessageBytes?: number;
  readonly host?: string;
  readonly search: boolean;
  /** `--no-index-cache` makes it false. */
  readonly indexCache: boolean;
}

const EXAMPLES = `
Examples:
  $ spillway mcp -- npx -y @modelcontextprotocol/server-filesystem /srv/data
  $ spillway mcp --max-inline-bytes 16384 -- uvx mcp-server-fetch
  $ spillway mcp --url https://mcp.example.com/mcp --header "Authorization: Bearer $TOKEN"
  $ claude mcp add files -- spillway mcp -- npx -y @modelcontextprotocol/server-filesystem ~/src

An MCP server on stdin/stdout that forwards everything to the server it wraps, except
that a tool result over --max-inline-bytes is stored and replaced by a preview plus a
notice, and two tools are added to get it back: spill_read and spill_grep (an upstream
tool with either name is offered as upstream_<name>). spill_search, also added (unless
--no-search), ranks snippets across every spill of the session by words. Spills of one proxy process share
one session unless --session or SPILLWAY_SESSION names one; \`spillway ls\` and
\`spillway gc\` see them like any other. Diagnostics go to stderr, never stdout.
`;

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** Parses `--header 'Name: value'` options into a header record. */
export function parseHeaders(values: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    const name = colon === -1 ? '' : value.slice(0, colon).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      throw new CliError('USAGE', `--header expects 'Name: value', got '${value}'.`);
    }
    headers[name] = value.slice(colon + 1).trim();
  }
  return headers;
}

/** Registers `spillway mcp`: an MCP proxy that spills oversized tool results. */
export function registerMcp(program: Command, ctx: CliContext): void {
  const command = program
    .command('mcp')
    .description('Wrap an MCP server so that oversized tool results are spilled (for any MCP host).')
    .argument('[command]', 'the MCP server to run (looked up on PATH, no shell); or use --url')
    .argument('[args...]', 'its arguments')
    .option('--url <url>', 'wrap a Streamable HTTP MCP server instead of a command')
    .option('--header <header>', "an HTTP header for --url, as 'Name: value' (repeatable)", collect)
    .option('--max-inline-bytes <bytes>', 'largest tool result text, in UTF-8 bytes, passed on in full', nonNegativeInt, DEFAULT_MAX_INLINE_BYTES)
    .option('--session <id>', 'the owning session (default: $SPILLWAY_SESSION, else a new one per proxy process)')
    .option('--timeout <ms>', 'how long a forwarded request may go without an answer or progress (default 300000)', positiveInt)
    .option('--max-message-bytes <bytes>', 'largest single message accepted from either side (default 500 MiB)', positiveInt)
    .option('--host <name>', 'the agent host running the proxy, as spillway stats names it (spillway setup writes it)')
    .option('--no-search', 'do not offer spill_search (ranked search across the session\'s spills)')
    .option('--no-index-cache', 'for an object store: keep the search index in memory only, not in the cache directory')
    .passThroughOptions();
  addCommonOptions(command, { json: false });
  command.addHelpText('after', EXAMPLES);
  command.action(async (file: string | undefined, args: string[], options: McpOptions) => {
    const upstream = upstreamFrom(file, args, options, ctx.io.env);
    const fromEnv = ctx.io.env[SESSION_ENV];
    const sessionId = options.session !== undefined || (fromEnv !== undefined && fromEnv !== '') ? ctx.session(options.session) : undefined;
    const chosen = await usableBackend(ctx, options);
    const backend = withReadUsage(chosen.backend, ctx, options.host);
    // The automatic cleanup and index work on a local root, never on an object store.
    const rootPath = chosen.root;
    // Loaded here: the MCP SDK costs more to load than every other command needs.
    const { createSpillProxy, isSpillProxyError } = await import('@spillway/mcp');
    const proxy = createSpillProxy({
      upstream,
      backend,
      maxInlineBytes: options.maxInlineBytes,
      sessionId,
      stderr: ctx.io.stderr,
      requestTimeoutMs: options.timeout,
      maxMessageBytes: options.maxMessageBytes,
      onEvent: (event) => {
        if (event.type !== 'spill') return;
        const spill = event.event;
        if (spill.type === 'spilled' || spill.type === 'kept') {
          const artifact = spill.type === 'spilled' ? spill.locator : undefined;
          ctx.recordUsage({ kind: spill.type, surface: 'mcp', host: options.host, tool: spill.toolName, session: proxy.sessionId, artifact, bytes: spill.bytes, shownBytes: spill.type === 'spilled' ? spill.shownBytes : undefined });
        }
        // Storage grew: a sweep may be due, in a detached child that never delays an answer.
        if (spill.type === 'spilled' && rootPath !== undefined) {
          setImmediate(() => {
            void sweepIfDue(ctx, rootPath);
            // A searched store's index is brought up to date in a detached child.
            void import('../auto-index.js').then(({ startAutoIndex }) => startAutoIndex(rootPath, proxy.sessionId, ctx.io.env, ctx.io.homedir)).catch(() => undefined);
          });
        }
      },
      // The proxy keeps one index for its life; over an object store it starts from the
      // user's cache, so a new proxy reads only what changed since the last one.
      search: options.search ? lazySearcher(backend, ctx.searchIndexPlace(options, options.indexCache)) : undefined,
    });
    await ctx.info(`session ${proxy.sessionId}`);
    const stop = (): void => {
      void proxy.close();
    };
    const signals = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
    for (const signal of signals) process.once(signal, stop);
    try {
      try {
        await proxy.start();
      } catch (error) {
        // start() has answered the host and printed the reason.
        const code = (error as { cause?: { code?: unknown } }).cause?.code;
        ctx.exitCode = code === 'ENOENT' ? EXIT_CODES.COMMAND_NOT_FOUND : code === 'EACCES' ? EXIT_CODES.COMMAND_NOT_EXECUTABLE : EXIT_CODES.FAILURE;
        if (!isSpillProxyError(error)) throw error;
        return;
      }
      const exit = await proxy.closed;
      ctx.exitCode = exit.reason === 'upstream-closed' ? EXIT_CODES.FAILURE : EXIT_CODES.OK;
    } finally {
      for (const signal of signals) process.off(signal, stop);
    }
  });
}

function upstreamFrom(
  file: string | undefined,
  args: readonly string[],
  options: McpOptions,
  env: Readonly<Record<string, string | undefined>>,
): SpillProxyUpstream {
  if (options.url !== undefined) {
    if (file !== undefined) throw new CliError('USAGE', 'Give either --url or a command after --, not both.');
    let url: URL;
    try {
      url = new URL(options.url);
    } catch {
      throw new CliError('USAGE', `--url expects an http:// or https:// URL, got '${options.url}'.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new CliError('USAGE', `--url expects an http:// or https:// URL, got '${options.url}'.`);
    }
    return { url, headers: parseHeaders(options.header ?? []) };
  }
  if (options.header !== undefined) throw new CliError('USAGE', '--header only applies to --url.');
  if (file === undefined || file === '') {
    throw new CliError('USAGE', 'Name the MCP server to wrap: spillway mcp -- <command> [args…], or spillway mcp --url <url>.');
  }
  return { command: file, args: [...args], env };
}

/** The backend with its reader recording each read and grep for `spillway stats`. */
/**
 * The configured store, or when its root cannot be used (missing, unsafe), the private
 * per-user fallback root that `spillway run` and the hooks use too: no flood while any
 * store can be written. Only when neither can be does the proxy pass results on in full.
 */
/** The backend the proxy stores in, and the local root behind it when there is one. */
async function usableBackend(ctx: CliContext, options: McpOptions): Promise<{ backend: CliBackend; root: string | undefined }> {
  const configured = ctx.backend(options);
  const store = resolveStore(options.store, options.root, ctx.io.env);
  const configuredRoot = store === undefined ? ctx.root(options).path : store.path;
  const failure = await rootFailure(configured);
  if (failure === undefined) return { backend: configured, root: configuredRoot };
  const { fallback, refused } = await ctx.usableFallback(options);
  if (fallback !== undefined) {
    await ctx.warn(fallbackWarning(failure, refused, `results are stored in the fallback root ${fallback.path} instead.`));
    return { backend: fallback.backend, root: fallback.path };
  }
  // The proxy still serves; every spill keeps its result, as the policy does.
  await ctx.warn(fallbackWarning(failure, refused, 'results are passed on in full, without spilling.'));
  return { backend: configured, root: undefined };
}

/** Why a backend's root cannot be used, or `undefined` when it can (or has no root). */
async function rootFailure(backend: CliBackend): Promise<unknown> {
  try {
    await backend.root?.();
    return undefined;
  } catch (error) {
    return error;
  }
}

function withReadUsage(backend: CliBackend, ctx: CliContext, host: string | undefined): CliBackend {
  const reader: SpillReader = Object.create(backend.reader) as SpillReader;
  reader.read = (locator, options) => {
    ctx.recordUsage({ kind: 'read', surface: 'mcp', host, artifact: locator });
    return backend.reader.read(locator, options);
  };
  reader.grep = (locator, pattern, options) => {
    ctx.recordUsage({ kind: 'read', surface: 'mcp', host, artifact: locator });
    return backend.reader.grep(locator, pattern, options);
  };
  return { ...backend, reader };
}

async function sweepIfDue(ctx: CliContext, root: string): Promise<void> {
  try {
    const { autoGcSettings } = await import('../auto-gc.js');
    const { parseByteSize, parseDuration } = await import('@spillway/retention');
    startAutoGc(root, autoGcSettings(ctx.io.env, ctx.io.homedir, parseDuration, parseByteSize), ctx.io.env);
  } catch {
    // Retention is best effort; the proxy goes on.
  }
}
