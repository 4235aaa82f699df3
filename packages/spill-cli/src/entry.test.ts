import { describe, expect, it } from 'vitest';
import * as entry from './index.js';
import * as internal from './internal.js';

describe('the package entry', () => {
  it('exports what a user of the library imports, and at most 12 runtime names', () => {
    const names = Object.keys(entry).sort();
    expect(names).toEqual(['COMMANDS', 'CliContext', 'CliError', 'EXIT_CODES', 'addCommonOptions', 'buildProgram', 'isCliError', 'main', 'openBackendUrl', 'processIO']);
    expect(names.length).toBeLessThanOrEqual(12);
  });

  it('keeps the building blocks the demo uses at the internal subpath', () => {
    for (const name of ['formatGrepMatches', 'formatReadLines', 'makeStyle', 'colorEnabled', 'runChild', 'wantsJson']) {
      expect(typeof (internal as Record<string, unknown>)[name]).toBe('function');
    }
  });
});
