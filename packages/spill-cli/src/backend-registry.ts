/**
 * The one registry of backends by URL. `spillway`'s commands (`--root`, `--store`,
 * `SPILLWAY_STORE`, a followed locator), its host hooks and `spillway mcp` all open their
 * backend here, so a backend selectable in one is selectable in all. A scheme's code is
 * loaded only when a URL names it: the AWS SDK behind `s3://` costs more to load than the
 * rest of the CLI, and a third-party module is code that runs only when asked for.
 */
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { assertSpillBackendVersion, type SpillBackend } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { CliError } from './cli-error.js';

/**
 * Environment variable that registers third-party backends: comma-separated
 * `scheme=module` pairs, such as `acme=@acme/spillway-backend` or
 * `acme=/opt/acme/backend.js`. The module exports a {@link BackendUrlFactory} named
 * `createSpillwayBackend`; `--store acme://…` then opens it.
 */
export const BACKENDS_ENV = 'SPILLWAY_BACKENDS';

/** The name of the {@link BackendUrlFactory} a third-party backend module exports. */
export const BACKEND_FACTORY_EXPORT = 'createSpillwayBackend';

/** What a backend factory is told besides the URL. */
export interface BackendUrlContext {
  /** The environment, for credentials and settings the URL does not carry. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The directory a plain path is relative to. */
  readonly cwd: string;
  /** The setting that named the URL, for messages: `--store`, `SPILLWAY_STORE`, `--root`… Default `the store URL`. */
  readonly setting?: string;
  /** Whether the backend may print its own warnings (`--verbose`). Default false. */
  readonly verbose?: boolean;
  /** For a directory: create it (0700) when missing. Default false: a named root must exist. */
  readonly createRoot?: boolean;
}

/**
 * Makes a backend for a URL of its scheme, such as `acme://bucket/prefix?region=eu`. It
 * is called synchronously each time a command opens the store: anything slow (a
 * connection, a check of the storage) belongs in the backend's methods. A URL it cannot
 * use throws a `TypeError` saying what is wrong, which the CLI reports as a usage error.
 */
export type BackendUrlFactory = (url: URL, context: BackendUrlContext) => SpillBackend;

/** Opens a URL of one scheme, given the URL as typed. */
type Opener = (text: string, context: BackendUrlContext) => SpillBackend;

interface BuiltInScheme {
  /** How the scheme is written, for the list of known schemes. */
  readonly example: string;
  /** Whether the store's artifacts outlive the process (an on-disk search cache is worth keeping). */
  readonly lasting: boolean;
  readonly load: () => Promise<Opener>;
}

// The local backend is loaded with the registry: every command needs it (for its fallback
// root at least), and the hook imports the registry only once it has a large output to store.
const openLocal: Opener = (text, context) =>
  createLocalBackend({ root: localPath(text, context.cwd, context.setting), createRoot: context.createRoot === true });

const BUILT_IN: Readonly<Record<string, BuiltInScheme>> = {
  file: {
    example: 'file:///dir',
    lasting: true,
    load: () => Promise.resolve(openLocal),
  },
  s3: {
    example: 's3://bucket/prefix',
    lasting: true,
    load: async () => (await import('./s3-store.js')).openS3Url,
  },
  memory: {
    example: 'memory:',
    lasting: false,
    load: async () => {
      const { createMemoryBackend } = await import('@spillway/memory');
      return () => createMemoryBackend();
    },
  },
};

// A scheme as RFC 3986 writes it, two characters or more: `C:\dir` is a path.
const SCHEME = /^([A-Za-z][A-Za-z0-9+.-]+):/;

/** The scheme of a URL, lower-cased and without the colon; `undefined` for a plain path. */
export function schemeOf(text: string): string | undefined {
  return SCHEME.exec(text)?.[1]?.toLowerCase();
}

/** The directory a `file:` URL or a plain path names, absolute. */
export function localPath(text: string, cwd: string, setting = 'the store URL'): string {
  if (schemeOf(text) === undefined) return resolve(cwd, text);
  try {
    return fileURLToPath(text);
  } catch (error) {
    throw new CliError('USAGE', `${setting} '${text}' is not a usable file: URL (${error instanceof Error ? error.message : String(error)}); write file:///absolute/dir.`);
  }
}

