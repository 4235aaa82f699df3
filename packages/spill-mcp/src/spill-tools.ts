import type { CallToolResult, JSONRPCRequest, Tool } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_GREP_MAX_LINE_BYTES, type SessionId, type SpillReader, type SpillSearcher } from '@spillway/core';
import { runSpillSearch, runSpillTool, SPILL_SEARCH_TOOL, spillToolDefinitions, type SpillToolDefinition } from '@spillway/policy/tools';
import { downstreamToolName } from './names.js';
import { searchToolListing } from './search-tool.js';

/** The `_meta` key that tells Claude Code how large a tool's answers may be before it spills them itself. */
export const MAX_RESULT_SIZE_META_KEY = 'anthropic/maxResultSizeChars';

// 200 matching lines cut at the reader's line bound, with their numbers.
const GREP_PAGE_CHARS = 200 * (DEFAULT_GREP_MAX_LINE_BYTES + 32);

/** The limits of the proxy's own tools. */
export interface OwnToolLimits {
  /** Byte cap on one `spill_read` answer. */
  readonly maxReadBytes: number;
  /** `maxMatches` of a `spill_grep` call that names none. */
  readonly defaultMaxMatches: number;
}

/** What answers `spill_search`, and the session it searches. */
export interface OwnSearch {
  readonly searcher: SpillSearcher;
  readonly sessionId: SessionId;
}

/**
 * spillway's own tools, offered next to the upstream's: every definition of the shared
 * tool list of `@spillway/policy/tools`, each run by the shared implementation (which
 * bounds every answer). Adding a shared tool adds it here with no other change.
 */
export class OwnTools {
  private readonly reader: SpillReader | undefined;
  private readonly limits: OwnToolLimits;
  private readonly definitions: readonly SpillToolDefinition[];
  private readonly search: OwnSearch | undefined;

  /**
   * @param reader - the backend's reader; without one the proxy offers no tools
   * @param limits - the answers' limits
   * @param definitions - the shared tool list
   * @param search - what answers `spill_search`; without it the tool is not offered
   */
  constructor(
    reader: SpillReader | undefined,
    limits: OwnToolLimits,
    definitions: readonly SpillToolDefinition[] = spillToolDefinitions,
    search?: OwnSearch,
  ) {
    this.reader = reader;
    this.limits = limits;
    this.definitions = reader === undefined ? [] : definitions;
    this.search = reader === undefined ? undefined : search;
  }

  /** The tools as MCP lists them, with a size hint for hosts that spill on their own. */
  list(): Tool[] {
    // Claude Code spills an answer above the hint itself. The shared implementation bounds
    // every answer; the hint leaves room for a read at the cap or a page of grep matches.
    const hint = Math.max(this.limits.maxReadBytes, GREP_PAGE_CHARS) + 1_024;
    const tools: Tool[] = this.definitions.map((definition) => ({
      name: definition.name,
      description: definition.description,
      inputSchema: definition.inputSchema as unknown as Tool['inputSchema'],
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { [MAX_RESULT_SIZE_META_KEY]: hint },
    }));
    return this.search === undefined ? tools : [...tools, searchToolListing(MAX_RESULT_SIZE_META_KEY)];
  }

  /** Whether `name` is one of these tools. */
  has(name: string): boolean {
    if (name === SPILL_SEARCH_TOOL && this.search !== undefined) return true;
    return this.definitions.some((definition) => definition.name === name);
  }

  /**
   * Runs one. Whatever the arguments are (missing, an array, a string), the answer is a
   * result the model can read, with `isError: true` when the call failed.
   */
  async call(name: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    const reader = this.reader;
    if (reader === undefined || !this.has(name)) {
      return { content: [{ type: 'text', text: `Unknown tool: ${name}` }], isError: true };
    }
    const search = this.search;
    if (name === SPILL_SEARCH_TOOL && search !== undefined) {
      const found = await runSpillSearch(search.searcher, args === undefined ? {} : args, { sessionId: search.sessionId, signal });
      return { content: [{ type: 'text', text: found.text }], ...(found.isError ? { isError: true } : {}) };
    }
    const answer = await runSpillTool(reader, name, args === undefined ? {} : args, {
      maxReadBytes: this.limits.maxReadBytes,
      defaultMaxMatches: this.limits.defaultMaxMatches,
      signal,
    });
    return { content: [{ type: 'text', text: answer.text }], ...(answer.isError ? { isError: true } : {}) };
  }

  /**
   * Answers a call of one of these tools whose `arguments` are not an object (an array, a
   * string, `null`), which the SDK would refuse before any handler ran, with an error
   * result the model can read. Any other request: `undefined`.
   */
  answerMalformed(request: JSONRPCRequest): Promise<Record<string, unknown>> | undefined {
    if (request.method !== 'tools/call') return undefined;
    const params = request.params as { name?: unknown; arguments?: unknown } | undefined;
    const args = params?.arguments;
    if (typeof params?.name !== 'string' || !this.has(params.name)) return undefined;
    if (args === undefined || (typeof args === 'object' && args !== null && !Array.isArray(args))) return undefined;
    return this.call(params.name, args, new AbortController().signal);
  }
}

/**
 * An upstream tool as the host sees it: renamed when its name collides with spillway's
 * tools, and without `outputSchema` while spilling (a spilled result has no structured part).
 */
export function mirrorTool(tool: Tool, spilling: boolean): Tool {
  const name = downstreamToolName(tool.name);
  if (!spilling && name === tool.name) return tool;
  const { outputSchema, ...rest } = tool;
  return { ...(spilling || outputSchema === undefined ? rest : { ...rest, outputSchema }), name };
}
