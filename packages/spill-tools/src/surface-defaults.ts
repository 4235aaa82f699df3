/**
 * What every surface that offers the model-facing tools sets the same way: the tools
 * whose results are never spilled, and what the notice tells the model to call. Set here
 * once, so that the MCP proxy and the adapters cannot drift apart.
 */
import type { SpillNoticeReader } from '@spillway/core/notice';
import { SPILL_TOOL_NAMES } from './names.js';

/** What a surface is, for its defaults. */
export interface SurfaceKind {
  /** The surface offers `spill_search` besides `spill_read` and `spill_grep`. */
  readonly search: boolean;
  /**
   * The surface wraps the harness's own tools (the adapters), whose `read` may read a
   * spill back and must not spill again; the MCP proxy wraps a server's tools and does not.
   */
  readonly wrapsHarnessTools: boolean;
}

/** The policy options a surface fills in when its user gave none. */
export interface SurfacePolicyDefaults {
  /** Every spillway tool (their answers are bounded already), and `read` for a surface that wraps the harness's tools. */
  readonly skipTools: readonly string[];
  /** The notice names the tools the surface offers: `spill_search` too when it offers it. */
  readonly noticeReader: SpillNoticeReader;
}

const HARNESS_SKIP_TOOLS: readonly string[] = Object.freeze(['read', ...SPILL_TOOL_NAMES]);

/**
 * `options` with the surface's defaults filled in where they are `undefined`: `skipTools`
 * and `noticeReader` (see {@link SurfacePolicyDefaults}).
 *
 * @example createSpillPolicy(withSurfaceDefaults(userOptions, { search: true, wrapsHarnessTools: true }))
 */
export function withSurfaceDefaults<T extends { readonly skipTools?: readonly string[] | undefined; readonly noticeReader?: SpillNoticeReader | undefined }>(
  options: T,
  surface: SurfaceKind,
): T & SurfacePolicyDefaults {
  return {
    ...options,
    skipTools: options.skipTools ?? (surface.wrapsHarnessTools ? HARNESS_SKIP_TOOLS : SPILL_TOOL_NAMES),
    noticeReader: options.noticeReader ?? (surface.search ? 'spill-tools-and-search' : 'spill-tools'),
  };
}
