import { Command } from 'commander';
import { resolve } from 'node:path';
import { splitMcpName } from '@spillway/audit';
import { createUsageLog, summarizeUsage, usageBreakdown, type UsageRow } from '@spillway/usage';
import { DEBUG_OPTION, type CliContext } from '../context.js';
import { formatBytes } from '../format.js';
import { jsonLine } from '../json.js';
import { checkSessionOption } from '../options.js';
import { renderStatsHtml } from '../stats-html.js';
import { assertNewPage, writeNewPage } from '../write-page.js';

interface StatsOptions {
  readonly session?: string;
  readonly json?: boolean;
  readonly html?: string;
}

const EXAMPLES = `
Examples:
  $ spillway stats
  $ spillway stats --session 3f9c2a1e-… --json | jq .total
  $ spillway stats --html usage.html

Every surface (the MCP proxy, the host hooks, the adapters given a usage listener, and
run, save, read, grep, cat and search) records a small event per result and per read of a
spilled artifact: no content, only sizes, tool names and digests of ids. The log lives in
$SPILLWAY_USAGE_DIR, else $XDG_STATE_HOME/spillway-usage, else ~/.local/state/spillway-usage
(private, rotated at 1 MiB); SPILLWAY_USAGE=off turns it off. Tokens are estimated at 4
bytes each. The proxy reports only results over its cap (spilled or kept), so its
"results" count those. --html writes a new file (never replaces one): a page with no
script and no outside asset, charting results by size, tokens kept out per tool and per
MCP server (from Claude Code's mcp__server__tool names), and each session in time.
`;

function seconds(value: number | null): string {
  if (value === null) return '-';
  return value < 90 ? `${value} s` : value < 5400 ? `${Math.round(value / 60)} min` : `${Math.round(value / 3600)} h`;
}

function tokens(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n);
}

function table(rows: readonly UsageRow[]): string {
  const head = ['host', 'tool', 'results', 'spilled', 'kept out', 'tokens', 'read back', 'reads', 'first read'];
  const body = rows.map((r) => [
    r.host,
    r.tool,
    String(r.results),
    String(r.spilled),
    formatBytes(r.bytesKeptOut),
    tokens(r.tokensKeptOut),
    String(r.readBack.artifacts),
    String(r.readBack.reads),
    seconds(r.readBack.medianSecondsToFirstRead),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  return [line(head), ...body.map(line)].join('\n');
}

/** Registers `spillway stats`: what spillway kept out of context, and how often it was needed again. */
export function registerStats(program: Command, ctx: CliContext): void {
  program
    .command('stats')
    .description('Show what spillway kept out of context, per host and tool, and how often it was read back.')
    .option('--session <id>', 'only this session (the id as the host or harness knows it)')
    .option('--json', 'print one JSON document instead of text')
    .option('--html <file>', 'also write the figures as one self-contained HTML page, to a new file')
    .option(...DEBUG_OPTION)
    .addHelpText('after', EXAMPLES)
    .action(async (options: StatsOptions) => {
      // The id as the host knows it, so not resolved through $SPILLWAY_SESSION; but never empty.
      checkSessionOption(options.session);
      const html = options.html === undefined ? undefined : resolve(ctx.io.cwd, options.html);
      if (html !== undefined) assertNewPage(html);
      const log = createUsageLog({ env: ctx.io.env, home: ctx.io.homedir });
      const { events, skipped } = log.scan();
      const stats = summarizeUsage(events, { session: options.session });
      if (html !== undefined) {
        const breakdown = usageBreakdown(events, { session: options.session, serverOf: (tool) => splitMcpName(tool).server });
        await writeNewPage(html, renderStatsHtml(stats, breakdown, { dir: log.dir, enabled: log.enabled, session: options.session, skippedLines: skipped }));
      }
      if (options.json === true) {
        await ctx.print(jsonLine({ enabled: log.enabled, dir: log.dir, skippedLines: skipped, ...stats }));
        return;
      }
      const t = stats.total;
      const lines: string[] = [];
      if (!log.enabled) lines.push(ctx.out.dim('(the usage log is off: SPILLWAY_USAGE is set to turn it off, or its directory is not private)'));
      const scope = options.session === undefined ? 'all sessions' : `session ${options.session}`;
      const span = stats.from === null || stats.to === null ? 'no events yet' : `${stats.events} events, ${new Date(stats.from).toISOString()} to ${new Date(stats.to).toISOString()}`;
      lines.push(`${scope}: ${span} (${log.dir})`);
      lines.push(`results seen ${t.results}, spilled ${t.spilled}${t.kept > 0 ? `, over the cap but kept whole ${t.kept}` : ''}`);
      lines.push(`kept out of context: ${formatBytes(t.bytesKeptOut)} of ${formatBytes(t.bytesSeen)} seen, about ${tokens(t.tokensKeptOut)} tokens`);
      const rb = t.readBack;
      lines.push(
        `read back: ${rb.artifacts} of ${t.spilled} spilled results, ${rb.reads} ${rb.reads === 1 ? 'read' : 'reads'}` +
          (rb.artifacts > 0 ? `, first read after ${seconds(rb.medianSecondsToFirstRead)} (median; longest ${seconds(rb.maxSecondsToFirstRead)})` : ''),
      );
      if (skipped > 0) lines.push(ctx.out.dim(`(${String(skipped)} lines of the log are not events and were skipped)`));
      if (stats.unmatchedReads > 0) lines.push(ctx.out.dim(`(${stats.unmatchedReads} ${stats.unmatchedReads === 1 ? 'read' : 'reads'} of artifacts spilled before the log began)`));
      if (stats.rows.length > 0) lines.push('', table(stats.rows));
      if (html !== undefined) lines.push(ctx.out.dim(`(the page is in ${html})`));
      await ctx.print(`${lines.join('\n')}\n`);
    });
}
