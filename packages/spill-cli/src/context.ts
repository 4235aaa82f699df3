import { isAbsolute, join } from 'node:path';
import type { Command } from 'commander';
import { sessionId, type SessionId, type SpillBackend, type SpillCatalog, type SpillReader } from '@spillway/core';
import { isLastingStore, openLoadedBackend } from './backend-registry.js';
import { createUsageLog, type UsageEvent, type UsageLog } from '@spillway/usage';
import { colorEnabled, makeStyle, type Style } from './color.js';
import { oneLine } from './cli-error.js';
import type { RefusedRoot } from './fallback-warning.js';
import { resolveRoot, resolveRootFor, resolveSession, type ResolvedRoot } from './options.js';
import { storeIndexPlace, type SearchIndexPlace } from './search-support.js';
import { openStore, resolveStore, storeOfLocator, storeSetting, type ResolvedStore } from './store.js';

/** A stream the CLI writes to: a Node writable that may be a TTY. */
export type OutputStream = NodeJS.WritableStream & { readonly isTTY?: boolean };

/** Everything the CLI touches in its environment, injectable for tests. */
export interface CliIO {
  readonly stdout: OutputStream;
  readonly stderr: OutputStream;
  readonly stdin: NodeJS.ReadableStream & { readonly isTTY?: boolean };
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly homedir: string;
}

/**
 * A backend the CLI can use: it must read back, list and delete as well as save. `root`,
 * when present (the local and S3 backends have it), checks the storage before a command
 * starts.
 */
export type CliBackend = SpillBackend & {
  readonly reader: SpillReader;
  readonly catalog: SpillCatalog;
  root?(): Promise<string>;
};

/** What {@link CliContext.usableFallback} found: the fallback to store in, if any, and the roots refused before it. */
export interface FallbackChoice {
  readonly fallback: { readonly path: string; readonly backend: CliBackend } | undefined;
  readonly refused: readonly RefusedRoot[];
}

/** Makes the backend for a command, given the root it resolved. */
export type BackendFactory = (root: ResolvedRoot) => CliBackend;

/**
 * Makes the backend for an object store (`--store` / `SPILLWAY_STORE`); `options.verbose`
 * is `--verbose` (a store's own warnings are shown only then).
 */
export type StoreFactory = (store: ResolvedStore, env: Readonly<Record<string, string | undefined>>, options?: { readonly verbose?: boolean }) => CliBackend;

/**
 * The default {@link BackendFactory}: the local backend on the root, opened through the
 * backend registry as the plain path it is. Only the default root is created when missing
 * (0700); a root named by `--root`, `SPILLWAY_ROOT` or a `file:` store must already exist.
 * Either way the backend checks it before use and refuses an unsafe one.
 */
export const localBackendFactory: BackendFactory = (root) =>
  openLoadedBackend(root.path, { env: {}, cwd: '/', setting: 'the root', createRoot: root.source === 'default' }) as CliBackend;

/**
 * The options every command accepts. A command that adds its own options extends this
 * type; the values arrive through commander's `opts()`.
 */
export interface CommonOptions {
  /** `--root DIR`. */
  readonly root?: string;
  /** `--store <url>`: `s3://bucket/prefix`, `file:///dir`, `memory:`, or a registered scheme. */
  readonly store?: string;
  /** `--json`, on commands that have it. */
  readonly json?: boolean;
  /** `--debug`: stack traces on failure. */
  readonly debug?: boolean;
  /** `--verbose`: status lines on stderr. */
  readonly verbose?: boolean;
}

const ROOT_SOURCE_LABEL = { option: '--root', env: 'SPILLWAY_ROOT', default: 'the default', locator: 'the locator' } as const;

/** The shared state of one CLI invocation, handed to every command's register function. */
export class CliContext {
  /** The environment. */
  readonly io: CliIO;
  /** Styles for stdout (colour only on a TTY, honouring `NO_COLOR` and `FORCE_COLOR`). */
  readonly out: Style;
  /** Styles for stderr. */
  readonly err: Style;
  /** The exit code the invocation ends with, unless a failure overrides it. */
  exitCode = 0;
  /**
   * The common options of the command being run, recorded before its action starts;
   * `undefined` while the arguments are still being parsed.
   */
  options: CommonOptions | undefined;
  /** Whether `--json` appears among the options, known before parsing (for usage errors). */
  readonly jsonRequested: boolean;

  private readonly makeBackend: BackendFactory;
  private readonly makeStore: StoreFactory;
  private usageLog: UsageLog | undefined;

