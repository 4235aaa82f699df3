import { Command } from 'commander';
import type { SpillEntry, SpillListProblem } from '@spillway/core';
import { describeError } from '../cli-error.js';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { EXIT_CODES } from '../exit-codes.js';
import { lsHeader, lsRow, lsSummary } from '../format.js';
import { lsEntryJson } from '../json.js';

interface LsOptions extends CommonOptions {
  readonly session?: string;
}

const EXAMPLES = `
Examples:
  $ spillway ls
  $ spillway ls --session "$SPILLWAY_SESSION"
  $ spillway ls --json | jq -r '.entries[].locator'

Without --session every session's artifacts are listed. Sessions appear as the backend's
opaque key (session-<hash>): the id itself is not stored.

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

/** Registers `spillway ls`: the artifacts under the root, streamed. */
export function registerLs(program: Command, ctx: CliContext): void {
  const command = program
    .command('ls')
    .description('List spilled artifacts: when, how large, which session, and their locators.')
    .option('--session <id>', 'only this session\'s artifacts (default: every session)');
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
    const listing = backend.catalog.list(sessionId === undefined ? { onProblem } : { sessionId, onProblem })[Symbol.asyncIterator]();
    const reportSkipped = async (): Promise<void> => {
      if (skipped.length === 0) return;
      ctx.exitCode = EXIT_CODES.PARTIAL;
      if (options.json === true) return;
      for (const problem of skipped) {
        const { message, code } = problemJson(problem);
        await ctx.warn(`skipped ${problem.where}: ${message} [${code}]`);
      }
    };
    // The first entry is pulled before printing, so a listing that fails at once leaves
    // stdout empty rather than holding the start of a document or a table.
    let next: IteratorResult<SpillEntry> = await listing.next();
    let count = 0;
    let totalBytes = 0;
    if (options.json === true) {
      // Streamed so a large catalog never sits in memory; the document is still one line.
      const close = (complete: boolean): Promise<void> =>
        ctx.print(
          `],"count":${String(count)},"totalBytes":${String(totalBytes)},"complete":${String(complete)},"skipped":${JSON.stringify(skipped.map(problemJson))}}\n`,
        );
      await ctx.print('{"entries":[');
      try {
        for (; next.done !== true; next = await listing.next()) {
          await ctx.print(`${count === 0 ? '' : ','}${JSON.stringify(lsEntryJson(next.value))}`);
          count++;
          totalBytes += next.value.bytes;
        }
      } catch (error) {
        // Part of the listing is already out: close the document so stdout stays valid
        // JSON, mark it incomplete, and let main() report the error on stderr.
        await close(false);
        throw error;
      }
      await close(true);
      await reportSkipped();
      return;
    }
    for (; next.done !== true; next = await listing.next()) {
      if (count === 0) await ctx.print(lsHeader(ctx.out));
      await ctx.print(lsRow(next.value));
      count++;
      totalBytes += next.value.bytes;
    }
    await ctx.print(lsSummary(count, totalBytes));
    await reportSkipped();
  });
}
