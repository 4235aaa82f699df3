/**
 * Answer assembly: the ranked chunks become snippets, each grown around its best line
 * within the per-snippet cap, with its section line, until the answer's byte budget or
 * result count is spent. Overlapping snippets of one artifact are answered once.
 */
import { spillLocator, throwIfAborted } from '@spillway/core';
import type { SpillSearchHit } from '@spillway/core';
import type { QueryTerm } from './query.js';
import type { Candidate, ChunkLines, SectionLine } from './ranking.js';
import { MIN_SEARCH_MAX_BYTES } from './search-request.js';
import { growSnippet } from './snippet.js';
import { byteLength } from './text.js';

/** What assembling an answer reads and how big it may be. */
export interface AnswerContext {
  readonly terms: readonly QueryTerm[];
  readonly weights: readonly number[];
  readonly maxResults: number;
  readonly maxBytes: number;
  readonly maxSnippetBytes: number;
  readonly signal: AbortSignal | undefined;
  /** A chunk's lines; `null` once its artifact is gone. */
  lines(c: Candidate): Promise<ChunkLines | null>;
  /** The locator of an artifact still in scope. */
  locatorOf(artifact: number): string | undefined;
  /** A section line by its row. */
  section(id: number): SectionLine | undefined;
  /** The nearest section line of an artifact at or above a line. */
  sectionBefore(artifact: number, line: number): SectionLine | undefined;
}

/** Makes the answer's hits from the ranked chunks, best first. */
export async function assembleAnswer(order: readonly Candidate[], ctx: AnswerContext): Promise<{ hits: SpillSearchHit[]; more: boolean }> {
  const { terms, weights, maxResults, maxSnippetBytes, signal } = ctx;
  const hits: SpillSearchHit[] = [];
  let budget = ctx.maxBytes;
  let more = false;
  const taken = new Map<number, { from: number; to: number }[]>();
  for (const c of order) {
    if (hits.length >= maxResults || budget < MIN_SEARCH_MAX_BYTES / 2) {
      more = true;
      break;
    }
    throwIfAborted(signal);
    const spans = taken.get(c.artifact) ?? [];
    if (spans.some((sp) => c.startLine <= sp.to && c.endLine >= sp.from)) continue;
    const page = await ctx.lines(c);
    const locator = ctx.locatorOf(c.artifact);
    if (page === null || locator === undefined) continue;
    const section0 = c.section === null ? undefined : ctx.section(c.section);
    const sectionCost = section0 === undefined ? 0 : byteLength(section0.text) + 1;
    const cap = Math.min(maxSnippetBytes, budget - sectionCost);
    const snippet = growSnippet(page.lines, page.first, { from: c.startLine, to: c.endLine }, terms, weights, cap);
    if (snippet === undefined) {
      // Left out for want of room (not for want of a line to show): it matched all the same.
      if (cap < maxSnippetBytes) more = true;
      continue;
    }
    // A line cut by the read is not whole: say so.
    const readCut = page.truncated && snippet.endLine === page.endLine;
    let section = ctx.sectionBefore(c.artifact, snippet.startLine);
    if (section !== undefined && section.line === snippet.startLine) section = undefined;
    const cost = byteLength(snippet.text) + (section === undefined ? 0 : byteLength(section.text) + 1);
    if (cost > budget) {
      more = true;
      continue;
    }
    budget -= cost;
    spans.push({ from: snippet.startLine, to: snippet.endLine });
    taken.set(c.artifact, spans);
    hits.push({
      locator: spillLocator(locator),
      startLine: snippet.startLine,
      endLine: snippet.endLine,
      text: snippet.text,
      truncated: snippet.truncated || readCut,
      ...(section === undefined ? {} : { section: { line: section.line, text: section.text } }),
      score: Math.round(c.score * 1000) / 1000,
    });
  }
  return { hits, more };
}
