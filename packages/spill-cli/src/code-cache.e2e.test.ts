// `spillway search` loads its bundle from V8's code cache (bin/code-cache.js): the same
// answers with the cache as without it, a cache that is not the user's own, private and of
// this very bundle is never used, and the bundle's dynamic imports still work once it runs
// from the cache.
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, chownSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, COMMAND, PACKAGE_DIR, ensureBuilt, spillway } from './test-bin.js';

const LOADER = join(PACKAGE_DIR, 'bin', 'code-cache.js');
const KEY_START = 'spillway-code-cache 1 ';

describe("the search bundle's code cache", () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let codeDir: string;
  let cacheFile: string;

  const search = (args: readonly string[], extra: NodeJS.ProcessEnv = {}, entry = COMMAND) => spillway(['search', ...args], { env: { ...env, ...extra }, entry });
  const identity = (path: string): string => {
    const st = statSync(path, { bigint: true });
    return `${String(st.ino)} ${String(st.mtimeNs)}`;
  };

  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'spillway-code-cache-'));
    chmodSync(dir, 0o700);
    mkdirSync(join(dir, 'root'), { mode: 0o700 });
    codeDir = join(dir, 'cache', 'spillway', 'code');
    cacheFile = join(codeDir, 'search-main.bundle.cjs.v8');
    env = { ...process.env, XDG_CACHE_HOME: join(dir, 'cache'), SPILLWAY_ROOT: join(dir, 'root'), SPILLWAY_SESSION: 'cc', NO_COLOR: '1', SPILLWAY_USAGE: 'off', SPILLWAY_AUTO_INDEX: 'off', SPILLWAY_AUTO_GC: 'off' };
    delete env.SPILLWAY_CODE_CACHE;
    delete env.NODE_DISABLE_COMPILE_CACHE;
    delete env.NODE_V8_COVERAGE;
    const log = Array.from({ length: 2000 }, (_, i) => (i === 1500 ? 'FATAL: disk quota exceeded on shard 17' : `worker ${String(i)} ok`)).join('\n');
    expect((await spillway(['save', '--name', 'out.txt'], { env, input: `${log}\n` })).code).toBe(0);
  });

  beforeEach(() => {
    rmSync(join(dir, 'cache'), { recursive: true, force: true });
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('is written by the first search, private, and used unchanged by the next, with the same answers', async () => {
    const uncached = await search(['--json', 'disk', 'quota'], { SPILLWAY_CODE_CACHE: '0' });
    expect(existsSync(join(dir, 'cache', 'spillway', 'code'))).toBe(false);
    const first = await search(['--json', 'disk', 'quota']);
    expect(first.code).toBe(0);
    expect(first.out).toContain('FATAL: disk quota exceeded');
    expect(statSync(codeDir).mode & 0o777).toBe(0o700);
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(cacheFile).subarray(0, KEY_START.length).toString('latin1')).toBe(KEY_START);
    const written = identity(cacheFile);
    const second = await search(['--json', 'disk', 'quota']);
    // Written only when there was none or V8 rejected it: the same file means it was used.
    expect(identity(cacheFile)).toBe(written);
    expect(second).toEqual({ ...first });
    expect(second.out).toBe(uncached.out);
  });

  it("imports what the bundle leaves outside once it runs from the cache, as the compiled program does", async () => {
    expect((await search(['disk'])).code).toBe(0);
    const written = identity(cacheFile);
    const cases: string[][] = [
      ['--store', 'memory:', 'disk'], // @spillway/memory, a bare specifier
      ['--store', 's3://no-such-bucket/p', 'disk'], // ./s3-store.js, beside the bundle
      ['--no-such-option'], // ./commands.js, for the help
    ];
    const s3Env = { AWS_REGION: '', AWS_DEFAULT_REGION: '', AWS_CONFIG_FILE: join(dir, 'none'), AWS_SHARED_CREDENTIALS_FILE: join(dir, 'none'), AWS_EC2_METADATA_DISABLED: 'true' };
    for (const args of cases) {
      const cached = await search(args, s3Env);
      const compiled = await search(args, s3Env, BIN);
      expect({ args, code: cached.code, out: cached.out, err: cached.stderr }).toEqual({ args, code: compiled.code, out: compiled.out, err: compiled.stderr });
      expect(cached.stderr).not.toContain('dynamic import');
    }
    expect(identity(cacheFile)).toBe(written);
  });

  it('replaces a cache that is corrupt, of another key, writable by others or a symbolic link, and answers the same', async () => {
    const expected = (await search(['disk', 'quota'], { SPILLWAY_CODE_CACHE: '0' })).out;
    expect((await search(['disk', 'quota'])).out).toBe(expected);
    const good = readFileSync(cacheFile);
    const elsewhere = join(dir, 'elsewhere.v8');
    const spoil: [string, () => void][] = [
      ['corrupt', () => { writeFileSync(cacheFile, Buffer.concat([good.subarray(0, good.indexOf(10) + 1), Buffer.alloc(good.length, 0x5a)]), { mode: 0o600 }); }],
      ['another key', () => { writeFileSync(cacheFile, Buffer.concat([Buffer.from(`${KEY_START}v0.0.0 x64 1 2 3 4\n`), good.subarray(good.indexOf(10) + 1)]), { mode: 0o600 }); }],
      ['writable by others', () => {
        writeFileSync(cacheFile, good, { mode: 0o600 });
        chmodSync(cacheFile, 0o666);
      }],
      ['a symbolic link', () => {
        writeFileSync(elsewhere, good, { mode: 0o600 });
        symlinkSync(elsewhere, cacheFile);
      }],
    ];
    for (const [what, make] of spoil) {
      rmSync(cacheFile, { force: true });
      make();
      const before = lstatSync(cacheFile, { bigint: true }).ino;
      const found = await search(['disk', 'quota']);
      expect({ what, out: found.out, code: found.code }).toEqual({ what, out: expected, code: 0 });
      const after = lstatSync(cacheFile);
      expect({ what, replaced: BigInt(after.ino) !== before, file: after.isFile(), mode: after.mode & 0o777 }).toEqual({ what, replaced: true, file: true, mode: 0o600 });
    }
    expect(readFileSync(elsewhere)).toEqual(good);
  });

  it.runIf(process.geteuid?.() === 0)("replaces a cache that belongs to another user (as root)", async () => {
    expect((await search(['disk'])).code).toBe(0);
    chownSync(cacheFile, 65534, 65534);
    const before = statSync(cacheFile).ino;
    expect((await search(['disk'])).code).toBe(0);
    expect(statSync(cacheFile).ino).not.toBe(before);
    expect(statSync(cacheFile).uid).toBe(0);
  });

  it('neither reads nor writes a cache in a directory others may enter', async () => {
    mkdirSync(codeDir, { recursive: true, mode: 0o700 });
    chmodSync(codeDir, 0o755);
    writeFileSync(cacheFile, 'not a cache', { mode: 0o600 });
    const written = identity(cacheFile);
    expect((await search(['disk', 'quota'])).out).toContain('FATAL: disk quota exceeded');
    expect(identity(cacheFile)).toBe(written);
  });

  it('is off with SPILLWAY_CODE_CACHE=0, NODE_DISABLE_COMPILE_CACHE or while V8 collects coverage', async () => {
    for (const off of [{ SPILLWAY_CODE_CACHE: '0' }, { NODE_DISABLE_COMPILE_CACHE: '1' }, { NODE_V8_COVERAGE: join(dir, 'coverage') }]) {
      expect((await search(['disk'], off)).code).toBe(0);
      expect({ off, made: existsSync(join(dir, 'cache', 'spillway', 'code')) }).toEqual({ off, made: false });
    }
  });

  it('never runs a changed bundle from the cache of the old one, even at the same length', () => {
    const bundle = join(dir, 'tiny.bundle.cjs');
    const run = (): string => {
      const r = spawnSync(process.execPath, ['-e', `process.stdout.write(require(${JSON.stringify(LOADER)}).requireCached(${JSON.stringify(bundle)})())`], { env, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      return r.stdout;
    };
    const write = (answer: string): void => { writeFileSync(bundle, `'use strict';\nmodule.exports = function answer() { return ${JSON.stringify(answer)}; };\n`); };
    write('AAAA');
    expect(run()).toBe('AAAA');
    const file = join(codeDir, 'tiny.bundle.cjs.v8');
    const first = identity(file);
    expect(run()).toBe('AAAA');
    expect(identity(file)).toBe(first);
    write('BBBB'); // the same length, so V8's own check (the source's length) passes
    expect(run()).toBe('BBBB');
    expect(identity(file)).not.toBe(first);
  });
});
