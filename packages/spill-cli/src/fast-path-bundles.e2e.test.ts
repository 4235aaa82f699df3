// The commands a host starts on every tool call (`spillway hook`, `spillway run`) answer a
// small output from one bundled CommonJS file. Whatever such a file requires at its top is
// loaded on every call, and one ES module among them starts Node's module loader (about
// 6 ms a call): only Node's own modules may be required there. Larger outputs load the rest
// through import(), which this leaves alone. Every bundle is ASCII only.
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_DIR, ensureBuilt } from './test-bin.js';

/** The import() of every bundle, which bin/code-cache.js answers (see scripts/bundle-fast-paths.mjs): called only by a dynamic import. */
const DYNAMIC_IMPORT = 'function __spillwayImport(specifier) {\n\treturn require("../bin/code-cache.js").importFrom(__filename, specifier);\n}\n';

function requiredAtLoad(bundle: string): string[] {
  const text = readFileSync(join(PACKAGE_DIR, 'dist', bundle), 'utf8').replace(DYNAMIC_IMPORT, '');
  return [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1] ?? '');
}

const isBuiltin = (id: string): boolean => id.startsWith('node:') || builtinModules.includes(id);

describe('the per-call bundles', () => {
  beforeAll(() => {
    ensureBuilt();
  });

  for (const bundle of ['hook-main.bundle.cjs', 'run-fast.bundle.cjs']) {
    it(`${bundle} requires only Node's own modules`, () => {
      const required = requiredAtLoad(bundle);
      expect(required.length).toBeGreaterThan(0);
      expect(required.filter((id) => !isBuiltin(id))).toEqual([]);
    });
  }

  // An import() compiled from V8's code cache fails in Node 20: each goes through the loader.
  for (const bundle of ['hook-main.bundle.cjs', 'run-fast.bundle.cjs', 'search-main.bundle.cjs']) {
    it(`${bundle} imports only through bin/code-cache.js`, () => {
      const text = readFileSync(join(PACKAGE_DIR, 'dist', bundle), 'utf8');
      expect(text.endsWith(DYNAMIC_IMPORT)).toBe(true);
      expect(text.match(/__spillwayImport\(/g)?.length ?? 0).toBeGreaterThan(1);
      expect(text.match(/(?<![\w$.])import\(/g)).toBeNull();
    });
  }

  // Node reads a file of ASCII into a string several times faster than one that is not.
  for (const bundle of ['hook-main.bundle.cjs', 'run-fast.bundle.cjs', 'search-main.bundle.cjs']) {
    it(`${bundle} is ASCII only`, () => {
      const bytes = readFileSync(join(PACKAGE_DIR, 'dist', bundle));
      expect(bytes.length).toBeGreaterThan(0);
      expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
    });
  }
});