  /**
   * @param io - the environment to run in
   * @param jsonRequested - whether errors found while parsing should be printed as JSON
   * @param makeBackend - how to open the backend; the local backend unless a test says otherwise
   * @param makeStore - how to open an object store; the S3 backend unless a test says otherwise
   */
  constructor(io: CliIO, jsonRequested = false, makeBackend: BackendFactory = localBackendFactory, makeStore: StoreFactory = openStore) {
    this.io = io;
    this.jsonRequested = jsonRequested;
    this.makeBackend = makeBackend;
    this.makeStore = makeStore;
    this.out = makeStyle(colorEnabled(io.stdout.isTTY === true, io.env));
    this.err = makeStyle(colorEnabled(io.stderr.isTTY === true, io.env));
  }

  /** Writes to stdout, waiting for the stream to drain when its buffer is full. */
  async print(text: string): Promise<void> {
    await writeAll(this.io.stdout, text);
  }

  /** Writes bytes to stdout exactly as given, waiting for the stream to drain when its buffer is full. */
  async printBytes(bytes: Uint8Array): Promise<void> {
    await writeAll(this.io.stdout, bytes);
  }

  /**
   * The descriptor behind stdout when it is the process's own (so that a child can write
   * to it directly), else `undefined` (a stream injected by a test or an embedder).
   */
  get stdoutFd(): number | undefined {
    const fd = (this.io.stdout as { fd?: unknown }).fd;
    return this.io.stdout === process.stdout && typeof fd === 'number' ? fd : undefined;
  }

  /** Writes one `spillway: warning: …` line to stderr. */
  async warn(message: string): Promise<void> {
    await writeAll(this.io.stderr, `${this.err.yellow('spillway: warning:')} ${oneLine(message)}\n`);
  }

  /** Writes one line to stderr, as it is. */
  async note(line: string): Promise<void> {
    await writeAll(this.io.stderr, `${oneLine(line)}\n`);
  }

  /** Writes one `spillway: …` status line to stderr, only under `--verbose`. */
  async info(message: string): Promise<void> {
    if (this.options?.verbose !== true) return;
    await writeAll(this.io.stderr, `${this.err.dim('spillway:')} ${oneLine(message)}\n`);
  }

  /** Records a content-free usage event for `spillway stats` (see `@spillway/usage`); never throws. */
  recordUsage(event: UsageEvent): void {
    this.usageLog ??= createUsageLog({ env: this.io.env, home: this.io.homedir });
    this.usageLog.record(event);
  }

  /**
   * The root for these options (see {@link resolveRoot}); the directory of a `file:` store
   * when `--store` or `SPILLWAY_STORE` names one, since that is a root spelt as a URL.
   */
  root(options: CommonOptions): ResolvedRoot {
    const store = resolveStore(options.store, options.root, this.io.env);
    if (store?.path !== undefined) return { path: store.path, source: store.source === 'env' ? 'env' : 'option' };
    return resolveRoot(options.root, this.io.env, this.io.cwd, this.io.homedir);
  }

  /** The session id for a `--session` value (see {@link resolveSession}). */
  session(option: string | undefined): SessionId {
    return sessionId(resolveSession(option, this.io.env));
  }

  /**
   * The backend these options choose, through the backend registry: the store of `--store`
   * or `SPILLWAY_STORE` when one is named (see {@link resolveStore}; a `file:` store is a
   * root), else the local backend on the root (see {@link localBackendFactory}); with a
   * `locator`, on the root that locator names unless `--root` says otherwise (see
   * {@link resolveRootFor}). Every command that touches storage opens it here.
   */
  backend(options: CommonOptions, locator?: string): CliBackend {
    // A named store wins; else an s3:// locator names its own (unless --root says otherwise).
    const store =
      resolveStore(options.store, options.root, this.io.env) ??
      (locator === undefined || options.root !== undefined ? undefined : storeOfLocator(locator));
    if (store?.path !== undefined) {
      void this.info(`root ${store.path} (from ${storeSetting(store)})`);
      return this.makeBackend(this.root(options));
    }
    if (store !== undefined) {
      void this.info(`store ${store.url} (from ${storeSetting(store)})`);
      return this.makeStore(store, this.io.env, { verbose: options.verbose === true });
    }
    const root =
      locator === undefined ? this.root(options) : resolveRootFor(locator, options.root, this.io.env, this.io.cwd, this.io.homedir);
    void this.info(`root ${root.path} (from ${ROOT_SOURCE_LABEL[root.source]})`);
    return this.makeBackend(root);
  }

