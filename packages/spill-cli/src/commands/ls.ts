import { Command } from 'commander';
import type { SpillEntry, SpillListProblem } from '@spillway/core';
import { describeError } from '../cli-error.js';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { EXIT_CODES } from '../exit-codes.js';
import { byCreation, lsHeader, lsRow, lsSummary } from '../format.js';
import { lsEntryJson } from '../json.js';

interface LsOptions extends CommonOptions {
  readonly session?: string;
  readonly long?: boolean;
}

const EXAMPLES = `
Examples:
  $ spillway ls
  $ spillway ls --long
  $ spillway ls --session "$SPILLWAY_SESSION"
  $ spillway ls --json | jq -r '.entries[].locator'

Without --session every session's artifacts are listed, oldest first. Rows fit 100
columns: the session key is cut to its first 8 characters and the locator to its last part
(the artifact); --long prints the whole session key (session-<hash>) and the whole locator.
Sessions appear as the backend's opaque key: the id itself is not stored.

Under --json stdout is one complete JSON document or nothing: a failure before the first
entry prints nothing there; a failure part way closes the document with "complete": false
(the error goes to stderr and sets the exit code).

A session directory that cannot be used (a symlink, group- or world-accessible, owned by
another user) is skipped with a warning naming it, the rest is listed, and the exit code
is 9 ("done, with problems"); under --json it is named in "skipped".
`;

/** One `skipped` item of the JSON document, and the text of a warning. */
function problemJson(problem: SpillListProblem): { where: string; code: string; message: string } {
  const described = describeError(problem.error);
  return { where: problem.where, code: described.code, message: described.message };
}

/** Output is handed to stdout in pieces of about this many code units. */
const PRINT_BATCH_UNITS = 64 * 1024;

/** Registers `spillway ls`: the artifacts under the root, streamed. */
export function registerLs(program: Command, ctx: CliContext): void {
  const command = program
    .command('ls')
    .description('List spilled artifacts: when, how large, which session, and their locators.')
    .option('--session <id>', 'only this session\'s artifacts (default: every session)')
    .option('-l, --long', 'print the whole session key and locator (rows get wider than 100 columns)');
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (options: LsOptions) => {
    const sessionId = options.session === undefined ? undefined : ctx.session(options.session);
    const backend = ctx.backend(options);
    // An unsafe or missing root fails here, before anything reaches stdout.
    if (typeof backend.root === 'function') await backend.root();
    // Refused session directories are skipped; each is named once the listing is done.
    const skipped: SpillListProblem[] = [];
    const onProblem = (problem: SpillListProblem): void => {
      skipped.push(problem);
    };
    const listing = backend.catalog.list(sessionId === undefined ? { onProblem } : { sessionId, onProblem });
    // Collected to be sorted by creation time (the catalog yields directory order). A
    // failure part way still shows what was listed, then main() reports the error.
    const entries: SpillEntry[] = [];
    let failure: { error: unknown } | undefined;
    try {
      for await (const entry of listing) entries.push(entry);
    } catch (error) {
      // Nothing listed at all: stdout stays empty, as for any failing command.
      if (entries.length === 0) throw error;
      failure = { error };
    }
    entries.sort(byCreation);
    const totalBytes = entries.reduce((sum, e) => sum + e.bytes, 0);
    // Written in batches: one write per entry costs more than formatting it.
    let batch = '';
    const add = async (text: string): Promise<void> => {
      batch += text;
      if (batch.length >= PRINT_BATCH_UNITS) {
        await ctx.print(batch);
        batch = '';
      }
    };
    if (options.json === true) {
      // Always the full detail; under a failure part way, closed and marked incomplete.
      await add('{"entries":[');
      for (const [i, entry] of entries.entries()) await add(`${i === 0 ? '' : ','}${JSON.stringify(lsEntryJson(entry))}`);
      await add(
        `],"count":${String(entries.length)},"totalBytes":${String(totalBytes)},"complete":${String(failure === undefined)},"skipped":${JSON.stringify(skipped.map(problemJson))}}\n`,
      );
    } else {
      const long = options.long === true;
      if (entries.length > 0) await add(lsHeader(ctx.out, long));
      for (const entry of entries) await add(lsRow(entry, long));
      if (failure === undefined) await add(lsSummary(entries.length, totalBytes, long));
    }
    await ctx.print(batch);
    if (failure !== undefined) throw failure.error;
    if (skipped.length > 0) {
      ctx.exitCode = EXIT_CODES.PARTIAL;
      if (options.json !== true) {
        for (const problem of skipped) {
          const { message, code } = problemJson(problem);
          await ctx.warn(`skipped ${problem.where}: ${message} [${code}]`);
        }
      }
    }
  });
}
