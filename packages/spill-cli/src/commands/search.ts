import { Command } from 'commander';
import { DEFAULT_SEARCH_MAX_BYTES, DEFAULT_SEARCH_MAX_RESULTS, MAX_SEARCH_QUERY_LENGTH, type SpillSearchResult, type SpillSearcher } from '@spillway/core';
import type { SpillSearchProgress } from '@spillway/search';
import { runSpillSearch } from '@spillway/tools';
import { CliError } from '../cli-error.js';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { jsonLine } from '../json.js';
import { positiveInt } from '../options.js';
import { ProgressLine, itemsProgressText } from '../progress-line.js';

interface SearchOptions extends CommonOptions {
  readonly session?: string;
  readonly allSessions?: boolean;
  readonly max: number;
  readonly maxBytes: number;
  /** `--no-index-cache` makes it false. */
  readonly indexCache: boolean;
}

const EXAMPLES = `
Examples:
  $ spillway search --session chat-1 'json_max_depth'
  $ spillway search 'TypeError "cannot read properties"'       # the session in $SPILLWAY_SESSION
  $ spillway search --all-sessions --json 'openssl version' | jq '.results[].locator'

Words and "quoted phrases", never a query language: an operator or a wildcard is just a
word. Results are ranked snippets, each with its locator and line range; read around one
with \`spillway read <locator> --offset <line>\`. The answer is the one spill_search gives
a model (the same snippets within the same --max-bytes). The index is built from the store
on the first search and kept up to date on each one: beside the root for a local root, in
$XDG_CACHE_HOME/spillway/search (else ~/.cache/spillway/search) for an object store, unless
--no-index-cache or SPILLWAY_SEARCH_CACHE=0 keeps it in memory (see docs/search.md).
`;

/** Indexing smaller than this is over too soon to be worth a progress line. */
const PROGRESS_MIN_BYTES = 1024 * 1024;

/** One progress line of indexing, such as `indexing 2 of 5 spilled outputs [####------] 40% 113 MB of 283 MB`. */
export function renderIndexProgress(p: SpillSearchProgress): string {
  return itemsProgressText('indexing', 'spilled output', { items: p.artifacts, itemsDone: p.artifactsDone, bytes: p.bytes, bytesDone: p.bytesDone });
}

/** `spillway search --json`: the snippets, best first. */
export interface SearchJson {
  /** The query as given. */
  readonly query: string;
  /** The session searched, or `null` with --all-sessions. */
  readonly session: string | null;
  /** Best first. */
  readonly results: readonly {
    readonly locator: string;
    readonly startLine: number;
    readonly endLine: number;
    readonly text: string;
    readonly truncated: boolean;
    readonly section: { readonly line: number; readonly text: string } | null;
    readonly score: number;
  }[];
  /** True when more snippets matched than were answered. */
  readonly more: boolean;
}

function searchJson(query: string, session: string | null, result: SpillSearchResult): SearchJson {
  return {
    query,
    session,
    results: result.hits.map((h) => ({
      locator: h.locator,
      startLine: h.startLine,
      endLine: h.endLine,
      text: h.text,
      truncated: h.truncated,
      section: h.section ?? null,
      score: h.score,
    })),
    more: result.more,
  };
}

