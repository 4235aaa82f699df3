// Bundles the two entries a host starts on every call, `spillway run` (dist/run-fast.js) and
// `spillway hook` (dist/hook-main.js), each into one file: Node's ES module loader spends
// about a millisecond per file, which is most of their start-up once Node itself is up.
// What they load only for a large output stays outside, loaded from dist/ as it is.
//
// `spillway search` (dist/search-main.js) is bundled the same way, with the packages it
// runs on inlined. Left outside: the object-store support (loaded only for an s3:// store)
// and the memory backend (only for memory:),
// and two modules that are dependencies of the CLI's dependencies, not of the CLI, which
// the bundle asks for at run time from where those packages are installed, as their own
// imports would find them: libsql (SQLite, a native module) from @spillway/search, and
// re2js (grep's regex engine, which a search never loads) from @spillway/retrieval, reached
// through @spillway/local. The bundle never greps: retrieval's regex workers are found
// beside its compiled files, not beside a bundle. libsql is required through
// dist/libsql-load.js, which spares its loader's check of the C library where the answer
// is already known, and finds libsql without Node's resolution of `exports` (which loads
// Node's ES module resolver) where that gives the same file. Three of Node's modules that a search on a local root seldom or never
// uses (node:crypto, for an index that has to be written or a usage log;
// node:child_process, for commander's external subcommands; node:fs/promises, for an
// object store's index cache) are loaded on first use, not with the bundle: loading them
// is about 13 ms of a search process.
import { builtinModules } from 'node:module';
import { rolldown } from 'rolldown';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

/** For each module resolved at run time: the packages to walk, from the CLI to its owner. */
const FROM_OWNER = new Map([
  ['libsql', ['@spillway/search']],
  ['re2js', ['@spillway/local', '@spillway/retrieval']],
]);
const VIRTUAL = '\0from-owner:';

/** Stands a virtual module in for each module of FROM_OWNER: it requires that module from its owner's location. */
const fromOwner = {
  name: 'from-owner',
  resolveId: (id) => (FROM_OWNER.has(id) ? `${VIRTUAL}${id}` : undefined),
  load: (id) => {
    if (!id.startsWith(VIRTUAL)) return undefined;
    const name = id.slice(VIRTUAL.length);
    // libsql-load.js finds libsql from the bundle's own file through @spillway/search (see there).
    if (name === 'libsql') return `module.exports = require(${JSON.stringify(resolve(dist, 'libsql-load.js'))}).requireLibsqlFrom(__filename);\n`;
    let from = '__filename';
    for (const pkg of FROM_OWNER.get(name) ?? []) from = `require('node:module').createRequire(${from}).resolve(${JSON.stringify(`${pkg}/package.json`)})`;
    const owner = `require('node:module').createRequire(${from})`;
    return `module.exports = ${owner}(${JSON.stringify(name)});\n`;
  },
};

/**
 * Node's modules the search bundle loads on first use, each with the functions the bundle
 * calls of it. An ES import of a name not listed fails the build (rolldown's
 * MISSING_EXPORT); a require (commander's of node:child_process) does not, so the bundle
 * test reads what the requiring code calls of it. That test also checks that none of them
 * is loaded with the bundle.
 */
const LAZY_BUILTINS = new Map([
  ['node:crypto', ['createHash', 'randomBytes', 'randomUUID']],
  ['node:child_process', ['spawn']],
  ['node:fs/promises', ['chmod', 'lstat', 'mkdir', 'realpath']],
]);
const LAZY = '\0lazy-builtin:';

/** Stands a module of its own in for each of LAZY_BUILTINS, whose functions load the real one when called. */
const lazyBuiltins = {
  name: 'lazy-builtins',
  resolveId: (id) => {
    const name = id.startsWith('node:') ? id : `node:${id}`;
    return LAZY_BUILTINS.has(name) ? `${LAZY}${name}` : undefined;
  },
  load: (id) => {
    if (!id.startsWith(LAZY)) return undefined;
    const name = id.slice(LAZY.length);
    // process.getBuiltinModule, not require: the bundler would resolve a require to this module again.
    const lines = [`let loaded;`, `const real = () => (loaded ??= process.getBuiltinModule(${JSON.stringify(name)}));`];
    for (const fn of LAZY_BUILTINS.get(name) ?? []) lines.push(`export function ${fn}(...args) { return real().${fn}(...args); }`);
    return `${lines.join('\n')}\n`;
  },
};

