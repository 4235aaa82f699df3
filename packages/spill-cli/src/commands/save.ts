import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import { Command } from 'commander';
import { callId, type SpillRef } from '@spillway/core';
import { formatSpillNotice, retrievalHintFor } from '@spillway/policy/notice';
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

Everything on stdin is stored byte for byte, however large, and the notice a model would
see is printed.
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
    const request = {
      owner: { sessionId },
      source: { toolName: options.name, callId: callId(randomUUID()), label: 'stdin of spillway save' },
      suggestedName: suggestedNameFor(options.name),
    };
    let ref: SpillRef;
    if (backend.fileSink === undefined) {
      // A backend that stores text only: stdin is decoded as UTF-8 (U+FFFD for invalid bytes).
      ref = await backend.saveTextStream({ ...request, content: decodeUtf8(ctx.io.stdin) });
    } else {
      // Byte for byte: stdin goes into the file sink as it is read.
      const sink = await backend.fileSink.open(request);
      try {
        let position = 0;
        for await (const chunk of ctx.io.stdin) {
          const bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
          await sink.write(bytes, position);
          position += bytes.length;
        }
        ref = await sink.publish();
      } finally {
        await sink.close();
      }
    }
    const notice = formatSpillNotice({ omittedBytes: ref.bytes, locator: ref.locator, retrievalHint: retrievalHintFor('spillway-cli') });
    await ctx.print(options.json === true ? jsonLine(saveJson(ref, notice)) : `${notice}\n`);
  });
}
