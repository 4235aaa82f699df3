/**
 * Whether `spill_search` would have recovered an output's omitted part: for an output
 * needed later with spillway's preview, a search of that output alone whose query is the
 * words of the later call that needed it, and whether an answered snippet holds one of the
 * strings the call used that only the omitted part held. Asked twice: with the call's own
 * words, and with those words less the needed strings, which an agent that saw only the
 * preview could not yet have written.
 */
import { distinctiveStrings } from './estimate.js';

/**
 * Searches one tool output as `spill_search` would if it were the session's only spilled
 * output, with the tool's default answer size; answers the text of each snippet answered
 * (none when nothing matches), or `undefined` when the search cannot run here (its native
 * part does not load): the audit then searches no more and reports as without it. Supplied
 * by a caller that has the search (the CLI builds one on `@spillway/search`, loaded only
 * when there is something to search), so the audit itself stays free of a native dependency.
 */
export type SearchOutput = (output: string, query: string) => Promise<readonly string[] | undefined>;

/** The most outputs one audit checks with {@link SearchOutput}, so the second pass stays bounded; the first needed later are checked. */
export const MAX_SEARCH_CHECKS = 200;

/** The longest query a check sends, in code units: `spill_search` reads at most 24 terms anyway. */
export const MAX_SEARCH_QUERY_LENGTH = 512;

/** The most needed strings kept per check: a call may use several an output held only in its omitted part. */
const MAX_NEEDED_PER_CHECK = 8;

/** The text of a call's arguments: a JSON document's string and number values, in order; any other input as it is. */
function argumentText(input: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(input);
  } catch {
    return input;
  }
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === 'string') parts.push(v);
    else if (typeof v === 'number') parts.push(String(v));
    else if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v)) walk(x);
  };
  walk(parsed);
  return parts.join(' ');
}

/**
 * The query a check sends for a later call with arguments `input`: the arguments' text (the
 * values of a JSON document, not its keys), with each of the strings `leftOut` taken out
 * (the needed ones, for the query without them), as its distinctive strings first (paths, ids, versions: what
 * `spill_search` ranks best on) and then its other words, each once, cut at a word to
 * {@link MAX_SEARCH_QUERY_LENGTH}. Empty when nothing is left.
 */
export function searchQueryFor(input: string, leftOut: readonly string[] = []): string {
  let text = argumentText(input.length > 64 * MAX_SEARCH_QUERY_LENGTH ? input.slice(0, 64 * MAX_SEARCH_QUERY_LENGTH) : input);
  // Longest first, so a path goes before the parts of it that are needed strings too.
  for (const s of [...leftOut].sort((a, b) => b.length - a.length)) text = text.split(s).join(' ');
  const words = [...distinctiveStrings(text), ...text.split(/\s+/)].filter((w) => w !== '');
  let query = '';
  for (const w of new Set(words)) {
    if (query.length + w.length + 1 > MAX_SEARCH_QUERY_LENGTH) break;
    query = query === '' ? w : `${query} ${w}`;
  }
  return query;
}

/** One output to check: where it is, the queries, and the strings a snippet must hold one of. */
export interface PendingCheck {
  /** Its place among the results its file yields, from 0. */
  readonly ordinal: number;
  /** The call's own words (see {@link searchQueryFor}, with no needed string). */
  readonly query: string;
  /** The same less the needed strings. */
  readonly blindQuery: string;
  /** The needed strings the later call used (transcript content; never reported). */
  readonly needed: string[];
  /** The outcome whose `foundBySearch` the check sets. */
  readonly outcome: { foundBySearch?: boolean };
}

/** Adds a needed string to a check, up to {@link MAX_NEEDED_PER_CHECK}. */
export function addNeeded(check: PendingCheck, s: string): void {
  if (check.needed.length < MAX_NEEDED_PER_CHECK && !check.needed.includes(s)) check.needed.push(s);
}

/** What a check's queries found; `undefined` when the search cannot run. */
export interface CheckResult {
  /** The call's own words found a needed string. */
  readonly found: boolean;
  /** The words less the needed strings did. */
  readonly blind: boolean;
}

/** Whether a search of `output` for `query` answers a snippet holding one of `needed`; `undefined` when the search cannot run. An empty query finds nothing. */
async function finds(search: SearchOutput, output: string, query: string, needed: readonly string[]): Promise<boolean | undefined> {
  if (query === '') return false;
  const snippets = await search(output, query);
  return snippets?.some((text) => needed.some((s) => text.includes(s)));
}

/** Runs one check: whether each query finds one of the needed strings. */
export async function runCheck(search: SearchOutput, output: string, check: PendingCheck): Promise<CheckResult | undefined> {
  const found = await finds(search, output, check.query, check.needed);
  if (found === undefined) return undefined;
  const blind = check.blindQuery === check.query ? found : await finds(search, output, check.blindQuery, check.needed);
  return blind === undefined ? undefined : { found, blind };
}
