/** `spillway stats --html`: the usage log as one self-contained page, on the audit page's kit. */
import { barChart, columnChart, escapeHtml as esc, figure, htmlPage, shortCount, timelineChart, type ChartBar, type TimelineLane } from '@spillway/audit';
import type { UsageBreakdown, UsageGroup, UsageRow, UsageStats } from '@spillway/usage';
import { formatBytes } from './format.js';

/** What the page says about where the figures come from. */
export interface StatsPageSource {
  /** The usage log's directory. */
  readonly dir: string;
  readonly enabled: boolean;
  /** The session as the user named it, if the page is about one. */
  readonly session?: string | undefined;
  /** Log lines that were not events. */
  readonly skippedLines: number;
}

/** Bars a chart draws at most; the table lists every row. */
const MAX_BARS = 12;

function sizeLabel(bytes: number): string {
  return formatBytes(bytes).replace(/\.0 /, ' ');
}

/** `< 1 KiB`, `1–4 KiB`, `256 KiB–1 MiB`, `≥ 1 MiB`. */
function bucketLabel(from: number, upTo: number | null): string {
  if (upTo === null) return `≥ ${sizeLabel(from)}`;
  if (from === 0) return `< ${sizeLabel(upTo)}`;
  const [low, lowUnit] = sizeLabel(from).split(' ');
  const high = sizeLabel(upTo);
  return high.endsWith(` ${lowUnit ?? ''}`) ? `${low ?? ''}–${high}` : `${sizeLabel(from)}–${high}`;
}

function seconds(value: number | null): string {
  if (value === null) return '-';
  return value < 90 ? `${String(value)} s` : value < 5400 ? `${String(Math.round(value / 60))} min` : `${String(Math.round(value / 3600))} h`;
}

function keptOutBars(groups: readonly UsageGroup[]): ChartBar[] {
  return groups.slice(0, MAX_BARS).map((g) => ({
    label: g.name,
    value: g.tokensKeptOut,
    note: `${g.name}: about ${shortCount(g.tokensKeptOut)} tokens kept out; ${String(g.spilled)} of ${String(g.results)} results spilled`,
  }));
}

/** The caption, saying when the chart shows only the first {@link MAX_BARS}. */
function most(caption: string, groups: readonly UsageGroup[]): string {
  return groups.length > MAX_BARS ? `${caption} (the ${String(MAX_BARS)} that kept most out of ${String(groups.length)})` : caption;
}

function table(rows: readonly UsageRow[]): string {
  if (rows.length === 0) return '';
  const body = rows
    .map(
      (r) =>
        `<tr><td>${esc(r.host)}</td><td class="name">${esc(r.tool)}</td><td>${String(r.results)}</td><td>${String(r.spilled)}</td><td>${esc(formatBytes(r.bytesKeptOut))}</td><td>${shortCount(r.tokensKeptOut)}</td><td>${String(r.readBack.artifacts)}</td><td>${String(r.readBack.reads)}</td><td>${esc(seconds(r.readBack.medianSecondsToFirstRead))}</td></tr>`,
    )
    .join('\n');
  return `<h2>Per host and tool</h2>\n<table><thead><tr><th>host</th><th class="name">tool</th><th>results</th><th>spilled</th><th>kept out</th><th>tokens</th><th>read back</th><th>reads</th><th title="median time from the spill to the first read">first read</th></tr></thead>\n<tbody>\n${body}\n</tbody></table>`;
}

function lanes(breakdown: UsageBreakdown): TimelineLane[] {
  return breakdown.sessions.map((s) => ({
    label: `${s.session.slice(0, 8)}… ${String(s.results)} results`,
    points: s.points.map((p) => ({
      t: p.t,
      value: p.tokensKeptOut,
      accent: p.kind === 'spilled',
      hollow: p.kind === 'read',
      note:
        p.kind === 'read'
          ? `${new Date(p.t).toISOString()}: a spilled result read back`
          : `${new Date(p.t).toISOString()}: ${p.tool}, ${formatBytes(p.bytes)}, ${p.kind}${p.kind === 'spilled' ? `, about ${shortCount(p.tokensKeptOut)} tokens kept out` : ''}`,
    })),
  }));
}

