import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from './commands.js';
import { CliContext } from './context.js';
import { buildProgram } from './program.js';
import { testIO } from './test-io.js';

const CLI_DOC = fileURLToPath(new URL('../../../docs/cli.md', import.meta.url));

/** The rows of docs/cli.md's table of shared options: each option's long flag and the commands it names. */
function documentedTable(): Map<string, string> {
  const doc = readFileSync(CLI_DOC, 'utf8');
  const start = doc.indexOf('## Options the commands share');
  expect(start).toBeGreaterThanOrEqual(0);
  const section = doc.slice(start, doc.indexOf('\n## ', start + 1));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const flag = /`(--[a-z-]+)/.exec(cells[1] ?? '')?.[1];
    if (flag !== undefined && cells.length >= 5) rows.set(flag, cells[3] ?? '');
  }
  return rows;
}

describe('the shared options', () => {
  const program = buildProgram(new CliContext(testIO().io), COMMANDS);
  const visible = program
    .createHelp()
    .visibleCommands(program)
    .filter((c) => c.name() !== 'help');
  const names = visible.map((c) => c.name());
  const takers = (flag: string): string[] => visible.filter((c) => c.options.some((o) => o.long === flag)).map((c) => c.name());

  it('are taken by exactly the commands docs/cli.md names', () => {
    const table = documentedTable();
    expect([...table.keys()].sort()).toEqual(['--debug', '--help', '--json', '--root', '--store', '--verbose']);
    for (const [flag, takenBy] of table) {
      if (flag === '--help') continue; // commander's own, on every command
      const documented =
        takenBy === 'every command' ? names : takenBy.startsWith('every command but ') ? names.filter((n) => !takenBy.slice('every command but '.length).split(', ').includes(n)) : takenBy.split(', ');
      expect({ flag, commands: takers(flag).sort() }).toEqual({ flag, commands: [...documented].sort() });
    }
  });

  it('include --debug on every command a person runs but the hook, so that an INTERNAL failure can be reported with its stack', () => {
    expect(names.filter((n) => !takers('--debug').includes(n))).toEqual(['hook']);
  });
});
