import type { S3Backend } from '@spillway/s3';
import { CliError } from './cli-error.js';

/** Environment variable naming an object store (`--store` wins over it). */
export const STORE_ENV = 'SPILLWAY_STORE';

// @spillway/s3 brings the AWS SDK, which costs more to load than the rest of the CLI
// together; it is loaded only when a store is named (see loadStoreSupport).
let s3: typeof import('@spillway/s3') | undefined;

/**
 * Loads the object-store support when `args` or the environment name a store, so that
 * commands on a local root never pay for loading the AWS SDK. {@link main} calls it before
 * parsing; an embedder that calls {@link resolveStore} or {@link openStore} directly calls
 * it first with `force: true`.
 */
export async function loadStoreSupport(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  force = false,
): Promise<void> {
  const named = force || args.some((a) => a === '--store' || a.startsWith('--store=') || a.startsWith('s3://')) || (env[STORE_ENV] ?? '') !== '';
  if (named && s3 === undefined) s3 = await import('@spillway/s3');
}

function s3Module(): typeof import('@spillway/s3') {
  if (s3 === undefined) throw new Error('Object-store support is not loaded: call loadStoreSupport() first.');
  return s3;
}

/** An object store the CLI will use instead of a local root. */
export interface ResolvedStore {
  /** The URL as given, such as `s3://team-spill/agents`. */
  readonly url: string;
  /** The bucket. */
  readonly bucket: string;
  /** The key prefix, `''` for the bucket's top level. */
  readonly prefix: string;
  /** Which setting chose it: `--store`, `SPILLWAY_STORE`, or the locator a command was given. */
  readonly source: 'option' | 'env' | 'locator';
}

/**
 * Picks the object store: `--store`, else `SPILLWAY_STORE`, else none (the local root).
 * Only `s3://bucket[/prefix]` URLs are stores; `--store` together with `--root` is a
 * usage error, since the two name different places.
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
  const where = source === 'option' ? '--store' : STORE_ENV;
  if (option !== undefined && rootOption !== undefined) {
    throw new CliError('USAGE', '--store and --root name different places; pass one of them.');
  }
  if (option === undefined && rootOption !== undefined) return undefined; // --root wins over the environment
  const parsed = s3Module().parseS3StoreUrl(url);
  if (parsed === undefined) {
    throw new CliError('USAGE', `${where} must be an s3://bucket/prefix URL, got '${url}'; for a directory use --root.`);
  }
  return { url, ...parsed, source };
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
   * Let the AWS SDK print its own warnings (such as its NodeVersionSupportWarning, nine
   * lines on Node 20, which spillway supports). Default false: they are kept out of the
   * output, which should carry spillway's answer only. `--verbose` sets it.
   */
  readonly verbose?: boolean;
}

/**
 * Runs `build` (which makes an S3 client) with the SDK's Node version warning switched
 * off unless `verbose` (`AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED`, which the SDK
 * reads when it builds a client). The switch is set only while the client is built and then put
 * back, so commands that `spillway run` starts see the environment they were given.
 */
function quietSdk<T>(verbose: boolean, build: () => T): T {
  if (verbose || process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED !== undefined) return build();
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  try {
    return build();
  } finally {
    delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  }
}

/**
 * Opens the S3 backend for a store. Credentials, region and endpoint come from the AWS
 * SDK's standard chain (`AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, `AWS_REGION`,
 * `AWS_ENDPOINT_URL_S3`, shared config files, instance roles…). With a custom endpoint
 * (`AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`), requests use path-style addressing, as
 * self-hosted stores need, and the region defaults to `us-east-1`;
 * `SPILLWAY_S3_PATH_STYLE=0` or `1` decides the addressing explicitly.
 */
export function openStore(store: ResolvedStore, env: Readonly<Record<string, string | undefined>>, options: OpenStoreOptions = {}): S3Backend {
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const custom = endpoint !== undefined && endpoint !== '';
  const pathStyle = env.SPILLWAY_S3_PATH_STYLE;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  try {
    return quietSdk(options.verbose === true, () => s3Module().createS3Backend({
      bucket: store.bucket,
      prefix: store.prefix,
      ...(custom ? { endpoint } : {}),
      ...(pathStyle === '1' || (pathStyle !== '0' && custom) ? { forcePathStyle: true } : {}),
      ...(region === undefined && custom ? { region: 'us-east-1' } : {}),
    }));
  } catch (error) {
    if (error instanceof TypeError) throw new CliError('USAGE', `${store.source === 'option' ? '--store' : store.source === 'env' ? STORE_ENV : 'the locator'} '${store.url}': ${error.message.replace(/^createS3Backend: /, '')}`);
    throw error;
  }
}
