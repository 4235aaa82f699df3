import { Command } from 'commander';
import { answerHook } from '../hook-main.js';
import type { CliContext } from '../context.js';

const EXAMPLES = `
Examples (spillway setup writes these for you):
  Claude Code, ~/.claude/settings.json:
    "hooks": { "PostToolUse": [ { "matcher": "Bash|Grep|Glob|WebFetch|WebSearch|Agent", "hooks": [
      { "type": "command", "command": "/usr/bin/node /…/spillway.js hook claude-code --max-inline-bytes 24576" } ] } ] }
  Gemini CLI, ~/.gemini/settings.json:
    "hooks": { "AfterTool": [ { "matcher": "run_shell_command|web_fetch|google_web_search", "hooks": [
      { "type": "command", "command": "/usr/bin/node /…/spillway.js hook gemini --max-inline-bytes 32768" } ] } ] }

Reads the host's hook JSON on stdin. When the tool's output is over --max-inline-bytes,
the whole output is stored and the host's replacement (a preview and a notice) is
printed; otherwise nothing is printed. On any error or after 20 s it prints nothing and
exits 0, so the host keeps its own result. See docs/hosts.md.
`;

/** Registers `spillway hook <host>` (the program path; the installed hook takes a faster one, see bin/spillway.js). */
export function registerHook(program: Command, ctx: CliContext): void {
  program
    .command('hook')
    .description("Answer a host's output hook: replace an oversized built-in tool result (claude-code, gemini).")
    .argument('<host>', 'claude-code or gemini')
    .option('--max-inline-bytes <bytes>', 'largest output, in UTF-8 bytes, left as it is (default: 24576 for claude-code, 32768 for gemini)')
    .option('--root <dir>', 'storage root (default: $SPILLWAY_ROOT, else $XDG_STATE_HOME/spillway, else ~/.local/state/spillway)')
    .option('--store <url>', 'store instead of a root: s3://bucket/prefix, file:///dir, memory:, or a scheme of $SPILLWAY_BACKENDS (default: $SPILLWAY_STORE unless --root is given)')
    .addHelpText('after', EXAMPLES)
    .action(async (host: string, options: { maxInlineBytes?: string; root?: string; store?: string }) => {
      const args = [host];
      if (options.maxInlineBytes !== undefined) args.push('--max-inline-bytes', options.maxInlineBytes);
      if (options.root !== undefined) args.push('--root', options.root);
      if (options.store !== undefined) args.push('--store', options.store);
      let out = '';
      try {
        out = await answerHook(args, ctx.io);
      } catch {
        out = '';
      }
      if (out !== '') await ctx.print(out);
    });
}
