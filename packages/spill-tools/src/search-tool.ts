/**
 * The model-facing `spill_search` tool: ranked snippets across the session's spills,
 * each with its locator and line range so that `spill_read` can follow. Defined once, like
 * `spill_read` and `spill_grep`, and run through any {@link SpillSearcher} a surface
 * passes in (`@spillway/search` makes one), so this module knows no backend and no index.
 */
import { DEFAULT_SEARCH_MAX_BYTES, DEFAULT_SEARCH_MAX_RESULTS, isSpillError, MAX_SEARCH_RESULTS, wholeNumberProblem } from '@spillway/core';
import type { SessionId, SpillErrorCode, SpillSearchHit, SpillSearchResult, SpillSearcher } from '@spillway/core';
import { SPILL_SEARCH_TOOL } from './names.js';
import { errorText, type SpillToolJsonSchema } from './tool-call.js';

/** Arguments of `spill_search`. */
export interface SpillSearchArgs {
  /** Plain words and "quoted phrases". */
  readonly query: string;
  /** How many snippets at most. */
  readonly maxResults?: number;
}

/** The definition of `spill_search`, in the shape of the other retrieval tools' definitions. */
export interface SpillSearchToolDefinition {
  /** `spill_search`. */
  readonly name: typeof SPILL_SEARCH_TOOL;
  /** One-paragraph description for the model. */
  readonly description: string;
  /** The JSON Schema of the arguments. */
  readonly inputSchema: SpillToolJsonSchema;
}

/** The definition of `spill_search`. */
export const spillSearchTool: SpillSearchToolDefinition = {
  name: SPILL_SEARCH_TOOL,
  description:
    'Search every tool result of this conversation that was too large to show in full and ' +
    'was stored. Give plain words or "quoted phrases" (identifiers, paths, versions, error ' +
    'text); returns the best-matching snippets, each with its locator and line range, so ' +
    'you can read more around one with spill_read.',
  inputSchema: {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'Words or "quoted phrases" to look for; not a regular expression.' },
      maxResults: { type: 'integer', minimum: 1, maximum: MAX_SEARCH_RESULTS, description: `How many snippets at most. Default ${String(DEFAULT_SEARCH_MAX_RESULTS)}.` },
    },
    required: ['query'],
    additionalProperties: false,
  },
};

/** What a surface passes to {@link runSpillSearch}. */
export interface SpillSearchToolOptions {
  /** The session whose spills are searched (the surface's session). Omitted: every session's. */
  readonly sessionId?: SessionId;
  /** Byte cap on the whole answer's text. Default {@link DEFAULT_SEARCH_MAX_BYTES}. */
  readonly maxSearchBytes?: number;
  /** Default `maxResults` when the model gives none. Default {@link DEFAULT_SEARCH_MAX_RESULTS}. */
  readonly defaultMaxResults?: number;
  /** Cancels the call. */
  readonly signal?: AbortSignal;
}

/** What a `spill_search` call answers. */
export type SpillSearchToolAnswer =
  | {
      /** The answer to show the model, within the byte cap. */
      readonly text: string;
      /** The call worked. */
      readonly isError: false;
      /** The snippets the text shows. */
      readonly data: SpillSearchResult;
    }
  | {
      /** The error, worded for the model. */
      readonly text: string;
      /** The call failed. */
      readonly isError: true;
      /** The `SpillError` code, or `undefined` for an unexpected failure. */
      readonly code: SpillErrorCode | undefined;
    };

const encoder = new TextEncoder();
function bytes(text: string): number {
  return encoder.encode(text).length;
}

function hitRange(hit: SpillSearchHit): string {
  return hit.endLine === hit.startLine ? `line ${String(hit.startLine)}` : `lines ${String(hit.startLine)}-${String(hit.endLine)}`;
}

function hitHeader(hit: SpillSearchHit, n: number): string {
  return `[${String(n)}] ${hit.locator} ${hitRange(hit)}${hit.truncated ? ' (long lines cut)' : ''}`;
}

function hitBlock(hit: SpillSearchHit, n: number): string {
  const section = hit.section === undefined ? '' : `${String(hit.section.line)}| ${hit.section.text}\n…\n`;
  return `${hitHeader(hit, n)}\n${section}${hit.text}`;
}

/**
 * Words a search result for the model within `maxBytes`: one block a snippet (its
 * locator and lines, the section line above it, the lines themselves), then one line
 * in parentheses on how to go on. Blocks that do not fit are left out, and the data
 * answered keeps only the blocks shown; when none fits, the text names where the best
 * snippet starts, so that `spill_read` can follow it.
 */
