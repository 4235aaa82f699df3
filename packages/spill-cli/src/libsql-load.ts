/**
 * Loads `libsql` for the search bundle (scripts/bundle-fast-paths.mjs) with the binary its
 * own loader picks, without what that loader spends, on every process, to tell glibc from
 * musl: `@neon-rs/load` asks Node for a whole diagnostic report
 * (`process.report.getReport()`, about 7 ms) and `detect-libc` loads `node:child_process`
 * (about 5 ms).
 *
 * libsql 0.5.29 picks `@libsql/linux-<arch>-gnu` on Linux x64 and arm64 when the report
 * shows a glibc build of Node, and also, whatever the report says, when `detect-libc`'s
 * `familySync()` answers glibc. That function answers from `/usr/bin/ldd` first: glibc when
 * the file holds `GLIBC` and not `musl`. So when `/usr/bin/ldd` reads so, the binary is
 * the gnu one, which the report cannot change. Only then are the two modules answered
 * without being loaded, while libsql loads; anywhere else libsql loads as it would.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { Module } from 'node:module';
import { basename, dirname, join } from 'node:path';

/** Where `detect-libc` 2.0.2 reads the family from first. */
const LDD_PATH = '/usr/bin/ldd';

/** What {@link libsqlTarget} looks at: the process's platform and environment, and the ldd script. */
export interface LibcFacts {
  readonly platform: NodeJS.Platform;
  readonly arch: string;
  readonly env: NodeJS.ProcessEnv;
  /** The text of `/usr/bin/ldd`; `undefined` when it cannot be read. */
  readonly ldd: () => string | undefined;
}