/**
 * Whether the artifacts of the store `text` names outlive the process: false for
 * `memory:`, whose data (and so any search index of it) dies with the process.
 */
export function isLastingStore(text: string): boolean {
  const scheme = schemeOf(text) ?? 'file';
  return BUILT_IN[scheme]?.lasting ?? true;
}

/**
 * The third-party schemes `SPILLWAY_BACKENDS` registers, scheme → module specifier.
 *
 * @throws CliError `USAGE` for a malformed entry, a built-in scheme, or a relative module path.
 */
export function registeredBackends(env: Readonly<Record<string, string | undefined>>): ReadonlyMap<string, string> {
  const out = new Map<string, string>();
  for (const entry of (env[BACKENDS_ENV] ?? '').split(',')) {
    const trimmed = entry.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    const scheme = (eq < 0 ? '' : trimmed.slice(0, eq).trim().replace(/:$/, '')).toLowerCase();
    const specifier = eq < 0 ? '' : trimmed.slice(eq + 1).trim();
    const example = `write scheme=module, such as acme=@acme/spillway-backend or acme=/opt/acme/backend.js`;
    if (!/^[a-z][a-z0-9+.-]+$/.test(scheme) || specifier === '') {
      throw new CliError('USAGE', `${BACKENDS_ENV} entry '${trimmed}' is not scheme=module; ${example}.`);
    }
    if (BUILT_IN[scheme] !== undefined) {
      throw new CliError('USAGE', `${BACKENDS_ENV} cannot register '${scheme}:', which is built in; pick another scheme for the module ${specifier}.`);
    }
    // A relative path would load whatever the current directory (perhaps a checkout
    // nobody vetted) holds under that name.
    if (specifier.startsWith('.') || (!isAbsolute(specifier) && schemeOf(specifier) !== undefined && schemeOf(specifier) !== 'file')) {
      throw new CliError('USAGE', `${BACKENDS_ENV} maps '${scheme}:' to '${specifier}'; give a package name, an absolute path or a file: URL.`);
    }
    out.set(scheme, specifier);
  }
  return out;
}

/** The known schemes as a reader would write them, for messages: built-ins first, then registered ones. */
export function knownSchemes(env: Readonly<Record<string, string | undefined>>): string {
  const builtIn = Object.values(BUILT_IN).map((s) => s.example);
  let registered: string[];
  try {
    registered = [...registeredBackends(env).keys()].map((scheme) => `${scheme}: (from ${BACKENDS_ENV})`);
  } catch {
    registered = [`none: ${BACKENDS_ENV} is malformed`];
  }
  return [...builtIn, ...registered].join(', ');
}

type Loaded = { readonly open: Opener } | { readonly error: unknown };
// Schemes being loaded, and the results once known (for the synchronous open), keyed by
// scheme and, for a registered one, its module: each is imported once per process.
const loading = new Map<string, Promise<void>>();
const loaded = new Map<string, Loaded>([['file', { open: openLocal }]]);

/** The `USAGE` error for a URL whose scheme nobody registered, listing the known schemes. */
export function unknownSchemeError(text: string, setting: string, env: Readonly<Record<string, string | undefined>>): CliError {
  const scheme = schemeOf(text) ?? '';
  return new CliError(
    'USAGE',
    `${setting} '${text}' names the unknown scheme '${scheme}:'; known: ${knownSchemes(env)}. Register a third-party backend with ${BACKENDS_ENV}=${scheme}=<module>.`,
  );
}

function cacheKey(scheme: string, env: Readonly<Record<string, string | undefined>>): string | undefined {
  if (BUILT_IN[scheme] !== undefined) return scheme;
  const specifier = registeredBackends(env).get(scheme);
  return specifier === undefined ? undefined : `${scheme}=${specifier}`;
}

