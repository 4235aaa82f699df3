import { describe, expect, it } from 'vitest';
import { parseFastRun } from './run-fast.js';

const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };

describe('parseFastRun: which calls of spillway run the fast path takes', () => {
  it('takes the command with the options it knows, in both spellings, with the defaults filled in', () => {
    expect(parseFastRun(['--max-inline-bytes', '100', '--name=build', '--', 'sh', '-c', 'exit 0'], env)).toEqual({
      file: 'sh',
      args: ['-c', 'exit 0'],
      options: { maxInlineBytes: 100, name: 'build', noticeReader: 'spillway-cli' },
    });
    expect(parseFastRun(['ls', '--max-inline-bytes', '5'], env)).toEqual({ file: 'ls', args: ['--max-inline-bytes', '5'], options: { maxInlineBytes: 32_768, noticeReader: 'spillway-cli' } });
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