function readLdd(): string | undefined {
  try {
    return readFileSync(LDD_PATH, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The `@libsql/…` package libsql's loader is bound to choose, when that follows from the
 * ldd script alone (see the top of this file); `undefined` when it would have to ask.
 */
export function libsqlTarget(facts: LibcFacts = { platform: process.platform, arch: process.arch, env: process.env, ldd: readLdd }): string | undefined {
  if (facts.platform !== 'linux' || (facts.arch !== 'x64' && facts.arch !== 'arm64')) return undefined;
  // The loader's development mode loads a binary from libsql's own folder.
  if (facts.env['LIBSQL_JS_DEV'] !== undefined && facts.env['LIBSQL_JS_DEV'] !== '') return undefined;
  const ldd = facts.ldd();
  // detect-libc's reading of the file: musl first, then glibc.
  if (ldd === undefined || ldd.includes('musl') || !ldd.includes('GLIBC')) return undefined;
  return `linux-${facts.arch}-gnu`;
}

/**
 * The real directory of package `name` as `require` from a file in `dir` finds it: in the
 * first `node_modules` folder above `dir` that holds it. `undefined` when none does (Node
 * would then try its global folders) or symbolic links are preserved.
 */
export function installedPackageDir(dir: string, name: string): string | undefined {
  if (process.execArgv.includes('--preserve-symlinks') || (process.env['NODE_PRESERVE_SYMLINKS'] ?? '') !== '') return undefined;
  for (let at = dir; ; at = dirname(at)) {
    if (basename(at) !== 'node_modules') {
      const candidate = join(at, 'node_modules', name);
      if (statSync(join(candidate, 'package.json'), { throwIfNoEntry: false })?.isFile() === true) return realpathSync(candidate);
    }
    if (dirname(at) === at) return undefined;
  }
}

/**
 * The file `require('libsql')` loads, with `@spillway/search`'s `package.json` (which the
 * bundle requires it from), found without Node's resolution of `exports`: its first use in
 * a process loads Node's ES module resolver, about 10 ms of a search. Only where the answer
 * is the same: each package found in a `node_modules` folder above the last, and libsql's
 * `exports` mapping `.` to one file for every condition, as 0.5.29's does (`types` aside).
 * `undefined` otherwise, for Node to resolve.
 */
export function libsqlEntryFrom(file: string, owner = '@spillway/search'): { readonly owner: string; readonly entry: string } | undefined {
  try {
    const ownerDir = installedPackageDir(dirname(file), owner);
    if (ownerDir === undefined) return undefined;
    const libDir = installedPackageDir(ownerDir, 'libsql');
    if (libDir === undefined) return undefined;
    const pkg = JSON.parse(readFileSync(join(libDir, 'package.json'), 'utf8')) as { exports?: unknown };
    const dot = typeof pkg.exports === 'object' && pkg.exports !== null ? (pkg.exports as Record<string, unknown>)['.'] : undefined;
    if (typeof dot !== 'object' || dot === null) return undefined;
    const conditions = Object.entries(dot as Record<string, unknown>).filter(([key]) => key !== 'types');
    const [only] = conditions;
    if (conditions.length !== 1 || only === undefined || only[0] !== 'default' || typeof only[1] !== 'string' || !only[1].startsWith('./')) return undefined;
    const entry = join(libDir, only[1]);
    if (statSync(entry, { throwIfNoEntry: false })?.isFile() !== true) return undefined;
    return { owner: join(ownerDir, 'package.json'), entry: realpathSync(entry) };
  } catch {
    return undefined;
  }
}

/**
 * Requires `libsql` for the search bundle at `file` as `@spillway/search` would: found by
 * {@link libsqlEntryFrom} where it can be, else through Node's resolution; loaded by
 * {@link requireLibsql}.
 */
export function requireLibsqlFrom(file: string): unknown {
  const found = libsqlEntryFrom(file);
  if (found !== undefined) return requireLibsql(Module.createRequire(found.owner), libsqlTarget(), found.entry);
  return requireLibsql(Module.createRequire(Module.createRequire(file).resolve('@spillway/search/package.json')));
}

/**
 * Requires `libsql` as `ownerRequire` finds it (from the package that depends on it), with
 * `@neon-rs/load` and `detect-libc` answering for the binary {@link libsqlTarget} names
 * while it loads; afterwards the module cache holds what it held, and libsql. When the
 * target is not known, or libsql fails to load so, it is required as it is. `knownEntry`
 * is the file `ownerRequire.resolve('libsql')` answers, when already known.
 */
export function requireLibsql(ownerRequire: NodeJS.Require, target = libsqlTarget(), knownEntry?: string): unknown {
  // By its file, when known: the same module as by name, without resolving the name again.
  const plain = (): unknown => ownerRequire(knownEntry ?? 'libsql');
  if (target === undefined) return plain();
  let entry: string;
  let stand: { file: string; exports: unknown }[];
  try {
    entry = knownEntry ?? ownerRequire.resolve('libsql');
    const libRequire = Module.createRequire(entry);
    stand = [
      { file: libRequire.resolve('@neon-rs/load'), exports: { currentTarget: () => target, load: unexpected } },
      { file: libRequire.resolve('detect-libc'), exports: { GLIBC: 'glibc', MUSL: 'musl', familySync: () => 'glibc' } },
    ];
  } catch {
    return plain();
  }
  const cache = ownerRequire.cache;
  // A module already loaded is what libsql gets anyway.
  const placed = stand.filter(({ file }) => cache[file] === undefined);
  for (const { file, exports } of placed) {
    const stood = new Module(file);
    stood.filename = file;
    stood.exports = exports;
    stood.loaded = true;
    cache[file] = stood;
  }
  let loaded: { libsql: unknown } | undefined;
  try {
    loaded = { libsql: ownerRequire(entry) };
  } catch {
    // Loaded as it is below, once the stand-ins are gone.
  }
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- deleting is how Node's documentation removes a require.cache entry
  for (const { file } of placed) delete cache[file];
  return loaded === undefined ? plain() : loaded.libsql;
}

/** `@neon-rs/load`'s `load`, which libsql calls only in development mode, where nothing stands in. */
function unexpected(): never {
  throw new Error('libsql asked for its development binary while its loader was answered for a release binary');
}
