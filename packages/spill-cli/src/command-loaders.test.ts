import { describe, expect, it } from 'vitest';
import { COMMAND_LOADERS } from './command-loaders.js';
import { COMMANDS } from './commands.js';
import { CliContext } from './context.js';
import { buildProgram } from './program.js';
import { testIO } from './test-io.js';

const namesOf = (register: (typeof COMMANDS)[number]): string[] =>
  buildProgram(new CliContext(testIO().io), [register]).commands.map((command) => command.name());

describe('COMMAND_LOADERS', () => {
  it('loads, for each name, the very register function that adds that command, and covers every command', async () => {
    const all = COMMANDS.flatMap(namesOf).sort();
    expect(Object.keys(COMMAND_LOADERS).sort()).toEqual(all);
    for (const [name, load] of Object.entries(COMMAND_LOADERS)) {
      const register = await load();
      expect(COMMANDS).toContain(register);
      expect(namesOf(register)).toEqual([name]);
    }
  });
});
