// Bundles the two entries a host starts on every call, `spillway run` (dist/run-fast.js) and
// `spillway hook` (dist/hook-main.js), each into one file: Node's ES module loader spends
// about a millisecond per file, which is most of their start-up once Node itself is up.
// What they load only for a large output stays outside, loaded from dist/ as it is.
import { rolldown } from 'rolldown';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'dist');
// Inlined: what a small output needs. Everything else is left to load from node_modules or dist/.
const INLINE_PACKAGES = new Set(['@spillway/usage', '@spillway/hosts/hook', '@spillway/core']);
const LEFT_OUT_FILES = ['commands/run/adopted-run.js', 'auto-gc.js', 'auto-index.js'].map((file) => resolve(dist, file));

for (const entry of ['run-fast', 'hook-main']) {
  const bundle = await rolldown({
    input: resolve(dist, `${entry}.js`),
    platform: 'node',
    logLevel: 'warn',
    external: (id, importer) => {
      if (id.startsWith('node:')) return true;
      if (id.startsWith('.') || id.startsWith('/')) {
        const path = importer === undefined ? id : resolve(dirname(importer), id);
        return LEFT_OUT_FILES.includes(path);
      }
      return !INLINE_PACKAGES.has(id);
    },
  });
  await bundle.write({ file: resolve(dist, `${entry}.bundle.cjs`), format: 'cjs', codeSplitting: false });
  await bundle.close();
}
