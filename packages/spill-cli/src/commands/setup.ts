import { resolve } from 'node:path';
import { Command } from 'commander';
import { HOSTS, HOST_IDS, isHostId, setupHost, shellQuote, undoHost, type SetupReport } from '@spillway/hosts';
import { SPILLWAY_SCRIPT } from '../auto-gc.js';
import { CliError } from '../cli-error.js';
import { DEBUG_OPTION, type CliContext } from '../context.js';
import { EXIT_CODES } from '../exit-codes.js';
import { jsonLine } from '../json.js';
import { positiveInt } from '../options.js';

interface SetupOptions {
  readonly configDir?: string;
  readonly dryRun?: boolean;
  readonly undo?: boolean;
  readonly maxInlineBytes?: number;
  readonly json?: boolean;
  readonly absolutePaths?: boolean;
}

const EXAMPLES = `
Examples:
  $ spillway setup claude-code
  $ spillway setup gemini --dry-run
  $ spillway setup codex --config-dir ~/work/.codex
  $ spillway setup claude-code --undo

Wraps every stdio MCP server the host is configured with (user scope and the project in
the current directory) with \`spillway mcp --max-inline-bytes <cap> --\`, keeping its env and
other keys, and installs spillway's output hook where the host has one (Claude Code: Bash;
Gemini CLI: shell, web fetch, web search). Absolute paths to node and to spillway are
written, so a host started from a desktop launcher finds them; a project file git tracks
(.mcp.json, .cursor/mcp.json, .vscode/mcp.json…) gets \`spillway mcp …\` found through PATH
instead, unless --absolute-paths. Comments and formatting stay. Run again, it wraps servers
added since, writes a new --max-inline-bytes into every wrapper and hook, and rewrites a
wrapper whose node or spillway is gone; servers already behind spillway (\`spillway mcp\`,
\`--url\`, \`npx -y @spillway/cli mcp\`) are not wrapped twice. A file that does not parse
is refused and left untouched. --undo takes back exactly what setup added: the original bytes when the host
has not touched the file since, else only spillway's additions. See docs/hosts.md.
`;

/** `text` with control characters (a repository's server names can hold escape codes) shown as escapes. */
function printable(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function print(report: SetupReport, undo: boolean, configDir: string | undefined): string {
  const host = HOSTS[report.host];
  const lines: string[] = [];
  const verb = report.dryRun ? 'would be ' : '';
  if (!undo) lines.push(`${host.label}: cap ${report.cap} bytes (${report.capReason}).`);
  for (const file of report.files) {
    if (file.status === 'missing' && file.changes.length === 0) continue;
    const status = file.status === 'changed' || file.status === 'restored' || file.status === 'removed' ? `${verb}${file.status}` : file.status;
    lines.push(`  ${status.padEnd(report.dryRun ? 20 : 10)} ${printable(file.path)}${file.scope === 'project' ? ' (project)' : ''}`);
    if (file.error !== undefined) lines.push(`      ${printable(file.error)}`);
    for (const change of file.changes) lines.push(`      ${printable(change)}`);
    if (file.diff !== undefined) lines.push(...file.diff.split('\n').map((l) => `      ${printable(l)}`));
  }
  if (report.files.every((f) => f.status === 'missing')) {
    lines.push(`  No ${host.label} config found (looked at ${report.files.map((f) => f.path).join(', ')}). Is it installed? --config-dir names another place.`);
  }
  if (!undo) {
    lines.push(`  Not covered: ${host.notCovered}.`);
    // The hint names every option that chose the files, so that it works as printed.
    const where = configDir === undefined ? '' : ` --config-dir ${shellQuote(configDir)}`;
    if (!report.dryRun && report.files.some((f) => f.status === 'changed')) lines.push(`  Undo with: spillway setup ${report.host}${where} --undo`);
    if (!report.dryRun) lines.push(`  Check with: spillway doctor --host ${report.host}${where}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Registers `spillway setup <host>`: protect an agent host's MCP servers and built-in tools. */
export function registerSetup(program: Command, ctx: CliContext): void {
  program
    .command('setup')
    .description(`Set an agent host up to spill oversized tool results (${HOST_IDS.join(', ')}).`)
    .argument('<host>', HOST_IDS.join(' | '))
    .option('--config-dir <dir>', "the host's user config directory (default: the host's own)")
    .option('--dry-run', 'print the change and write nothing')
    .option('--undo', 'take back what setup added')
    .option('--max-inline-bytes <bytes>', "the cap to write instead of the host's own pick", positiveInt)
    .option('--absolute-paths', "write node's and spillway's absolute paths even into a project file git tracks")
    .option('--json', 'print one JSON document instead of text')
    .option(...DEBUG_OPTION)
    .addHelpText('after', EXAMPLES)
    .action((host: string, options: SetupOptions) => {
      if (!isHostId(host)) throw new CliError('USAGE', `Unknown host '${host}'; choose one of ${HOST_IDS.join(', ')}.`);
      const env = {
        home: ctx.io.homedir,
        cwd: ctx.io.cwd,
        env: ctx.io.env,
        configDir: options.configDir === undefined ? undefined : resolve(ctx.io.cwd, options.configDir),
        command: { node: process.execPath, spillway: SPILLWAY_SCRIPT },
        maxInlineBytes: options.maxInlineBytes,
        absolutePaths: options.absolutePaths === true,
      };
      const run = options.undo === true ? undoHost : setupHost;
      const report = run(host, env, { dryRun: options.dryRun === true });
      if (report.files.some((f) => f.status === 'refused')) ctx.exitCode = EXIT_CODES.FAILURE;
      return ctx.print(options.json === true ? jsonLine(report) : print(report, options.undo === true, env.configDir));
    });
}
