import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SPILL_ERROR_CODES, SpillError } from '@spillway/core';
import { CliError, cliMessage, describeError, isCliError, oneLine } from './cli-error.js';
import { EXIT_CODES, exitCodeForSpillError } from './exit-codes.js';
import { COMMAND, ensureBuilt, PACKAGE_DIR, spillway } from './test-bin.js';

describe('exit codes', () => {
  it('tells not-found, invalid locator, expired, unsafe root and storage apart', () => {
    const codes = [
      exitCodeForSpillError('SPILL_NOT_FOUND'),
      exitCodeForSpillError('SPILL_INVALID_LOCATOR'),
      exitCodeForSpillError('SPILL_EXPIRED'),
      exitCodeForSpillError('SPILL_UNSAFE_ROOT'),
      exitCodeForSpillError('SPILL_STORAGE_FAILED'),
    ];
    expect(new Set(codes).size).toBe(codes.length);
    expect(codes).not.toContain(EXIT_CODES.USAGE);
    expect(codes).not.toContain(EXIT_CODES.FAILURE);
  });

  it('maps every SpillError code to a documented code below 126', () => {
    const documented = new Set<number>([1, 2, 3, 4, 5, 6, 7, 8]);
    for (const code of SPILL_ERROR_CODES) expect(documented.has(exitCodeForSpillError(code))).toBe(true);
  });

  it('treats a bad grep pattern as a usage error and every kind of full or failed storage alike', () => {
    expect(exitCodeForSpillError('SPILL_INVALID_PATTERN')).toBe(2);
    expect(exitCodeForSpillError('SPILL_NO_SPACE')).toBe(exitCodeForSpillError('SPILL_STORAGE_FAILED'));
  });
});

describe('describeError', () => {
  it('keeps the stable code of a SpillError and maps its exit code', () => {
    expect(describeError(new SpillError('SPILL_STORAGE_FAILED', 'Disk said no.'))).toEqual({
      code: 'SPILL_STORAGE_FAILED',
      message: 'Disk said no.',
      exitCode: 7,
    });
  });

  it('adds what to do from the command line for the errors a user can fix', () => {
    expect(describeError(new SpillError('SPILL_NOT_FOUND', 'No artifact.')).message).toBe(
      'No artifact. (spillway: `spillway ls` lists the artifacts that exist.)',
    );
    expect(describeError(new SpillError('SPILL_UNSAFE_ROOT', 'Bad root.')).message).toContain('--root');
    expect(describeError(new SpillError('SPILL_INVALID_PATTERN', 'Bad.')).message).toContain('-F');
  });

  it('keeps a CliError\'s own code and exit code', () => {
    expect(describeError(new CliError('COMMAND_NOT_FOUND', 'command not found: x'))).toMatchObject({ code: 'COMMAND_NOT_FOUND', exitCode: 127 });
    expect(describeError(new CliError('USAGE', 'bad'))).toMatchObject({ exitCode: 2 });
  });

  it('calls anything else INTERNAL, exit 1, and points at --debug', () => {
    const d = describeError(new RangeError('boom'));
    expect(d.code).toBe('INTERNAL');
    expect(d.exitCode).toBe(1);
    expect(d.message).toContain('boom');
    expect(d.message).toContain('--debug');
  });

  it('recognises a SpillError from another copy of core by its marker', () => {
    const foreign = Object.assign(new Error('gone'), { code: 'SPILL_EXPIRED', [Symbol.for('spillway.SpillError')]: true });
    expect(describeError(foreign)).toMatchObject({ code: 'SPILL_EXPIRED', exitCode: 5 });
  });
});

describe('cliMessage: command-line advice only', () => {
  const apiWords = /createRoot|literal: true|timeoutMs|: true\b/;

  it('turns a missing root into mkdir advice for that directory', () => {
    const m = cliMessage('SPILL_UNSAFE_ROOT', 'The spill root /srv/my spill does not exist; create it with mode 0700 or pass createRoot: true.');
    expect(m).toBe("The spill root /srv/my spill does not exist; create it with `mkdir -m 700 '/srv/my spill'`, or point --root or SPILLWAY_ROOT at an existing private directory.");
    expect(m).not.toMatch(apiWords);
  });

  it('turns the pattern advice of either backend into -F, once', () => {
    for (const library of [
      'The grep pattern is not a valid JavaScript regular expression: Invalid regular expression: /x(/: Unterminated group. Fix it, or pass literal: true to search for the text as is.',
      'The grep pattern is not a valid JavaScript regular expression (bad); fix it, or pass literal: true to search for the plain text.',
      'This grep pattern is refused because it nests quantifiers; it could take too long to run. Simplify it, or pass literal: true to search for the plain text.',
    ]) {
      const m = cliMessage('SPILL_INVALID_PATTERN', library);
      expect(m).not.toMatch(apiWords);
      expect(m.match(/-F/g)).toHaveLength(1);
      expect(m).not.toContain('(spillway:');
    }
  });

  it('drops the timeout option the CLI does not have', () => {
    const m = cliMessage('SPILL_TIMEOUT', 'grep gave up after 5000 ms; use a simpler pattern, literal: true, or a larger timeoutMs.');
    expect(m).toBe('grep gave up after 5000 ms; use a simpler pattern, or -F to search for the text as is.');
  });

  it('falls back to CLI words for library wording it does not know, and keeps the generic advice', () => {
    const m = cliMessage('SPILL_INVALID_PATTERN', 'Something new; pass literal: true instead.');
    expect(m).toBe('Something new; use -F instead. (spillway: escape the special characters, or add -F to search for literal text.)');
  });

  it('leaves other messages alone and adds the advice for the code', () => {
    expect(cliMessage('SPILL_NOT_FOUND', 'No artifact.')).toBe('No artifact. (spillway: `spillway ls` lists the artifacts that exist.)');
    expect(cliMessage('SPILL_STORAGE_FAILED', 'Disk said no.')).toBe('Disk said no.');
  });
});

