import type { SessionId, SpillLocator } from './brand.js';
import type { SpillCallOptions } from './backend.js';

/** Byte cap on one search answer when the caller gives none: 4 KiB. */
export const DEFAULT_SEARCH_MAX_BYTES = 4096;
/** How many snippets a search answers when the caller gives no `maxResults`. */
export const DEFAULT_SEARCH_MAX_RESULTS = 10;
/** The most snippets one search ever answers, whatever `maxResults` asks. */
export const MAX_SEARCH_RESULTS = 50;
/** The longest query a searcher accepts, in UTF-16 code units. */
export const MAX_SEARCH_QUERY_LENGTH = 2000;

/** A search over stored artifacts, as a model or a person asks it. */
export interface SpillSearchRequest extends SpillCallOptions {
  /**
   * Plain words and `"quoted phrases"`, as a person types them. It is never a query
   * language: operators, wildcards and unbalanced quotes are plain text.
   */
  readonly query: string;
  /** Only this session's artifacts. Omitted: every session's (a person's explicit choice). */
  readonly sessionId?: SessionId;
  /** How many snippets at most. Default {@link DEFAULT_SEARCH_MAX_RESULTS}. */
  readonly maxResults?: number;
  /**
   * Byte budget for the snippets' text together (UTF-8). Default
   * {@link DEFAULT_SEARCH_MAX_BYTES}.
   */
  readonly maxBytes?: number;
}

/** The nearest section line above a snippet, such as `commit …` or `diff --git …`. */
export interface SpillSearchSection {
  /** Its 1-based line number. */
  readonly line: number;
  /** Its text (cut when long). */
  readonly text: string;
}

/** One ranked snippet. */
export interface SpillSearchHit {
  /** The artifact it comes from: pass it to `read` or `grep`. */
  readonly locator: SpillLocator;
  /** The 1-based number of the snippet's first line. */
  readonly startLine: number;
  /** The number of its last line (inclusive). */
  readonly endLine: number;
  /**
   * The lines `startLine`..`endLine` joined by `\n`, verbatim, except that a line longer
   * than the per-line cap is cut (then `truncated` is true).
   */
  readonly text: string;
  /** True when some line in `text` is only its beginning. */
  readonly truncated: boolean;
  /** The nearest section line at or above `startLine`, when the artifact has one. */
  readonly section?: SpillSearchSection;
  /** The rank score: higher is better; comparable within one answer only. */
  readonly score: number;
}

/** The answer to {@link SpillSearcher.search}. */
export interface SpillSearchResult {
  /** Best first. */
  readonly hits: readonly SpillSearchHit[];
  /** True when more snippets matched than the answer holds. */
  readonly more: boolean;
}

/**
 * Ranked search over a backend's artifacts: what the `spill_search` tool and the
 * `spillway search` command run. Implemented by `@spillway/search`; a surface that has
 * none simply does not offer the tool.
 */
export interface SpillSearcher {
  /**
   * Answers the best snippets for a query. A bad request (a query that is not a string,
   * too long, a bad `maxResults` or `maxBytes`) rejects with `SPILL_INVALID_INPUT`.
   */
  search(request: SpillSearchRequest): Promise<SpillSearchResult>;
}
