import { randomUUID } from 'node:crypto';
import { extname } from 'node:path';
import { Command } from 'commander';
import { callId, type SpillRef } from '@spillway/core';
import { fileSinkOf } from '@spillway/core/file-sink';
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

Everything on stdin is stored byte for byte (binary included), however large, and the
notice a model would see is printed. spillway cat gives the bytes back.
`;

/** The suggested artifact name for `--name`: kept as given, `.txt` added when it has no extension. */
export function suggestedNameFor(name: string): string {
  return extname(name) === '' ? `${name}.txt` : name;
}

/** stdin as byte chunks (a stream with an encoding set yields strings: encoded back). */
async function* stdinBytes(stdin: AsyncIterable<unknown>): AsyncGenerator<Uint8Array> {
  for await (const chunk of stdin) yield typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : (chunk as Uint8Array);
}

/**
 * The warning, with its stable code, for a backend that cannot keep bytes exactly: given
 * before anything is stored, so that nobody takes a decoded copy for the original.
 */
export function textOnlyWarning(backend: string, what: string): string {
  return `the ${backend} backend stores text only (it has no saveBytesStream), so ${what} is stored decoded as UTF-8, with U+FFFD for bytes that are not UTF-8; spillway cat cannot give back the original bytes [BYTES_UNSUPPORTED]`;
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
    const fileSink = fileSinkOf(backend);
    let ref: SpillRef;
    if (backend.saveBytesStream !== undefined) {
      // Byte for byte, on every backend that can: stdin is stored as it is read.
      ref = await backend.saveBytesStream({ ...request, content: stdinBytes(ctx.io.stdin) });
    } else if (fileSink !== undefined) {
      const sink = await fileSink.open(request);
      try {
        let position = 0;
        for await (const bytes of stdinBytes(ctx.io.stdin)) {
          await sink.write(bytes, position);
          position += bytes.length;
        }
        ref = await sink.publish();
      } finally {
        await sink.close();
      }
    } else {
      // Said before anything is read or stored: this backend keeps text, not bytes.
      await ctx.warn(textOnlyWarning(backend.name, 'stdin'));
      ref = await backend.saveTextStream({ ...request, content: decodeUtf8(ctx.io.stdin) });
    }
    ctx.recordUsage({ kind: 'spilled', surface: 'save', tool: options.name, session: sessionId, artifact: ref.locator, bytes: ref.bytes, shownBytes: 0 });
    // A shell reads back with the spillway commands, whatever the backend's own hint says.
    const retrievalHint = retrievalHintFor('spillway-cli');
    const notice = formatSpillNotice({ omittedBytes: ref.bytes, locator: ref.locator, retrievalHint });
    await ctx.print(options.json === true ? jsonLine(saveJson(ref, notice, retrievalHint)) : `${notice}\n`);
  });
}