/** Registers `spillway search <query>`: ranked snippets across spilled artifacts. */
export function registerSearch(program: Command, ctx: CliContext): void {
  const command = program
    .command('search')
    .description('Search spilled artifacts by words and "quoted phrases"; prints ranked snippets with their locators and lines.')
    .argument('<query...>', 'words and "quoted phrases"')
    .option('--session <id>', 'search this session (default: $SPILLWAY_SESSION, else the default session)')
    .option('--all-sessions', 'search every session in the store')
    .option('--max <results>', 'at most this many snippets', positiveInt, DEFAULT_SEARCH_MAX_RESULTS)
    .option('--max-bytes <bytes>', 'byte budget of the answer, as spill_search counts it', positiveInt, DEFAULT_SEARCH_MAX_BYTES)
    .option('--no-index-cache', 'for an object store: keep the index in memory, not in the cache directory');
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES);
  command.action(async (words: string[], options: SearchOptions) => {
    if (options.allSessions === true && options.session !== undefined) {
      throw new CliError('USAGE', 'Give either --session or --all-sessions, not both.');
    }
    const query = words.join(' ');
    // The searcher refuses it as malformed input; from a shell it is the user's to shorten.
    if (query.length > MAX_SEARCH_QUERY_LENGTH) {
      throw new CliError('USAGE', `The query is ${String(query.length)} characters long; the limit is ${String(MAX_SEARCH_QUERY_LENGTH)}. Search for a few distinctive words or a short "quoted phrase".`);
    }
    const session = options.allSessions === true ? undefined : ctx.session(options.session);
    const backend = ctx.backend(options);
    const place = ctx.searchIndexPlace(options, options.indexCache);
    const location = await place?.prepare();
    const { createBackendSearch } = await import('@spillway/search');
    const searcher = await createBackendSearch(backend, location === undefined ? {} : { location });
    try {
      // What is not indexed yet is indexed first; on a terminal, with a progress line.
      const line = ctx.io.stderr.isTTY === true ? new ProgressLine(ctx.io.stderr) : undefined;
      if (line !== undefined || ctx.options?.verbose === true) {
        const onProgress = (p: SpillSearchProgress): void => {
          if (p.bytes >= PROGRESS_MIN_BYTES) line?.draw(renderIndexProgress(p), p.bytesDone === 0);
        };
        const fresh = await searcher.refresh({ ...(session === undefined ? {} : { sessionId: session }), onProgress }).finally(() => line?.done());
        if (ctx.options?.verbose === true) await ctx.info(`index ${searcher.location}: ${String(fresh.indexed)} artifacts indexed, ${String(fresh.removed)} dropped`);
      }
      // The tool's own run, so that the shell and a model get one answer to one request;
      // a failure of the index is kept to be reported as the error it is.
      let failure: Error | undefined;
      const watched: SpillSearcher = {
        search: (request) =>
          searcher.search(request).catch((error: unknown) => {
            failure = error instanceof Error ? error : new Error(String(error));
            throw failure;
          }),
      };
      const answer = await runSpillSearch(watched, { query, maxResults: options.max }, {
        maxSearchBytes: Math.max(64, options.maxBytes),
        ...(session === undefined ? {} : { sessionId: session }),
      });
      // The tool's text names itself and its code for a model; the CLI error has its own [CODE].
      if (answer.isError) throw failure ?? new CliError('USAGE', cliWording(answer.text));
      const result = answer.data;
      if (options.json === true) {
        await ctx.print(jsonLine(searchJson(query, session ?? null, result)));
        return;
      }
      if (result.hits.length === 0) {
        // Empty with more set: snippets matched, but not one fits the byte budget.
        const line = result.more
          ? `Snippets match ${JSON.stringify(query)} but none fits in --max-bytes ${String(options.maxBytes)}: raise it (e.g. --max-bytes ${String(Math.max(DEFAULT_SEARCH_MAX_BYTES, options.maxBytes * 2))}) to see them.`
          : `No spilled artifact matches ${JSON.stringify(query)}.`;
        await ctx.print(`${ctx.out.dim(line)}\n`);
        return;
      }
      for (const hit of result.hits) {
        await ctx.print(`${ctx.out.bold(`${hit.locator}:${String(hit.startLine)}-${String(hit.endLine)}`)}\n`);
        if (hit.section !== undefined) await ctx.print(`${ctx.out.dim(`${String(hit.section.line)}: ${hit.section.text}`)}\n`);
        await ctx.print(`${hit.text}\n\n`);
      }
      if (result.more) await ctx.print(`${ctx.out.dim('(More snippets matched: raise --max or --max-bytes.)')}\n`);
    } finally {
      await searcher.close();
    }
  });
}

/** A spill_search error text as a CLI error's sentence: without the tool's name and code, capitalised. */
function cliWording(text: string): string {
  const message = text.replace(/^spill_search failed \([A-Z_]+\): /, '');
  return message.charAt(0).toUpperCase() + message.slice(1);
}
