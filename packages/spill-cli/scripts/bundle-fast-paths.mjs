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
// beside its compiled files, not beside a bundle.
import { builtinModules } from 'node:module';
import { rolldown } from 'rolldown';
import { dirname, resolve } from 'node:path';
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
    let from = '__filename';
    for (const pkg of FROM_OWNER.get(name) ?? []) from = `require('node:module').createRequire(${from}).resolve(${JSON.stringify(`${pkg}/package.json`)})`;
    return `module.exports = require('node:module').createRequire(${from})(${JSON.stringify(name)});\n`;
  },
};

/**
 * What a small output needs; everything else is left to load from node_modules or dist/.
 * A subpath is named on its own (`@spillway/core/xdg`): one left outside is loaded by
 * `require` of an ES module, which starts Node's module loader on every small output.
 */
const SMALL_OUTPUT = ['@spillway/usage', '@spillway/hosts/hook', '@spillway/core', '@spillway/core/xdg'];

const ENTRIES = [
  { name: 'run-fast', inline: (id) => SMALL_OUTPUT.includes(id), leftOut: ['commands/run/adopted-run.js', 'auto-gc.js', 'auto-index.js'] },
  // The backend registry behind a large output imports the backends it may open: outside.
  { name: 'hook-main', inline: (id) => SMALL_OUTPUT.includes(id), leftOut: ['commands/run/adopted-run.js', 'auto-gc.js', 'auto-index.js', 'hook-backend.js'] },
  {
    name: 'search-main',
    // Every package of a search on a local root (commander, core, local, retrieval, search,
    // tools, usage); libsql and re2js through the plugin above.
    inline: (id) => id !== '@spillway/s3' && id !== '@spillway/memory',
    // The whole command list is for help and unknown names, never a search's; the S3
    // opener of the backend registry imports the AWS SDK, for an s3:// store only.
    leftOut: ['commands.js', 'auto-gc.js', 'auto-index.js', 's3-store.js'],
    plugins: [fromOwner],
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
      if (id.startsWith('node:') || builtinModules.includes(id)) return true;
      if (id.startsWith(VIRTUAL)) return false;
      if (id.startsWith('.') || id.startsWith('/')) {
        const path = importer === undefined ? id : resolve(dirname(importer), id);
        return leftOut.includes(path);
      }
      return !entry.inline(id);
    },
  });
  await bundle.write({ file: resolve(dist, `${entry.name}.bundle.cjs`), format: 'cjs', codeSplitting: false });
  await bundle.close();
}
