import { loadBackendScheme, localPath, openLoadedBackend, registeredBackends, schemeOf, unknownSchemeError } from './backend-registry.js';
import { CliError } from './cli-error.js';
import type { CliBackend } from './context.js';

/** Environment variable naming a store (`--store` wins over it). */
export const STORE_ENV = 'SPILLWAY_STORE';

// @spillway/s3 brings the AWS SDK, which costs more to load than the rest of the CLI
// together; it is loaded only when a store is named (see loadStoreSupport).
let s3: typeof import('@spillway/s3') | undefined;

function s3Module(): typeof import('@spillway/s3') {
  if (s3 === undefined) throw new Error('Object-store support is not loaded: call loadStoreSupport() first.');
  return s3;
}

/** The value of `--store` in `args` (either spelling), or `undefined`. */
function storeArgument(args: readonly string[]): string | undefined {
  for (const [i, arg] of args.entries()) {
    if (arg === '--') return undefined; // a command's own arguments, for `spillway run`
    if (arg === '--store') return args[i + 1];
    if (arg.startsWith('--store=')) return arg.slice('--store='.length);
  }
  return undefined;
}

/**
 * Loads the code behind the stores `args` or the environment name (see
 * {@link loadBackendScheme}), so that commands on a local root never pay for loading the
 * AWS SDK or a third-party module. {@link main} calls it before parsing; an embedder that
 * calls {@link resolveStore} or {@link openStore} directly calls it first, with `force: true`
 * to load the S3 support whatever the arguments say.
 */
export async function loadStoreSupport(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  force = false,
): Promise<void> {
  const named = [storeArgument(args), env[STORE_ENV], force || args.some((a) => a.startsWith('s3://')) ? 's3://' : undefined].filter(
    (url): url is string => url !== undefined && url !== '' && schemeOf(url) !== undefined,
  );
  await Promise.all(named.map((url) => loadBackendScheme(url, env)));
  if (s3 === undefined && named.some((url) => schemeOf(url) === 's3')) s3 = await import('@spillway/s3');
}

/** A store the CLI will use instead of the root of `--root` / `SPILLWAY_ROOT`. */
export interface ResolvedStore {
  /** The URL as given, such as `s3://team-spill/agents`. */
  readonly url: string;
  /** For an `s3://` store: the bucket. */
  readonly bucket?: string;
  /** For an `s3://` store: the key prefix, `''` for the bucket's top level. */
  readonly prefix?: string;
  /** For a `file:` URL: the directory, which the CLI then uses as its root. */
  readonly path?: string;
  /** Which setting chose it: `--store`, `SPILLWAY_STORE`, or the locator a command was given. */
  readonly source: 'option' | 'env' | 'locator';
}

/** The setting a store came from, as messages name it. */
export function storeSetting(store: Pick<ResolvedStore, 'source'>): string {
  return store.source === 'option' ? '--store' : store.source === 'env' ? STORE_ENV : 'the locator';
}

/**
 * Picks the store: `--store`, else `SPILLWAY_STORE`, else none (the local root). A store
 * is a URL whose scheme the backend registry knows: `s3://bucket/prefix`, `file:///dir`,
 * `memory:`, or a scheme registered in `SPILLWAY_BACKENDS`. A plain path is refused (that
 * is what `--root` is for), as is an unknown scheme, with the known ones listed; `--store`
 * together with `--root` is a usage error, since the two name different places.
 */
export function resolveStore(
  option: string | undefined,
  rootOption: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedStore | undefined {
  const fromEnv = env[STORE_ENV];
  const url = option ?? (fromEnv === '' ? undefined : fromEnv);
  if (url === undefined) return undefined;
  const source = option === undefined ? 'env' : 'option';
  const where = storeSetting({ source });
  if (option !== undefined && rootOption !== undefined) {
    throw new CliError('USAGE', '--store and --root name different places; pass one of them.');
  }
  if (option === undefined && rootOption !== undefined) return undefined; // --root wins over the environment
  const scheme = schemeOf(url);
  if (scheme === undefined) {
    throw new CliError('USAGE', `${where} must be a URL such as s3://bucket/prefix, file:///dir or memory:, got '${url}'; for a directory use --root.`);
  }
  if (scheme === 's3') {
    const parsed = s3Module().parseS3StoreUrl(url);
    if (parsed === undefined) throw new CliError('USAGE', `${where} must be an s3://bucket/prefix URL, got '${url}'; for a directory use --root.`);
    return { url, ...parsed, source };
  }
  if (scheme === 'file') return { url, path: localPath(url, '/', where), source };
  if (scheme !== 'memory' && !registeredBackends(env).has(scheme)) throw unknownSchemeError(url, where, env);
  return { url, source };
}

// The session segment of a key: a prefix never holds one (the S3 backend refuses it), so
// what comes before the first one is the store's prefix.
const SESSION_SEGMENT = /^session-[0-9a-f]{16,64}$/;

/**
 * The object store an `s3://` locator lives in, so that a locator spillway printed can be
 * followed with nothing else given: `s3://bucket/a/b/session-<h>/<leaf>` is in
 * `s3://bucket/a/b`. Credentials and the endpoint come from the environment and profiles,
 * as for any store; nothing but the bucket and prefix is read from the locator.
 * `undefined` for any other locator.
 */
export function storeOfLocator(locator: string): ResolvedStore | undefined {
  if (!locator.startsWith('s3://')) return undefined;
  const [bucket = '', ...segments] = locator.slice('s3://'.length).split('/');
  const session = segments.findIndex((segment) => SESSION_SEGMENT.test(segment));
  if (bucket === '' || session === -1 || session !== segments.length - 2) return undefined;
  const prefix = segments.slice(0, session).join('/');
  return { url: `s3://${bucket}${prefix === '' ? '' : `/${prefix}`}`, bucket, prefix, source: 'locator' };
}

/** Options for {@link openStore}. */
export interface OpenStoreOptions {
  /**
   * Let the store print its own warnings (such as the AWS SDK's NodeVersionSupportWarning,
   * nine lines on Node 20, which spillway supports). Default false: they are kept out of
   * the output, which should carry spillway's answer only. `--verbose` sets it.
   */
  readonly verbose?: boolean;
}

/**
 * Opens the backend of a store through the backend registry (see
 * {@link openLoadedBackend}), once {@link loadStoreSupport} has loaded its scheme. For
 * `s3://`, credentials, region and endpoint come from the AWS SDK's standard chain
 * (`AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, `AWS_REGION`, `AWS_ENDPOINT_URL_S3`, shared config
 * files, instance roles…); with a custom endpoint (`AWS_ENDPOINT_URL_S3` or
 * `AWS_ENDPOINT_URL`) requests use path-style addressing and the region defaults to
 * `us-east-1`; `SPILLWAY_S3_PATH_STYLE=0` or `1` decides the addressing explicitly.
 *
 * @throws CliError `USAGE` for a URL the backend refuses, or a backend that cannot read
 * back and list (every command but `run` needs both)
 */
export function openStore(store: ResolvedStore, env: Readonly<Record<string, string | undefined>>, options: OpenStoreOptions = {}): CliBackend {
  const setting = storeSetting(store);
  const backend = openLoadedBackend(store.url, { env, cwd: process.cwd(), setting, verbose: options.verbose === true });
  if (backend.reader === undefined || backend.catalog === undefined) {
    throw new CliError('USAGE', `${setting} '${store.url}' opens the ${backend.name} backend, which cannot ${backend.reader === undefined ? 'read artifacts back' : 'list artifacts'}; spillway needs a backend with a reader and a catalog.`);
  }
  return backend as CliBackend;
}