/** The expression of a dynamic import in rendered code (not a member `.import(` or a name ending in `import`). */
const DYNAMIC_IMPORT = /(?<![\w$.])import\(/g;

/**
 * Has a bundle that runs from V8's code cache (bin/code-cache.js) import through
 * bin/code-cache.js: in Node 20 an `import()` compiled from the cache has lost what Node
 * resolves it with, and fails ("A dynamic import callback was not specified"). The
 * function there resolves a relative specifier against the bundle's own file, and a bare
 * one as from this directory: the same package, so the same node_modules.
 */
const importThroughLoader = {
  name: 'import-through-loader',
  renderChunk: (code, chunk, options) => {
    let replaced = 0;
    const body = code.replace(DYNAMIC_IMPORT, () => {
      replaced += 1;
      return '__spillwayImport(';
    });
    if (replaced === 0) throw new Error('A bundle has no dynamic import left to route through bin/code-cache.js: drop this plugin or find where they went.');
    const loader = JSON.stringify(relative(dirname(options.file), resolve(dist, '..', 'bin', 'code-cache.js')));
    return `${body}\nfunction __spillwayImport(specifier) {\n\treturn require(${loader}).importFrom(__filename, specifier);\n}\n`;
  },
};

/**
 * What a small output needs; everything else is left to load from node_modules or dist/.
 * A subpath is named on its own (`@spillway/core/xdg`): one left outside is loaded by
 * `require` of an ES module, which starts Node's module loader on every small output.
 */
const SMALL_OUTPUT = ['@spillway/usage', '@spillway/hosts/hook', '@spillway/core', '@spillway/core/xdg', '@spillway/local/incoming'];

const ENTRIES = [
  { name: 'run-fast', inline: (id) => SMALL_OUTPUT.includes(id), leftOut: ['commands/run/adopted-run.js', 'auto-gc.js', 'auto-index.js'], plugins: [importThroughLoader] },
  // The backend registry behind a large output imports the backends it may open: outside.
  { name: 'hook-main', inline: (id) => SMALL_OUTPUT.includes(id), leftOut: ['commands/run/adopted-run.js', 'auto-gc.js', 'auto-index.js', 'hook-backend.js'], plugins: [importThroughLoader] },
  {
    // What `run` loads once an output is past the cap (commands/run/adopted-run.js), beside
    // that file, where bin/code-cache.js finds it for the fast path's import(): about 130
    // ES modules otherwise, some 50 ms of every large output's run.
    name: 'commands/run/adopted-run',
    inline: (id) => id !== '@spillway/s3' && id !== '@spillway/memory',
    leftOut: ['commands.js', 'auto-gc.js', 'auto-index.js', 's3-store.js'],
    plugins: [fromOwner, importThroughLoader],
  },
  {
    name: 'search-main',
    // Every package of a search on a local root (commander, core, local, retrieval, search,
    // tools, usage); libsql and re2js through the plugin above.
    inline: (id) => id !== '@spillway/s3' && id !== '@spillway/memory',
    // The whole command list is for help and unknown names, never a search's; the S3
    // opener of the backend registry imports the AWS SDK, for an s3:// store only.
    leftOut: ['commands.js', 'auto-gc.js', 'auto-index.js', 's3-store.js'],
    plugins: [fromOwner, lazyBuiltins, importThroughLoader],
  },
];

for (const entry of ENTRIES) {
  const leftOut = entry.leftOut.map((file) => resolve(dist, file));
  const bundle = await rolldown({
    input: resolve(dist, `${entry.name}.js`),
    platform: 'node',
    logLevel: 'warn',
    plugins: entry.plugins ?? [],
    external: (id, importer) => {
      if (entry.plugins?.includes(lazyBuiltins) && LAZY_BUILTINS.has(id.startsWith('node:') ? id : `node:${id}`)) return false;
      if (id.startsWith('node:') || builtinModules.includes(id)) return true;
      if (id.startsWith(VIRTUAL) || id.startsWith(LAZY)) return false;
      if (id.startsWith('.') || id.startsWith('/')) {
        const path = importer === undefined ? id : resolve(dirname(importer), id);
        return leftOut.includes(path);
      }
      return !entry.inline(id);
    },
  });
  await bundle.write({
    file: resolve(dist, `${entry.name}.bundle.cjs`),
    format: 'cjs',
    codeSplitting: false,
    // ASCII only, with the doc comments (which held most of the non-ASCII text) left out:
    // Node reads a file of ASCII into a string several times faster than one that is not
    // (about 1.5 ms against 5.5 ms for the search bundle's 420 KB).
    charset: 'ascii',
    comments: { legal: true, annotation: true, jsdoc: false },
  });
  await bundle.close();
}