/**
 * Renders the usage figures as one HTML page with no script and no outside asset: the
 * totals, results by size, tokens kept out per tool and per MCP server, each session's
 * events in time, and the per-host-and-tool table. Every name is escaped.
 */
export function renderStatsHtml(stats: UsageStats, breakdown: UsageBreakdown, source: StatsPageSource): string {
  const t = stats.total;
  const rb = t.readBack;
  const scope = source.session === undefined ? 'all sessions' : `session ${source.session}`;
  const span = stats.from === null || stats.to === null ? 'no events yet' : `${String(stats.events)} events from ${new Date(stats.from).toISOString()} to ${new Date(stats.to).toISOString()}`;
  const notes = [
    source.enabled ? '' : '<p class="empty">The usage log is off: SPILLWAY_USAGE is set to turn it off, or its directory is not private.</p>',
    source.skippedLines > 0 ? `<p class="empty">${String(source.skippedLines)} lines of the log are not events and were skipped.</p>` : '',
    stats.unmatchedReads > 0 ? `<p class="empty">${String(stats.unmatchedReads)} reads of artifacts spilled before the log began.</p>` : '',
  ].join('');
  const sizes = columnChart(
    'sizes',
    'results by size',
    breakdown.sizes.map((b) => ({
      label: bucketLabel(b.from, b.upTo),
      value: b.results,
      note: `${b.upTo === null ? `${sizeLabel(b.from)} or more` : `${sizeLabel(b.from)} to ${sizeLabel(b.upTo)}`}: ${String(b.results)} results, ${String(b.spilled)} spilled`,
      accent: b.spilled > 0 && b.spilled === b.results,
    })),
    'result size',
  );
  const leftOut = breakdown.sessionsLeftOut > 0 ? ` (the ${String(breakdown.sessions.length)} most recent; ${String(breakdown.sessionsLeftOut)} more left out)` : '';
  const body = `<p>${esc(scope)}: ${esc(span)}. Log: <code>${esc(source.dir)}</code>.</p>
${notes}
<p>Results seen ${String(t.results)}, spilled ${String(t.spilled)}${t.kept > 0 ? `, over the cap but kept whole ${String(t.kept)}` : ''}. Kept out of context: ${esc(formatBytes(t.bytesKeptOut))} of ${esc(formatBytes(t.bytesSeen))} seen, about ${shortCount(t.tokensKeptOut)} tokens (4 bytes a token).</p>
<p>Read back: ${String(rb.artifacts)} of ${String(t.spilled)} spilled results, ${String(rb.reads)} read${rb.reads === 1 ? '' : 's'}${rb.artifacts > 0 ? `, first read after ${esc(seconds(rb.medianSecondsToFirstRead))} (median; longest ${esc(seconds(rb.maxSecondsToFirstRead))})` : ''}.</p>
${figure('Results by size', sizes, 'A green column: every result of that size was spilled.')}
${figure(most('Tokens kept out per tool', breakdown.tools), barChart('tools', 'tokens kept out per tool', keptOutBars(breakdown.tools)))}
${
  breakdown.servers.length === 0
    ? '<p class="empty">Tokens kept out per MCP server: no tool in the log names its server (as mcp__github__list_issues does); the MCP proxy records bare tool names.</p>'
    : figure(most('Tokens kept out per MCP server', breakdown.servers), barChart('servers', 'tokens kept out per MCP server', keptOutBars(breakdown.servers)), 'Servers are named by the tool names hosts give MCP tools, such as mcp__github__list_issues.')
}
${figure(`Sessions in time${leftOut}`, timelineChart('sessions', 'results per session in time', lanes(breakdown)), 'Green dots were spilled, their area growing with the tokens kept out; blue dots passed or were kept whole; rings are reads of a spilled result.')}
${table(stats.rows)}`;
  return htmlPage(source.session === undefined ? 'spillway stats' : `spillway stats: session ${source.session}`, body);
}
