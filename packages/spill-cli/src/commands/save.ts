import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import { Command } from 'commander';
import { callId } from '@spillway/core';
import { formatSpillNotice } from '@spillway/policy/notice';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { decodeUtf8 } from '../decode.js';
import { jsonLine, saveJson } from '../json.js';

interface SaveOptions extends CommonOptions {
  readonly name: string;
  readonly session?: string;
}

const EXAMPLES = `
Examples:
  $ curl -s https://example.com/big.json | spillway save --name big.json
  $ LOCATOR=$(make test 2>&1 | spillway save --name make-test --json | jq -r .locator)

Everything on stdin is stored, however large, and the notice a model would see is printed.
`;

/** The suggested artifact name for `--name`: kept as given, `.txt` added when it has no extension. */
export function suggestedNameFor(name: string): string {
  return extname(name) === '' ? `${name}.txt` : name;
}

/** Registers `spillway save`: stores stdin and prints its notice or ref. */
export function registerSave(program: Command, ctx: CliContext): void {
  const command = program
    .command('save')
    .description('Store everything read from stdin as one artifact and print where it went.')
    .option('--name <name>', 'a readable name for the artifact (a hint, never a path)', 'stdin')
    .option('--session <id>', 'the owning session (default: $SPILLWAY_SESSION, else "shell")');
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (options: SaveOptions) => {
    const sessionId = ctx.session(options.session);
    const backend = ctx.backend(options);
    if (ctx.io.stdin.isTTY === true) await ctx.warn('reading stdin from the terminal; end it with Ctrl-D.');
    const ref = await backend.saveTextStream({
      owner: { sessionId },
      source: { toolName: options.name, callId: callId(randomUUID()), label: 'stdin of spillway save' },
      suggestedName: suggestedNameFor(options.name),
      content: decodeUtf8(ctx.io.stdin),
    });
    const notice = formatSpillNotice({ omittedBytes: ref.bytes, locator: ref.locator, retrievalHint: ref.retrievalHint });
    await ctx.print(options.json === true ? jsonLine(saveJson(ref, notice)) : `${notice}\n`);
  });
}