export function formatSearchAnswer(
  result: SpillSearchResult,
  query: string,
  maxBytes: number = DEFAULT_SEARCH_MAX_BYTES,
): { readonly text: string; readonly shown: SpillSearchResult } {
  const quoted = JSON.stringify(query.length > 200 ? `${query.slice(0, 200)}…` : query);
  if (result.hits.length === 0 && result.more) {
    // The searcher itself found no room for a snippet of what matched.
    // Fewer results leave each snippet more of the answer's bytes.
    const texts = [`(Snippets match ${quoted} but none fits in ${String(maxBytes)} bytes; ask again with maxResults: 1.)`, `(Snippets match but none fits in ${String(maxBytes)} bytes.)`];
    return { text: texts.find((t) => bytes(t) <= maxBytes) ?? '(No room.)', shown: { hits: [], more: true } };
  }
  if (result.hits.length === 0) {
    const text = `(No stored result matches ${quoted}. Try other words: an identifier, a path, a version or an error message.)`;
    return { text: bytes(text) <= maxBytes ? text : '(No match.)', shown: { hits: [], more: false } };
  }
  const footerFor = (n: number, more: boolean): string =>
    `(${String(n)} snippet${n === 1 ? '' : 's'} for ${quoted}${more ? '; more matched' : ''}. Read around one with spill_read { locator, offset: <first line> }.)`;
  const blocks: string[] = [];
  const shown: SpillSearchHit[] = [];
  let used = 0;
  let more = result.more;
  const reserve = bytes(footerFor(result.hits.length, true)) + 2;
  for (const hit of result.hits) {
    const block = hitBlock(hit, shown.length + 1);
    const cost = bytes(block) + 2;
    if (used + cost + reserve > maxBytes) {
      more = true;
      continue;
    }
    blocks.push(block);
    shown.push(hit);
    used += cost;
  }
  if (shown.length === 0) {
    // No snippet fits, but the best one's place does: the model can read it from there.
    const best = result.hits[0] as SpillSearchHit;
    const cap = String(maxBytes);
    const texts = [
      `(Snippets match ${quoted} but none fits in ${cap} bytes. The best is ${best.locator} ${hitRange(best)}: read it with spill_read { locator, offset: ${String(best.startLine)} }.)`,
      `(Snippets match but none fits in ${cap} bytes. The best is ${best.locator} line ${String(best.startLine)}; use spill_read.)`,
      `(Snippets match but none fits in ${cap} bytes.)`,
    ];
    const text = texts.find((t) => bytes(t) <= maxBytes) ?? '(No room.)';
    return { text, shown: { hits: [], more: true } };
  }
  return { text: `${blocks.join('\n\n')}\n\n${footerFor(shown.length, more)}`, shown: { hits: shown, more } };
}

/** Bytes of each block that are not snippet text: a generous estimate for a block's header. */
const BLOCK_OVERHEAD = 160;

/**
 * Runs `spill_search` with untrusted arguments. Never throws: a bad argument or a failing
 * index answers `isError: true` with text the model can act on. The answer's text is at
 * most `maxSearchBytes` bytes, whatever `maxResults` asks.
 */
export async function runSpillSearch(
  searcher: SpillSearcher,
  args: unknown,
  options: SpillSearchToolOptions = {},
): Promise<SpillSearchToolAnswer> {
  try {
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      return { text: errorText(SPILL_SEARCH_TOOL, 'SPILL_INVALID_INPUT', 'the arguments must be a JSON object: { query, maxResults? }.'), isError: true, code: 'SPILL_INVALID_INPUT' };
    }
    const a = args as Record<string, unknown>;
    if (typeof a.query !== 'string' || a.query.trim() === '') {
      return { text: errorText(SPILL_SEARCH_TOOL, 'SPILL_INVALID_INPUT', '`query` is missing: give a few words or "quoted phrases" to look for.'), isError: true, code: 'SPILL_INVALID_INPUT' };
    }
    const maxBytes = options.maxSearchBytes ?? DEFAULT_SEARCH_MAX_BYTES;
    const maxResults = a.maxResults ?? options.defaultMaxResults ?? DEFAULT_SEARCH_MAX_RESULTS;
    const resultsProblem = wholeNumberProblem(maxResults, { min: 1 });
    if (resultsProblem !== undefined) {
      return { text: errorText(SPILL_SEARCH_TOOL, 'SPILL_INVALID_INPUT', `\`maxResults\` ${resultsProblem}.`), isError: true, code: 'SPILL_INVALID_INPUT' };
    }
    const results = Math.min(maxResults as number, MAX_SEARCH_RESULTS);
    const snippetBudget = Math.max(64, maxBytes - 240 - BLOCK_OVERHEAD * Math.min(results, 6));
    const result = await searcher.search({
      query: a.query,
      maxResults: results,
      maxBytes: snippetBudget,
      ...(options.sessionId === undefined ? {} : { sessionId: options.sessionId }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const { text, shown } = formatSearchAnswer(result, a.query, maxBytes);
    return { text, isError: false, data: shown };
  } catch (error) {
    if (isSpillError(error)) {
      return { text: errorText(SPILL_SEARCH_TOOL, error.code, error.message), isError: true, code: error.code };
    }
    const message = error instanceof Error ? error.message : String(error);
    return { text: `${SPILL_SEARCH_TOOL} failed: ${message}`, isError: true, code: undefined };
  }
}
