import { SPILL_TOOL_NAMES } from '@spillway/tools';

/** The prefix the proxy puts before an upstream tool name that would collide with its own. */
export const UPSTREAM_ESCAPE_PREFIX = 'upstream_';

// `spill_read`, `spill_grep`, and the same behind one or more escape prefixes.
const ESCAPABLE = new RegExp(`^(?:${UPSTREAM_ESCAPE_PREFIX})*(?:${SPILL_TOOL_NAMES.join('|')})$`);

/**
 * The name the host sees for an upstream tool. The proxy's own tools are `spill_read` and
 * `spill_grep`; an upstream tool of the same name, or of that name behind any number of
 * `upstream_` prefixes, gets one more `upstream_` in front (`spill_read` →
 * `upstream_spill_read`, `upstream_spill_read` → `upstream_upstream_spill_read`). Every
 * other name passes unchanged. The mapping is one-to-one and needs no other tool's name, so
 * it works page by page.
 */
export function downstreamToolName(upstreamName: string): string {
  return ESCAPABLE.test(upstreamName) ? `${UPSTREAM_ESCAPE_PREFIX}${upstreamName}` : upstreamName;
}

/**
 * The inverse of {@link downstreamToolName}: the upstream name for a name the host calls,
 * or `undefined` when the name is one of the proxy's own tools.
 */
export function upstreamToolName(downstreamName: string): string | undefined {
  if ((SPILL_TOOL_NAMES as readonly string[]).includes(downstreamName)) return undefined;
  return ESCAPABLE.test(downstreamName) ? downstreamName.slice(UPSTREAM_ESCAPE_PREFIX.length) : downstreamName;
}
