import type { SpillwayCommand } from './types.js';

/** The first line of the plugin {@link opencodePlugin} writes: how setup and doctor know it. */
export const OPENCODE_PLUGIN_MARK = '// spillway-opencode-plugin';

/** OpenCode's built-in tools whose large output the plugin stores. Read is left out: spilling a file read would loop. */
export const OPENCODE_COVERED_TOOLS = ['bash', 'grep', 'glob', 'list', 'webfetch', 'websearch', 'codesearch', 'task'] as const;

/**
 * The plugin `spillway setup opencode` puts in OpenCode's `plugin/` directory. OpenCode
 * (1.18.33, `opencode run` too) loads every `plugin/*.js` there and calls its
 * `tool.execute.after` hook after each tool, with the output it will give the model, which
 * the hook may replace. Over the cap, or when OpenCode cut the output itself (the whole is
 * then in `metadata.outputPath`), the plugin runs `spillway run -- cat` on it: the whole is
 * stored and the model gets the preview and notice. An MCP tool's result (the proxy spilled
 * it already), an output that already carries a spill notice, and any failure are left as
 * they are. Small outputs cost no process.
 */
export function opencodePlugin(spillway: SpillwayCommand, cap: number): string {
  return `${OPENCODE_PLUGIN_MARK}: written by \`spillway setup opencode\`; \`spillway setup opencode --undo\` removes it.
// A large output of OpenCode's built-in tools is stored whole by spillway, and the model gets
// its preview and notice instead.
import { execFile } from 'node:child_process';

const NODE = ${JSON.stringify(spillway.node)};
const SPILLWAY = ${JSON.stringify(spillway.spillway)};
const CAP = ${String(cap)};
const TOOLS = new Set(${JSON.stringify(OPENCODE_COVERED_TOOLS)});
const NOTICE = /\\(Omitted \\d+ bytes\\. Full formatted result stored at: /;

function spill(tool, session, text, file) {
  return new Promise((resolve) => {
    const args = [SPILLWAY, 'run', '--max-inline-bytes', String(CAP), '--name', tool, '--session', session, '--', 'cat', ...(file === undefined ? [] : [file])];
    const child = execFile(NODE, args, { encoding: 'utf8', timeout: 20000, maxBuffer: 4 * CAP + 65536 }, (error, stdout) => resolve(error ? undefined : stdout));
    child.stdin?.on('error', () => {});
    child.stdin?.end(file === undefined ? text : '');
  });
}

export const SpillwayPlugin = async () => ({
  'tool.execute.after': async (input, output) => {
    try {
      if (!TOOLS.has(input.tool) || typeof output.output !== 'string' || NOTICE.test(output.output)) return;
      const meta = output.metadata ?? {};
      const file = meta.truncated === true && typeof meta.outputPath === 'string' ? meta.outputPath : undefined;
      if (file === undefined && Buffer.byteLength(output.output) <= CAP) return;
      const shown = await spill(input.tool, String(input.sessionID || 'opencode'), output.output, file);
      // The preview and notice; or, for an output OpenCode cut that fits after all, all of it.
      if (shown !== undefined && (NOTICE.test(shown) || (file !== undefined && Buffer.byteLength(shown) <= CAP))) output.output = shown;
    } catch {
      // OpenCode keeps its own output.
    }
  },
});
`;
}

/** The spillway script a plugin written by {@link opencodePlugin} runs, or `undefined`. */
export function opencodePluginScript(text: string): string | undefined {
  const line = /^const SPILLWAY = (".*");$/m.exec(text)?.[1];
  if (line === undefined) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}
