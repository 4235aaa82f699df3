// The search bundle loads libsql through requireLibsql: the same binary libsql's own loader
// picks, without its diagnostic report, and a module cache left as it was.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { libsqlTarget, type LibcFacts } from './libsql-load.js';
import { PACKAGE_DIR, ensureBuilt } from './test-bin.js';

const GLIBC_LDD = `#! /bin/bash\n# This file is part of the GNU C Library.\necho 'ldd (Debian GLIBC 2.36-9+deb12u14) 2.36'\n`;
const MUSL_LDD = '#!/bin/sh\nexec /lib/ld-musl-x86_64.so.1 --list "$@"\n';
const facts = (over: Partial<LibcFacts>): LibcFacts => ({ platform: 'linux', arch: 'x64', env: {}, ldd: () => GLIBC_LDD, ...over });

describe('libsqlTarget', () => {
  it('names the gnu binary where /usr/bin/ldd is glibc\'s, on x64 and arm64', () => {
    expect(libsqlTarget(facts({}))).toBe('linux-x64-gnu');
    expect(libsqlTarget(facts({ arch: 'arm64' }))).toBe('linux-arm64-gnu');
  });

  it('leaves the choice to libsql anywhere else', () => {
    expect(libsqlTarget(facts({ ldd: () => MUSL_LDD }))).toBeUndefined();
    // detect-libc reads musl first: a script naming both is musl's.
    expect(libsqlTarget(facts({ ldd: () => `${GLIBC_LDD}# musl\n` }))).toBeUndefined();
    expect(libsqlTarget(facts({ ldd: () => undefined }))).toBeUndefined();
    expect(libsqlTarget(facts({ ldd: () => '#!/bin/sh\n' }))).toBeUndefined();
    expect(libsqlTarget(facts({ arch: 'arm' }))).toBeUndefined();
    expect(libsqlTarget(facts({ platform: 'darwin' }))).toBeUndefined();
    expect(libsqlTarget(facts({ env: { LIBSQL_JS_DEV: '1' } }))).toBeUndefined();
  });
});

/** What a fresh process loaded: libsql one way or the other, then a query through it. */
interface Loaded {
  readonly binaries: string[];
  readonly reports: number;
  readonly childProcess: boolean;
  readonly standIns: string[];
  readonly kept: boolean;
  readonly answer: number;
}

/**
 * Loads libsql in a new process as `@spillway/search` would (`plain`), or through
 * requireLibsql with `target` (its own choice when omitted); `preload` loads libsql's
 * loader modules first, to see that they are left alone.
 */
function loadIn(how: 'plain' | 'ours', options: { target?: string; preload?: boolean } = {}): Loaded {
  const script = `
    const { createRequire } = require('node:module');
    let reports = 0;
    const getReport = process.report.getReport;
    process.report.getReport = function (...args) { reports += 1; return getReport.apply(this, args); };
    const own = createRequire(createRequire(${JSON.stringify(join(PACKAGE_DIR, 'package.json'))}).resolve('@spillway/search/package.json'));
    const lib = createRequire(own.resolve('libsql'));
    const before = ${options.preload === true ? "[lib('@neon-rs/load'), lib('detect-libc')]" : '[]'};
    const Database = ${how === 'plain' ? "own('libsql')" : `require(${JSON.stringify(join(PACKAGE_DIR, 'dist', 'libsql-load.js'))}).requireLibsql(own${options.target === undefined ? '' : `, ${JSON.stringify(options.target)}`})`};
    const files = [lib.resolve('@neon-rs/load'), lib.resolve('detect-libc')];
    process.stdout.write(JSON.stringify({
      binaries: Object.keys(require.cache).filter((f) => f.endsWith('.node')),
      reports,
      childProcess: process.moduleLoadList.includes('NativeModule child_process'),
      // A cached module that is not the package itself (compiled TypeScript, and detect-libc with its async family()).
      standIns: files.filter((f) => require.cache[f] !== undefined && !(require.cache[f].exports.__esModule === true || typeof require.cache[f].exports.family === 'function')),
      kept: before.every((m, i) => require.cache[files[i]]?.exports === m),
      answer: new Database(':memory:').prepare('SELECT 6 * 7 AS n').get().n,
    }));
  `;
  const run = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, LIBSQL_JS_DEV: '' } });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  return JSON.parse(run.stdout) as Loaded;
}

describe('requireLibsql', () => {
  beforeAll(() => {
    ensureBuilt();
  });

  it('loads the binary libsql\'s own loader loads, and a working libsql', () => {
    const plain = loadIn('plain');
    const ours = loadIn('ours');
    expect(plain.binaries).toHaveLength(1);
    expect(ours.binaries).toEqual(plain.binaries);
    expect(ours.answer).toBe(42);
    expect(ours.standIns).toEqual([]);
    // Where the choice is known here, without the report and without node:child_process.
    if (libsqlTarget() !== undefined) {
      expect(plain.reports).toBeGreaterThan(0);
      expect(ours.reports).toBe(0);
      expect(ours.childProcess).toBe(false);
    }
  });

  it('leaves loader modules already loaded as they were', () => {
    const ours = loadIn('ours', { preload: true });
    expect(ours.kept).toBe(true);
    expect(ours.binaries).toEqual(loadIn('plain').binaries);
  });

  it('falls back to libsql\'s own loader when the named binary cannot be loaded', () => {
    const ours = loadIn('ours', { target: 'linux-x64-nonexistent' });
    expect(ours.binaries).toEqual(loadIn('plain').binaries);
    expect(ours.answer).toBe(42);
    expect(ours.standIns).toEqual([]);
  });
});