  /**
   * The private per-user roots to store in when the store these options choose cannot be
   * used, in order: the default root (created 0700 when missing), unless that is the store
   * that failed; then `spillway-<uid>` in the temp directory (`$TMPDIR`, else `/tmp`; created
   * 0700, and refused like any root when another user holds that name), for a sandbox that
   * lets a command write only there, as Codex's workspace-write sandbox does.
   */
  fallbackBackends(options: CommonOptions): { readonly path: string; readonly backend: CliBackend }[] {
    const root = resolveRoot(undefined, { ...this.io.env, SPILLWAY_ROOT: undefined }, this.io.cwd, this.io.homedir);
    const store = resolveStore(options.store, options.root, this.io.env);
    const chosen = store === undefined || store.path !== undefined ? this.root(options) : undefined;
    const tmp = this.io.env.TMPDIR !== undefined && isAbsolute(this.io.env.TMPDIR) ? this.io.env.TMPDIR : '/tmp';
    const temp: ResolvedRoot = { path: join(tmp, `spillway-${String(process.getuid?.() ?? 'user')}`), source: 'default' };
    return [root, temp].filter((r) => chosen === undefined || r.path !== chosen.path).map((r) => ({ path: r.path, backend: this.makeBackend(r) }));
  }

  /**
   * The first of {@link fallbackBackends} whose root can be used (`spillway run` and
   * `spillway mcp` store there rather than print a flood), or `undefined`; and those tried
   * before it and refused, with why, for the warning (see `fallbackWarning`).
   */
  async usableFallback(options: CommonOptions): Promise<FallbackChoice> {
    const refused: RefusedRoot[] = [];
    for (const fallback of this.fallbackBackends(options)) {
      try {
        await fallback.backend.root?.();
        return { fallback, refused };
      } catch (error) {
        refused.push({ path: fallback.path, error });
      }
    }
    return { fallback: undefined, refused };
  }

  /**
   * Where the search index of the backend these options choose lives, when it is not the
   * place the backend itself answers (its `indexHome`, such as beside a local root): for a
   * store whose artifacts outlive the process (`s3://`, a registered scheme), the user's
   * cache directory unless `cache` is false or `SPILLWAY_SEARCH_CACHE=0` (see
   * {@link storeIndexPlace}). `undefined` for a root, a `file:` store and `memory:`.
   */
  searchIndexPlace(options: CommonOptions, cache = true): SearchIndexPlace | undefined {
    const store = resolveStore(options.store, options.root, this.io.env);
    if (store === undefined || store.path !== undefined || !isLastingStore(store.url)) return undefined;
    return storeIndexPlace(store, this.io.env, this.io.homedir, cache);
  }

  /** The search index file of the backend these options choose, or `':memory:'` (see {@link searchIndexPlace}). */
  async searchIndexLocation(options: CommonOptions, backend: SpillBackend, cache = true): Promise<string> {
    const place = this.searchIndexPlace(options, cache);
    if (place !== undefined) return place.location;
    const { defaultIndexLocation } = await import('@spillway/search');
    return defaultIndexLocation(backend);
  }
}

/**
 * `--debug`, which every command takes (the commands that do not take
 * {@link addCommonOptions}'s set add it alone): a failure's stack trace is what a bug report needs.
 */
export const DEBUG_OPTION = ['--debug', 'print stack traces on failure'] as const;

/** Adds the options every command that uses the store shares: `--root`, `--store`, `--debug`, `--verbose`, and optionally `--json`. */
export function addCommonOptions(command: Command, { json }: { readonly json: boolean }): Command {
  command.option('--root <dir>', 'storage root (default: $SPILLWAY_ROOT, else $XDG_STATE_HOME/spillway, else ~/.local/state/spillway)');
  command.option('--store <url>', 'store instead of a root: s3://bucket/prefix, file:///dir, memory:, or a scheme of $SPILLWAY_BACKENDS (default: $SPILLWAY_STORE)');
  if (json) command.option('--json', 'print one JSON document instead of text (see docs/cli.md)');
  command.option('--verbose', 'print status lines on stderr');
  command.option(...DEBUG_OPTION);
  return command;
}

async function writeAll(stream: OutputStream, text: string | Uint8Array): Promise<void> {
  if (text.length === 0 || stream.write(text)) return;
  await new Promise<void>((resolve) => {
    // A broken or closed stream never drains: its error or close ends the wait too.
    const done = (): void => {
      stream.off('drain', done);
      stream.off('error', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('error', done);
    stream.on('close', done);
  });
}