describe('oneLine', () => {
  it('never leaves a control or bidi character in the line', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        // eslint-disable-next-line no-control-regex
        expect(oneLine(s)).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
      }),
    );
  });

  it('shows line breaks and escapes as visible text', () => {
    expect(oneLine('a\nb\r\t\u001b[31m\u202e')).toBe('a\\nb\\r\\t\\u001b[31m\\u202e');
  });

  it('leaves ordinary text, including non-ASCII, unchanged', () => {
    expect(oneLine('Ünïcode — ok ✓ 漢字')).toBe('Ünïcode — ok ✓ 漢字');
  });
});

describe('isCliError across realms and duplicate installs', () => {
  it('recognises a CliError made by a second instance of the module, where instanceof does not', () => {
    ensureBuilt();
    const url = pathToFileURL(join(PACKAGE_DIR, 'dist', 'cli-error.js')).href;
    // Two URLs, two module instances: what a second copy of @spillway/cli in node_modules gives.
    const script = `
      const a = await import(${JSON.stringify(`${url}?copy=a`)});
      const b = await import(${JSON.stringify(`${url}?copy=b`)});
      const e = new a.CliError('USAGE', 'bad flag');
      console.log(JSON.stringify({ distinct: a.CliError !== b.CliError, instanceOf: e instanceof b.CliError, guard: b.isCliError(e), coded: b.isCliError(e, 'USAGE'), wrong: b.isCliError(e, 'FAILED'), described: b.describeError(e).code }));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual({ distinct: true, instanceOf: false, guard: true, coded: true, wrong: false, described: 'USAGE' });
  });

  it('recognises an error object from another vm realm by its marker', () => {
    const foreign: unknown = runInNewContext(`(() => { const e = new Error('from elsewhere'); e[Symbol.for('@spillway/cli.CliError')] = true; e.code = 'COMMAND_NOT_FOUND'; e.exitCode = 127; return e; })()`);
    expect(foreign instanceof Error).toBe(false);
    expect(isCliError(foreign)).toBe(true);
    expect(isCliError(foreign, 'COMMAND_NOT_FOUND')).toBe(true);
    expect(describeError(foreign)).toMatchObject({ code: 'COMMAND_NOT_FOUND', exitCode: 127 });
  });

  it('refuses look-alikes without the marker', () => {
    expect(isCliError(Object.assign(new Error('x'), { code: 'USAGE' }))).toBe(false);
    expect(isCliError(null)).toBe(false);
    expect(isCliError('USAGE')).toBe(false);
    expect(isCliError(new CliError('FAILED', 'y'))).toBe(true);
  });
});

describe('the argument parser\'s errors, as the command prints them', () => {
  it.each([
    [['read']],
    [['read', '/x', '--bogus']],
    [['ls', '--sess', 'x']],
    [['rm', 'a', 'b']],
    [['nosuch']],
    [['search']],
    [['search', '--bogus', 'q']],
    [['search', '--max', '0', 'q']],
    [['lss']],
    [['ls', '--jsn']],
  ])('end in [USAGE] in text and carry code USAGE in JSON: %j', async (args) => {
    ensureBuilt();
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', NO_COLOR: '1', SPILLWAY_USAGE: 'off' };
    const text = await spillway(args, { env, entry: COMMAND });
    expect(text.code).toBe(2);
    // The code closes the error line itself, before commander's "(Did you mean …?)" line.
    expect(text.stderr).toMatch(/^spillway: error: \S[^\n]* \[USAGE\]\n(?:\(Did you mean [^\n]*\?\)\n)?\(add --help for usage\)\n$/);
    if (args[0] === 'lss' || args[1] === '--jsn') expect(text.stderr).toContain('\n(Did you mean');
    const json = await spillway([...args, '--json'], { env, entry: COMMAND });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'USAGE', exitCode: 2 } });
  });
});
