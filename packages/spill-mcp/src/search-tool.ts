import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SEARCH_MAX_BYTES } from '@spillway/core';
import { spillSearchTool } from '@spillway/policy/tools';

/**
 * `spill_search` as the proxy lists it: read-only, closed-world, and with the answer's
 * size bound declared for hosts that read it.
 */
export function searchToolListing(maxResultSizeKey: string): Tool {
  return {
    name: spillSearchTool.name,
    description: spillSearchTool.description,
    inputSchema: structuredClone(spillSearchTool.inputSchema) as unknown as Tool['inputSchema'],
    annotations: { readOnlyHint: true, openWorldHint: false },
    _meta: { [maxResultSizeKey]: DEFAULT_SEARCH_MAX_BYTES + 1_024 },
  };
}
