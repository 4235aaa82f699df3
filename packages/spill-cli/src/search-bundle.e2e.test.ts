// `spillway search` runs from one bundled CommonJS file (dist/search-main.bundle.cjs): the
// same answers, messages and exit codes as the compiled program, for a search, its
// failures and its help, including what it loads from outside the bundle (SQLite from
// @spillway/search, the object-store support for a store).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { libsqlEntryFrom, libsqlTarget } from './libsql-load.js';
import { BIN, COMMAND, PACKAGE_DIR, ensureBuilt, spillway } from './test-bin.js';

const BUNDLE = join(PACKAGE_DIR, 'dist', 'search-main.bundle.cjs');

describe('spillway search from its bundle', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'spillway-search-bundle-'));
    await chmod(dir, 0o700);
    await mkdir(join(dir, 'root'), { mode: 0o700 });
    env = { ...process.env, SPILLWAY_ROOT: join(dir, 'root'), SPILLWAY_SESSION: 'bundle-s', NO_COLOR: '1', SPILLWAY_USAGE: 'off', SPILLWAY_AUTO_INDEX: 'off', SPILLWAY_AUTO_GC: 'off' };
    const log = Array.from({ length: 3000 }, (_, i) => (i === 2500 ? 'FATAL: disk quota exceeded on shard 17' : `worker ${String(i)} résumé ok 日本`)).join('\n');
    for (const text of [`${log}\n`, 'nothing happened here\n'.repeat(500)]) {
      const saved = await spillway(['save', '--name', 'out.txt'], { env, input: text });
      expect(saved.code).toBe(0);
    }
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is built, and newer than the compiled entry, so that the command starts it', () => {
    expect(existsSync(BUNDLE)).toBe(true);
    expect(statSync(BUNDLE).mtimeMs).toBeGreaterThanOrEqual(statSync(join(PACKAGE_DIR, 'dist', 'search-main.js')).mtimeMs);
  });

  it('answers, fails and helps exactly as the compiled program does', async () => {
    const cases: string[][] = [
      ['search', '--json', 'disk', 'quota'],
      ['search', 'shard 17'],
      ['search', '--max', '1', 'worker', 'résumé'],
      ['search', 'nothing-matches-this'],
      ['search', '--json', '--session', 'x', '--all-sessions', 'q'],
      ['search', '--max', '0', 'q'],
      ['search', '--store', 'not-a-store-url', 'q'],
      ['search', '--json', '--root', join(dir, 'missing', 'root'), 'q'],
      ['search', '--help'],
      ['search'],
    ];
    for (const args of cases) {
      const compiled = await spillway(args, { env, entry: BIN });
      const bundled = await spillway(args, { env, entry: COMMAND });
      expect({ args, code: bundled.code, out: bundled.out, err: bundled.stderr }).toEqual({ args, code: compiled.code, out: compiled.out, err: compiled.stderr });
    }
  });

  it('gives CommonJS code that requires a module Node loads on first use every function it calls of it', () => {
    // An ES import of a name the stand-in lacks fails the build; a require answers the
    // stand-in's exports object, on which a missing function is only `undefined` when called.
    const code = readFileSync(BUNDLE, 'utf8');
    const standIns = [...code.matchAll(/^var (_lazy_builtin_(\w+)_exports) = \/\* @__PURE__ \*\/ __exportAll\(\{([^}]*)\}\);$/gm)];
    const missing: string[] = [];
    const called = new Map<string, string[]>();
    for (const [, exportsName = '', id = '', list = ''] of standIns) {
      const provided = new Set([...list.matchAll(/(\w+): \(\) =>/g)].map((m) => m[1]));
      const uses = code.split(exportsName).length - 2;
      const requires = [...code.matchAll(new RegExp(`const (\\w+|\\{[^}]*\\}) = \\(init__lazy_builtin_${id}\\(\\), __toCommonJS\\(${exportsName}\\)\\);`, 'g'))];
      // Every use is such a require, so that what is called of it can be read here.
      expect({ id, uses }).toEqual({ id, uses: requires.length });
      const names: string[] = [];
      for (const [, bound = ''] of requires) {
        if (bound.startsWith('{')) {
          names.push(...bound.slice(1, -1).split(',').map((part) => part.split(':')[0]?.trim() ?? '').filter((name) => name !== ''));
          continue;
        }
        const mentions = code.split(new RegExp(`\\b${bound}\\b`)).length - 1;
        const members = [...code.matchAll(new RegExp(`\\b${bound}\\.(\\w+)`, 'g'))].map((m) => m[1] ?? '');
        // Besides its declaration, the object is only ever used by a member's name.
        expect({ id, bound, mentions }).toEqual({ id, bound, mentions: members.length + 1 });
        names.push(...members);
      }
      const distinct = [...new Set(names)].sort();
      called.set(id, distinct);
      for (const name of distinct) if (!provided.has(name)) missing.push(`${id}: ${name}`);
    }
    // commander, for an external subcommand, the one CommonJS user of a module loaded late.
    expect(called.get('node_child_process')).toEqual(['spawn']);
    expect(missing).toEqual([]);
  });

  it('loads none of the modules a search does not use, and asks Node for no diagnostic report', async () => {
    // A preload that counts reports and, at exit, writes which of Node's modules were loaded.
    const seen = join(dir, 'seen.json');
    const preload = join(dir, 'watch.cjs');
    await writeFile(
      preload,
      `let reports = 0;
      const getReport = process.report.getReport;
      process.report.getReport = function (...args) { reports += 1; return getReport.apply(this, args); };
      process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(seen)}, JSON.stringify({ reports, modules: process.moduleLoadList })));`,
    );
    // The index brought up to date first: writing it takes node:crypto (the rows' owner).
    expect((await spillway(['search', 'disk'], { env, entry: COMMAND })).code).toBe(0);
    const found = await spillway(['search', 'disk', 'quota'], { env: { ...env, NODE_OPTIONS: `--require ${preload}` }, entry: COMMAND });
    expect(found.code).toBe(0);
    expect(found.out).toContain('FATAL: disk quota exceeded');
    const { reports, modules } = JSON.parse(readFileSync(seen, 'utf8')) as { reports: number; modules: string[] };
    expect(modules).toContain('NativeModule fs'); // the list is Node's, as read
    for (const name of ['crypto', 'child_process', 'worker_threads', 'fs/promises']) expect(modules).not.toContain(`NativeModule ${name}`);
    if (libsqlTarget() !== undefined) expect(reports).toBe(0);
    // libsql found without Node's resolution of `exports`, which loads its ES module resolver.
    if (libsqlEntryFrom(join(PACKAGE_DIR, 'dist', 'search-main.bundle.cjs')) !== undefined) expect(modules).not.toContain('NativeModule internal/modules/esm/resolve');
  });
});