async function loadRegistered(scheme: string, specifier: string): Promise<Opener> {
  const target = isAbsolute(specifier) ? pathToFileURL(specifier).href : specifier;
  let module: Record<string, unknown>;
  try {
    // A package name resolves from spillway's own installation, never from the current
    // directory: install the backend beside spillway (globally, or in the same project).
    module = (await import(target)) as Record<string, unknown>;
  } catch (error) {
    throw new CliError('USAGE', `${BACKENDS_ENV} maps '${scheme}:' to '${specifier}', which could not be loaded (${error instanceof Error ? error.message : String(error)}); install it where spillway is installed, or give its absolute path.`, undefined, { cause: error });
  }
  const factory = module[BACKEND_FACTORY_EXPORT];
  if (typeof factory !== 'function') {
    throw new CliError('USAGE', `The module '${specifier}' registered for '${scheme}:' exports no ${BACKEND_FACTORY_EXPORT} function; a backend module exports ${BACKEND_FACTORY_EXPORT}(url, context).`);
  }
  return (text, context) => (factory as BackendUrlFactory)(new URL(text), context);
}

/**
 * Loads the code behind the scheme of `text` (a URL or a plain path), once per process.
 * Never rejects: a failure (an unknown scheme, a module that cannot be loaded) is kept and
 * thrown by {@link openLoadedBackend}, where the setting that named the URL is known.
 */
export async function loadBackendScheme(text: string, env: Readonly<Record<string, string | undefined>>): Promise<void> {
  const scheme = schemeOf(text) ?? 'file';
  let key: string | undefined;
  try {
    key = cacheKey(scheme, env);
  } catch {
    return; // a malformed SPILLWAY_BACKENDS: reported when the URL is opened
  }
  if (key === undefined) return;
  const known = key;
  let pending = loading.get(known);
  if (pending === undefined) {
    const builtIn = BUILT_IN[scheme];
    const load = builtIn === undefined ? loadRegistered(scheme, registeredBackends(env).get(scheme) ?? '') : builtIn.load();
    pending = load.then(
      (open) => void loaded.set(known, { open }),
      (error: unknown) => void loaded.set(known, { error }),
    );
    loading.set(known, pending);
  }
  await pending;
}

/**
 * Opens the backend `text` names, synchronously, once {@link loadBackendScheme} has loaded
 * its scheme: a plain path or `file:` URL is the local backend on that directory,
 * `s3://bucket/prefix` the S3 backend, `memory:` a memory backend of its own, and a scheme
 * registered in `SPILLWAY_BACKENDS` its module's factory. The backend's specification
 * version is checked.
 *
 * @throws CliError `USAGE` for an unknown scheme (the message lists the known ones), a
 * malformed URL or setting, or a module that could not be loaded
 * @throws SpillError `SPILL_INVALID_INPUT` when the backend declares a specification
 * version this release does not speak
 */
export function openLoadedBackend(text: string, context: BackendUrlContext): SpillBackend {
  const scheme = schemeOf(text) ?? 'file';
  const key = cacheKey(scheme, context.env);
  if (key === undefined) throw unknownSchemeError(text, context.setting ?? 'the store URL', context.env);
  const state = loaded.get(key);
  if (state === undefined) throw new Error(`The backend scheme '${scheme}:' is not loaded: await loadBackendScheme() first.`);
  if ('error' in state) throw state.error;
  let backend: SpillBackend;
  try {
    backend = state.open(text, context);
  } catch (error) {
    if (error instanceof TypeError) {
      throw new CliError('USAGE', `${context.setting ?? 'the store URL'} '${text}': ${error.message.replace(/^create\w*Backend: /, '')}`, undefined, { cause: error });
    }
    throw error;
  }
  assertSpillBackendVersion(backend, `spillway (the ${scheme}: backend)`);
  return backend;
}

/** {@link loadBackendScheme} then {@link openLoadedBackend}: the backend `text` names. */
export async function openBackendUrl(text: string, context: BackendUrlContext): Promise<SpillBackend> {
  await loadBackendScheme(text, context.env);
  return openLoadedBackend(text, context);
}
