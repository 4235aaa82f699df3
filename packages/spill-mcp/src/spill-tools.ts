import type { CallToolResult, JSONRPCRequest, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { SessionId, SpillReader, SpillSearcher } from '@spillway/core';
import { offeredSpillTools, runSpillTool, type SpillToolCallOptions, type SpillToolServices, type SpillToolSpec } from '@spillway/tools';
import { downstreamToolName } from './names.js';
import { MAX_RESULT_SIZE_META_KEY } from './options.js';

/** Room for the JSON framing around an answer's text, in the size hint a host is given. */
const HINT_FRAMING = 1_024;

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
 * spillway's own tools, offered next to the upstream's: every tool of the registry in
 * `@spillway/tools` whose services the proxy has, each run by the shared implementation
 * (which bounds every answer). A tool added to the registry appears here with no change.
 */
export class OwnTools {
  private readonly services: SpillToolServices;
  private readonly options: SpillToolCallOptions;
  private readonly specs: readonly SpillToolSpec[];

  /**
   * @param reader - the backend's reader; without one the proxy offers no tools
   * @param limits - the answers' limits
   * @param search - what answers `spill_search`; without it the tool is not offered
   */
  constructor(reader: SpillReader | undefined, limits: OwnToolLimits, search?: OwnSearch) {
    this.services = reader === undefined ? {} : { reader, searcher: search?.searcher };
    this.options = { ...limits, sessionId: search?.sessionId };
    this.specs = offeredSpillTools(this.services);
  }

  /** The tools as MCP lists them, with a size hint for hosts that spill on their own. */
  list(): Tool[] {
    // Claude Code spills an answer above the hint itself; every answer is bounded below it.
    return this.specs.map((spec) => ({
      name: spec.name,
      description: spec.description,
      inputSchema: structuredClone(spec.inputSchema) as unknown as Tool['inputSchema'],
      annotations: { readOnlyHint: true, openWorldHint: false },
      _meta: { [MAX_RESULT_SIZE_META_KEY]: spec.answerBytes(this.options) + HINT_FRAMING },
    }));
  }

  /** Whether `name` is one of these tools. */
  has(name: string): boolean {
    return this.specs.some((spec) => spec.name === name);
  }

  /**
   * Runs one. Whatever the arguments are (missing, an array, a string), the answer is a
   * result the model can read, with `isError: true` when the call failed.
   */
  async call(name: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    if (!this.has(name)) return { content: [{ type: 'text', text: `Unknown tool: ${name}` }], isError: true };
    const answer = await runSpillTool(this.services, name, args === undefined ? {} : args, { ...this.options, signal });
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
