import { resolve } from 'node:path';
import type { SpillBackend } from '@spillway/core';
import { defaultLocalRoot } from '@spillway/local';
import { localPath, openBackendUrl, schemeOf } from './backend-registry.js';
import { ROOT_ENV } from './options.js';
import { STORE_ENV } from './store.js';

/** The backend a hook stores in, and the local root behind it when there is one (for the automatic cleanup). */
export interface HookBackend {
  readonly backend: SpillBackend;
  readonly root: string | undefined;
}

/**
 * The backend `spillway hook` stores a large output in, chosen through the backend
 * registry as every command chooses: `--store`, else `SPILLWAY_STORE` (unless `--root` is
 * given), else `--root`, else `SPILLWAY_ROOT`, else the default root. A store or root that
 * cannot be used (an unknown scheme, a missing or unsafe directory, a bucket that does not
 * answer) gives way to the private per-user default root, as for `spillway run`, rather
 * than the host's flood.
 */
export async function selectHookBackend(
  args: { readonly root: string | undefined; readonly store: string | undefined },
  io: { readonly env: Readonly<Record<string, string | undefined>>; readonly cwd: string; readonly homedir: string },
): Promise<HookBackend> {
  const { env, cwd } = io;
  const fromEnv = env[STORE_ENV];
  const store = args.store ?? (args.root === undefined && fromEnv !== undefined && fromEnv !== '' ? fromEnv : undefined);
  const rootSetting = args.root ?? env[ROOT_ENV];
  try {
    if (store !== undefined) {
      const backend = await openBackendUrl(store, { env, cwd, setting: args.store === undefined ? STORE_ENV : '--store' });
      await usable(backend);
      return { backend, root: schemeOf(store) === 'file' ? localPath(store, cwd) : undefined };
    }
    if (rootSetting !== undefined && rootSetting !== '') {
      const root = resolve(cwd, rootSetting);
      const backend = await openBackendUrl(root, { env, cwd, setting: args.root === undefined ? ROOT_ENV : '--root' });
      await usable(backend);
      return { backend, root };
    }
  } catch {
    // The default root below.
  }
  const root = defaultLocalRoot(env, io.homedir);
  return { backend: await openBackendUrl(root, { env, cwd, setting: 'the default root', createRoot: true }), root };
}

/** Checks the storage, when the backend can (`root()` of the local and S3 backends). */
async function usable(backend: SpillBackend): Promise<void> {
  const check = (backend as { root?: unknown }).root;
  if (typeof check === 'function') await (check as () => Promise<unknown>).call(backend);
}
