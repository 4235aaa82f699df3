// Loads a bundled fast path with V8's code cache. Compiling a bundle is most of what loading
// it costs (the search bundle: about 25 ms, with the cache about 10), and the functions a
// command runs are compiled again in every process. The cache is V8's serialized bytecode,
// written after the first run and read back by the next ones.
//
// What it trusts: the cache is read only from a regular file of the user's own, writable by
// nobody else, in a private directory of theirs, so only a process of theirs wrote it. V8
// checks its own version and flags and the source's length, not the source: the file starts
// with a key (Node's version, the bundle's device, inode, size and change time, which every
// rewrite of the bundle moves), and another key means the cache is not used. Any fault here
// falls back to a plain require and is never reported: the cache only saves time.
'use strict';
const fs = require('node:fs');
const Module = require('node:module');
const { basename, dirname, isAbsolute, join, resolve } = require('node:path');
const { pathToFileURL } = require('node:url');
const vm = require('node:vm');

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW } = fs.constants;
/** Bigger than any bundle's cache: a larger file is not spillway's. */
const MAX_CACHE_BYTES = 64 * 1024 * 1024;

/**
 * Where the caches are kept, or undefined when they are off (SPILLWAY_CODE_CACHE=0, or
 * Node's own NODE_DISABLE_COMPILE_CACHE), when V8 collects coverage (which wants every
 * function compiled afresh) or when they cannot be checked (no effective user id).
 */
function cacheDir(env) {
  const off = env.SPILLWAY_CODE_CACHE === '0' || (env.NODE_DISABLE_COMPILE_CACHE ?? '') !== '' || (env.NODE_V8_COVERAGE ?? '') !== '';
  if (off || typeof process.geteuid !== 'function') return undefined;
  const xdg = env.XDG_CACHE_HOME;
  if (xdg !== undefined && isAbsolute(xdg)) return join(xdg, 'spillway', 'code');
  return env.HOME !== undefined && isAbsolute(env.HOME) ? join(env.HOME, '.cache', 'spillway', 'code') : undefined;
}

/** A directory of the user's own that nobody else may enter. */
function isPrivateDir(dir) {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  return st !== undefined && st.isDirectory() && st.uid === process.geteuid() && (st.mode & 0o077) === 0;
}

/** The cached data after `key`, when `path` is the user's own file that only they may write. */
function readCache(path, key) {
  let fd;
  try {
    fd = fs.openSync(path, O_RDONLY | O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.uid !== process.geteuid() || (st.mode & 0o022) !== 0 || st.size > MAX_CACHE_BYTES) return undefined;
    const bytes = Buffer.allocUnsafe(st.size);
    let got = 0;
    for (let n; got < bytes.length && (n = fs.readSync(fd, bytes, got, bytes.length - got, got)) > 0; ) got += n;
    const head = Buffer.byteLength(key);
    if (got !== bytes.length || got <= head || bytes.toString('latin1', 0, head) !== key) return undefined;
    return bytes.subarray(head);
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes the script's code cache after `key`, through a private temporary file renamed into place. */
function writeCache(dir, path, key, script) {
  let tmp;
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(dir)) return;
    const data = script.createCachedData();
    tmp = join(dir, `.${basename(path)}.${String(process.pid)}.tmp`);
    const fd = fs.openSync(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600);
    try {
      fs.writeSync(fd, key, null, 'latin1');
      fs.writeSync(fd, data);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, path);
    tmp = undefined;
  } catch {
    // The next run compiles again.
  } finally {
    if (tmp !== undefined) fs.rmSync(tmp, { force: true });
  }
}

/**
 * Requires the CommonJS bundle `file`, compiled from its code cache when there is a valid
 * one, and writes the cache at exit when there was none or V8 rejected it.
 */
function requireCached(file) {
  const dir = cacheDir(process.env);
  if (dir === undefined) return require(file);
  let source;
  let key;
  try {
    const st = fs.statSync(file, { bigint: true });
    key = `spillway-code-cache 1 ${process.version} ${process.arch} ${String(st.dev)} ${String(st.ino)} ${String(st.size)} ${String(st.ctimeNs)}\n`;
    source = fs.readFileSync(file, 'utf8');
  } catch {
    return require(file);
  }
  const path = join(dir, `${basename(file)}.v8`);
  let cachedData;
  try {
    if (isPrivateDir(dir)) cachedData = readCache(path, key);
  } catch {
    cachedData = undefined;
  }
  // No importModuleDynamically: the bundles have no import() (see importFrom), and one left
  // would then fail on every run, not only on those from the cache.
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  const mod = new Module(file, module);
  mod.filename = file;
  mod.paths = Module._nodeModulePaths(dirname(file));
  require.cache[file] = mod;
  script.runInThisContext().call(mod.exports, mod.exports, Module.createRequire(file), mod, file, dirname(file));
  mod.loaded = true;
  if (cachedData === undefined || script.cachedDataRejected === true) process.once('exit', () => writeCache(dir, path, key, script));
  return mod.exports;
}

/**
 * `import(specifier)` as written in the bundle `file`: a relative specifier against that
 * file, any other as it is (bare ones resolve from this package, as from the bundle's).
 * The bundles import through here (see scripts/bundle-fast-paths.mjs): an `import()`
 * compiled from V8's code cache fails in Node 20, one compiled by Node's loader does not.
 * A compiled file with a bundle of its own beside it (`x.bundle.cjs` for `x.js`, at least
 * as new) is answered by that bundle, from the code cache too.
 */
function importFrom(file, specifier) {
  if (!/^\.\.?\//.test(specifier)) return import(specifier);
  const target = resolve(dirname(file), specifier);
  const bundle = bundleOf(target);
  return bundle === undefined ? import(pathToFileURL(target).href) : Promise.resolve().then(() => requireCached(bundle));
}

/** The bundle beside the compiled file `target`, when there is one at least as new as it. */
function bundleOf(target) {
  if (!target.endsWith('.js')) return undefined;
  const bundle = `${target.slice(0, -'.js'.length)}.bundle.cjs`;
  const mtime = (path) => fs.statSync(path, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  const built = mtime(bundle);
  return built >= 0 && built >= mtime(target) ? bundle : undefined;
}

module.exports = { requireCached, importFrom };
