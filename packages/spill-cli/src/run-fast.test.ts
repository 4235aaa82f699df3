import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { defaultLocalRoot } from '@spillway/local';
import { fastDefaultRoot, maxStoredFrom, parseFastRun, privateRoot, type FastRun } from './run-fast.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('parseFastRun: which calls of spillway run the fast path takes', () => {
  it('takes the command with the options it knows, in both spellings, with the defaults filled in', () => {
    expect(parseFastRun(['--max-inline-bytes', '100', '--name=build', '--', 'sh', '-c', 'exit 0'], env)).toEqual({
      file: 'sh',
      args: ['-c', 'exit 0'],
      options: { maxInlineBytes: 100, name: 'build', noticeReader: 'spillway-cli' },
      maxStoredBytes: 1024 ** 3,
    });
    expect(parseFastRun(['ls', '--max-inline-bytes', '5'], env)).toEqual({ file: 'ls', args: ['--max-inline-bytes', '5'], options: { maxInlineBytes: 32_768, noticeReader: 'spillway-cli' }, maxStoredBytes: 1024 ** 3 });
    expect(parseFastRun(['--notice-reader', 'file-tools', '--session', 's1', '--root', '/r', '--max-inline-bytes-on-failure', '9', '--max-stored-bytes', '10', 'true'], env)?.options).toEqual({
      maxInlineBytes: 32_768,
      noticeReader: 'file-tools',
      session: 's1',
      root: '/r',
      maxInlineBytesOnFailure: 9,
      maxStoredBytes: 10,
    });
  });

  it('leaves to the full program every option it does not know, and every value the program would refuse', () => {
    for (const args of [
      ['--json', 'true'],
      ['--live', 'true'],
      ['--verbose', 'true'],
      ['--debug', 'true'],
      ['--help'],
      ['-h', 'true'],
      ['--store', 's3://b/p', 'true'],
      ['--max-inline-bytes', '-1', 'true'],
      ['--max-inline-bytes', '1e3', 'true'],
      ['--max-inline-bytes', '01', 'true'],
      ['--max-inline-bytes', '99999999999999999999', 'true'],
      ['--max-stored-bytes', '0', 'true'],
      ['--notice-reader', 'nobody', 'true'],
      ['--session', '', 'true'],
      ['--session'],
      [],
      ['--'],
    ]) {
      expect(parseFastRun(args, env), args.join(' ')).toBeUndefined();
    }
    // A malformed SPILLWAY_MAX_STORED_BYTES is refused by the program before the command starts; --max-stored-bytes overrides it.
    for (const value of ['12k', 'abc', '0']) expect(parseFastRun(['true'], { ...env, SPILLWAY_MAX_STORED_BYTES: value }), value).toBeUndefined();
    expect(parseFastRun(['--max-stored-bytes', '10', 'true'], { ...env, SPILLWAY_MAX_STORED_BYTES: 'abc' })?.options.maxStoredBytes).toBe(10);
    // The limit is resolved once, here, and carried for the run to use.
    expect(parseFastRun(['--max-stored-bytes', '10', 'true'], { ...env, SPILLWAY_MAX_STORED_BYTES: 'abc' })?.maxStoredBytes).toBe(10);
    expect(parseFastRun(['true'], { ...env, SPILLWAY_MAX_STORED_BYTES: '7' })?.maxStoredBytes).toBe(7);
  });

  it('leaves a command it cannot start, and an object store named in the environment, to the full program (which says why)', () => {
    expect(parseFastRun(['no-such-command-anywhere'], env)).toBeUndefined();
    expect(parseFastRun(['/etc/passwd'], env)).toBeUndefined();
    expect(parseFastRun(['/tmp'], env)).toBeUndefined();
    expect(parseFastRun(['--', '-x'], env)).toBeUndefined();
    expect(parseFastRun(['true'], { ...env, SPILLWAY_STORE: 's3://bucket/prefix' })).toBeUndefined();
    expect(parseFastRun(['true'], { PATH: '' })).toBeUndefined();
    expect(parseFastRun(['/bin/true'], { PATH: '' })?.file).toBe('/bin/true');
  });
});

