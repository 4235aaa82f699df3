// The commands a host starts on every tool call (`spillway hook`, `spillway run`) answer a
// small output from one bundled CommonJS file. Whatever such a file requires at its top is
// loaded on every call, and one ES module among them starts Node's module loader (about
// 6 ms a call): only Node's own modules may be required there. Larger outputs load the rest
// through import(), which this leaves alone; what `run` loads for them is a bundle of its own,
// beside the file it bundles. Every bundle is ASCII only.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { COMMAND, PACKAGE_DIR, ensureBuilt, spillway } from './test-bin.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

/** The import() of every bundle, which bin/code-cache.js answers (see scripts/bundle-fast-paths.mjs): called only by a dynamic import. */
const dynamicImport = (bundle: string): string => {
  const up = '../'.repeat(bundle.split('/').length);
  return `function __spillwayImport(specifier) {\n\treturn require("${up}bin/code-cache.js").importFrom(__filename, specifier);\n}\n`;
};

/** The bundles, by their path under dist/. */
const PER_CALL = ['hook-main.bundle.cjs', 'run-fast.bundle.cjs'];
const ALL = [...PER_CALL, 'search-main.bundle.cjs', 'commands/run/adopted-run.bundle.cjs'];

const tmp = tempDirsPerTest('bundles-');

function requiredAtLoad(bundle: string): string[] {
  const text = readFileSync(join(PACKAGE_DIR, 'dist', bundle), 'utf8').replace(dynamicImport(bundle), '');
  return [...text.matchAll(/\brequire\("([^"]+)"\)/g)].map((match) => match[1] ?? '');
}

const isBuiltin = (id: string): boolean => id.startsWith('node:') || builtinModules.includes(id);

describe('the per-call bundles', () => {
  beforeAll(() => {
    ensureBuilt();
  });

  for (const bundle of PER_CALL) {
    it(`${bundle} requires only Node's own modules`, () => {
      const required = requiredAtLoad(bundle);
      expect(required.length).toBeGreaterThan(0);
      expect(required.filter((id) => !isBuiltin(id))).toEqual([]);
    });
  }

  // An import() compiled from V8's code cache fails in Node 20: each goes through the loader.
  for (const bundle of ALL) {
    it(`${bundle} imports only through bin/code-cache.js`, () => {
      const text = readFileSync(join(PACKAGE_DIR, 'dist', bundle), 'utf8');
      expect(text.endsWith(dynamicImport(bundle))).toBe(true);
      expect(text.match(/__spillwayImport\(/g)?.length ?? 0).toBeGreaterThan(1);
      expect(text.match(/(?<![\w$.])import\(/g)).toBeNull();
    });
  }

  // Node reads a file of ASCII into a string several times faster than one that is not.
  for (const bundle of ALL) {
    it(`${bundle} is ASCII only`, () => {
      const bytes = readFileSync(join(PACKAGE_DIR, 'dist', bundle));
      expect(bytes.length).toBeGreaterThan(0);
      expect(bytes.findIndex((b) => b > 0x7f)).toBe(-1);
    });
  }

  it('answers the takeover of a large output from its bundle, and an older bundle is passed over for the compiled file', async () => {
    const home = tmp();
    mkdirSync(join(home, 'root'), { mode: 0o700 });
    // Lists the CommonJS files the process loaded, at its exit.
    const preload = join(home, 'loaded.cjs');
    const listed = join(home, 'loaded.json');
    writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(listed)}, JSON.stringify(Object.keys(require.cache))));\n`);
    const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_STATE_HOME: join(home, 'state'), SPILLWAY_ROOT: join(home, 'root'), SPILLWAY_AUTO_GC: 'off', SPILLWAY_AUTO_INDEX: 'off', NODE_OPTIONS: `--require ${preload}` };
    const run = await spillway(['run', '--max-inline-bytes', '2048', '--', 'seq', '1', '20000'], { env, entry: COMMAND });
    expect(run.code).toBe(0);
    expect(run.out).toContain('Omitted');
    const loaded = JSON.parse(readFileSync(listed, 'utf8')) as string[];
    expect(loaded).toContain(join(PACKAGE_DIR, 'dist', 'commands', 'run', 'adopted-run.bundle.cjs'));

    // bin/code-cache.js's own choice, on files of its own: the newer of the two answers.
    const dir = tmp();
    writeFileSync(join(dir, 'part.js'), 'export const from = "compiled";\n');
    writeFileSync(join(dir, 'part.bundle.cjs'), 'exports.from = "bundle";\n');
    const { importFrom } = (await import(join(PACKAGE_DIR, 'bin', 'code-cache.js'))) as { importFrom: (file: string, specifier: string) => Promise<{ from: string }> };
    expect((await importFrom(join(dir, 'caller.cjs'), './part.js')).from).toBe('bundle');
    const { utimesSync } = await import('node:fs');
    utimesSync(join(dir, 'part.bundle.cjs'), new Date(1_000_000_000_000), new Date(1_000_000_000_000));
    expect((await importFrom(join(dir, 'other.cjs'), './part.js')).from).toBe('compiled');
  });
});