describe('privateRoot: whether the fast path keeps a run whose output may pass the cap, and where it writes', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spill-fast-root-'));
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const made = (name: string, mode: number): string => {
    const path = join(dir, name);
    mkdirSync(path);
    chmodSync(path, mode);
    return path;
  };
  const run = (root?: string): FastRun => ({ file: 'true', args: [], options: { maxInlineBytes: 10, noticeReader: 'spillway-cli', ...(root === undefined ? {} : { root }) }, maxStoredBytes: 1024 ** 3 });

  it('keeps a private directory of this user, and leaves any other root to the full program', () => {
    const priv = made('private', 0o700);
    expect(privateRoot(run(priv), {}, '/', '/nonexistent')).toBe(priv);
    expect(privateRoot(run(made('open', 0o777)), {}, '/', '/nonexistent')).toBeUndefined();
    expect(privateRoot(run(made('group', 0o750)), {}, '/', '/nonexistent')).toBeUndefined();
    expect(privateRoot(run(join(dir, 'missing')), {}, '/', '/nonexistent')).toBeUndefined();
    writeFileSync(join(dir, 'file'), '');
    expect(privateRoot(run(join(dir, 'file')), {}, '/', '/nonexistent')).toBeUndefined();
    // A link is for the backend to judge, not a glance.
    symlinkSync(priv, join(dir, 'link'));
    expect(privateRoot(run(join(dir, 'link')), {}, '/', '/nonexistent')).toBeUndefined();
  });

  it('reads the root as the program does: --root, else SPILLWAY_ROOT (relative to the working directory), else the default root', () => {
    made('state', 0o700);
    made(join('state', 'spillway'), 0o700);
    made('by-env', 0o700);
    expect(privateRoot(run('private'), { SPILLWAY_ROOT: join(dir, 'open') }, dir, '/nonexistent')).toBe(join(dir, 'private'));
    expect(privateRoot(run(), { SPILLWAY_ROOT: 'by-env' }, dir, '/nonexistent')).toBe(join(dir, 'by-env'));
    expect(privateRoot(run(), { SPILLWAY_ROOT: join(dir, 'open') }, dir, '/nonexistent')).toBeUndefined();
    expect(privateRoot(run(), { XDG_STATE_HOME: join(dir, 'state') }, '/', '/nonexistent')).toBe(join(dir, 'state', 'spillway'));
    expect(privateRoot(run(), { SPILLWAY_ROOT: '', XDG_STATE_HOME: join(dir, 'state') }, '/', '/nonexistent')).toBe(join(dir, 'state', 'spillway'));
    expect(privateRoot(run(), {}, '/', '/nonexistent')).toBeUndefined();
  });

  it('finds the default root where the local backend puts it', () => {
    for (const [env, home] of [[{}, '/home/u'], [{ XDG_STATE_HOME: '/s' }, '/home/u'], [{ XDG_STATE_HOME: 'relative' }, '/home/u/'], [{ XDG_STATE_HOME: '' }, '/']] as const) {
      expect(fastDefaultRoot(env, home)).toBe(defaultLocalRoot(env, home));
    }
  });
});

describe('maxStoredFrom: the limit the file route checks the volume against', () => {
  it('takes the option, else SPILLWAY_MAX_STORED_BYTES, else 1 GiB, and answers undefined for a value the program refuses', () => {
    expect(maxStoredFrom(5000, { SPILLWAY_MAX_STORED_BYTES: '7' })).toBe(5000);
    expect(maxStoredFrom(undefined, { SPILLWAY_MAX_STORED_BYTES: '7' })).toBe(7);
    expect(maxStoredFrom(undefined, { SPILLWAY_MAX_STORED_BYTES: '' })).toBe(1024 ** 3);
    expect(maxStoredFrom(undefined, {})).toBe(1024 ** 3);
    for (const refused of ['0', '-1', '1e6', '12 MiB', '007', String(2 ** 60)]) expect(maxStoredFrom(undefined, { SPILLWAY_MAX_STORED_BYTES: refused }), refused).toBeUndefined();
  });
});
