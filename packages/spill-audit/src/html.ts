/** The audit as one self-contained HTML page: inline CSS and SVG, no script, no outside asset. */
import type { AuditGroup, AuditReport, CapFigures } from './audit.js';
import { CHART_WIDTH, barChart, chartSvg, escapeHtml as esc, figure, htmlPage, shortCount as tokens } from './page.js';

function count(n: number, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

function pct(rate: number): string {
  return `${(rate * 100).toFixed(rate > 0 && rate < 0.1 ? 1 : 0)} %`;
}

function groupTable(title: string, groups: readonly AuditGroup[], searched: boolean): string {
  if (groups.length === 0) return '';
  // The column of what spill_search finds only when the audit searched, so a page without it is as before.
  const found = (g: AuditGroup): string => (searched ? `<td>${String(g.foundBySearch ?? 0)}</td>` : '');
  const rows = groups
    .map((g) => `<tr><td class="name">${esc(g.name)}</td><td>${String(g.calls)}</td><td>${String(g.spilled)}</td><td>${tokens(g.tokens)}</td><td>${tokens(g.tokensKeptOut)}</td><td>${String(g.neededLater)}</td>${found(g)}<td>${String(g.neededLaterHeadTail)}</td></tr>`)
    .join('\n');
  return `<h2>${esc(title)}</h2>\n<table><thead><tr><th>name</th><th>calls</th><th>spilled</th><th>tokens</th><th>kept out</th><th>needed later</th>${searched ? '<th>found by spill_search</th>' : ''}<th>needed, head+tail</th></tr></thead>\n<tbody>\n${rows}\n</tbody></table>`;
}

/** Bars a chart draws at most; the tables list every group. */
const MAX_BARS = 12;

/** The groups that kept most out, as bars (the first {@link MAX_BARS}). */
function keptOutChart(name: string, caption: string, groups: readonly AuditGroup[]): string {
  if (groups.length === 0) return '';
  const top = [...groups].sort((a, b) => b.tokensKeptOut - a.tokensKeptOut).slice(0, MAX_BARS);
  const bars = top.map((g) => ({ label: g.name, value: g.tokensKeptOut, note: `${g.name}: about ${tokens(g.tokensKeptOut)} tokens kept out, ${String(g.spilled)} of ${String(g.calls)} outputs spilled` }));
  const title = groups.length > MAX_BARS ? `${caption} (the ${String(MAX_BARS)} that kept most out of ${String(groups.length)})` : caption;
  return figure(title, barChart(name, caption, bars));
}

/** Bars: tokens kept out per cap; dots: the needed-later rate; a dashed line: the accepted rate. */
function chart(candidates: readonly CapFigures[], maxNeeded: number, chosen: number | null): string {
  const w = CHART_WIDTH;
  const h = 260;
  const pad = 40;
  const most = Math.max(1, ...candidates.map((c) => c.tokensKeptOut));
  const step = (w - 2 * pad) / Math.max(1, candidates.length);
  const y = (rate: number): number => h - pad - rate * (h - 2 * pad);
  const parts: string[] = [];
  for (const [i, c] of candidates.entries()) {
    const x = pad + i * step;
    const bar = ((h - 2 * pad) * c.tokensKeptOut) / most;
    const fill = c.cap === chosen ? '#2b7a3d' : '#7aa6c2';
    parts.push(`<rect class="mark" x="${(x + step * 0.15).toFixed(1)}" y="${(h - pad - bar).toFixed(1)}" width="${(step * 0.7).toFixed(1)}" height="${bar.toFixed(1)}" fill="${fill}"><title>${String(c.cap)} bytes: ${tokens(c.tokensKeptOut)} tokens kept out, ${String(c.neededLater)} of ${String(c.spilled)} needed later</title></rect>`);
    parts.push(`<circle class="mark" cx="${(x + step / 2).toFixed(1)}" cy="${y(c.neededRate).toFixed(1)}" r="4" fill="#c0392b"/>`);
    parts.push(`<text x="${(x + step / 2).toFixed(1)}" y="${String(h - pad + 16)}" text-anchor="middle">${String(c.cap)}</text>`);
  }
  parts.push(`<line x1="${String(pad)}" x2="${String(w - pad)}" y1="${y(maxNeeded).toFixed(1)}" y2="${y(maxNeeded).toFixed(1)}" stroke="#c0392b" stroke-dasharray="4 4"/>`);
  parts.push(`<line x1="${String(pad)}" x2="${String(w - pad)}" y1="${String(h - pad)}" y2="${String(h - pad)}" stroke="#333"/>`);
  parts.push(`<text x="${String(pad)}" y="${String(pad - 12)}">bars: tokens kept out (most ${tokens(most)}); dots: needed-later rate (0 to 100 %); dashed: its limit, ${pct(maxNeeded)}</text>`);
  parts.push(`<text x="${String(w / 2)}" y="${String(h - 6)}" text-anchor="middle">cap, bytes</text>`);
  return chartSvg('caps', h, 'tokens kept out and needed-later rate per cap', parts);
}

/**
 * Renders `report` as one HTML page with no outside assets and no script. Every name is
 * escaped. The strings found needed later appear only when `examples` is true.
 */
export function renderAuditHtml(report: AuditReport, options: { readonly examples?: boolean } = {}): string {
  const t = report.total;
  const host = report.recommendations[0];
  const advice =
    host?.cap == null
      ? host?.candidates.some((f) => f.spilled > 0) === true
        ? `<p>No measured cap keeps the needed-later rate at or under ${pct(report.maxNeeded)} with confidence.</p>`
        : `<p>No output is over the smallest cap measured: nothing would spill.</p>`
      : `<p>Recommended cap: <b>${String(host.cap)} bytes</b>${report.format === 'generic' ? '' : ` — <code>spillway setup ${esc(report.format)} --max-inline-bytes ${String(host.cap)}</code>`}</p>`;
  const examples =
    options.examples === true && report.examples.length > 0
      ? `<h2>Needed later with spillway's preview</h2>\n<ul>${report.examples.map((e) => `<li>${esc(e.tool)} (${String(e.bytes)} bytes, session ${esc(e.session)}): <code>${esc(e.string)}</code></li>`).join('')}</ul>`
      : '';
  const searched = report.search !== undefined;
  const search =
    report.search === undefined || report.search.checked === 0
      ? ''
      : `<p>spill_search, given the later call's words, finds ${String(report.search.found)} of ${String(report.search.checked)} needed-later parts${report.search.unchecked > 0 ? ` (the first ${String(report.search.checked)} searched of ${String(report.search.checked + report.search.unchecked)})` : ''}; without the strings it needed, ${String(report.search.foundWithoutNeeded)}.</p>\n`;
  const body = `<p>${count(report.files, 'transcript file')}, ${count(report.sessions.length, 'session')}, ${count(t.calls, 'tool output')}, about ${tokens(t.tokens)} tokens (4 bytes a token).</p>
<p>At the cap of ${String(report.cap)} bytes: ${String(t.spilled)} spilled, about ${tokens(t.tokensKeptOut)} tokens kept out of context; needed later ${String(t.neededLater)} with spillway's preview, ${String(t.neededLaterHeadTail)} with a plain head+tail. The host itself would cut or refuse ${String(t.overHostLimit)}.${t.hostCut > 0 ? ` With the host's own preview (the part it showed of the ${String(t.hostCut)} it stored in files), needed later ${String(t.neededLaterHost)}.` : ''}</p>
${search}${advice}
${host === undefined ? '' : figure('Tokens kept out and needed-later rate per cap', chart(host.candidates, report.maxNeeded, host.cap), 'The recommended cap is the green bar: the one keeping most out while the needed-later rate stays under its limit.')}
${keptOutChart('tools', `Tokens kept out per tool at ${String(report.cap)} bytes`, report.tools)}
${keptOutChart('servers', `Tokens kept out per MCP server at ${String(report.cap)} bytes`, report.servers)}
${groupTable('Tools', report.tools, searched)}
${groupTable('MCP servers', report.servers, searched)}
${groupTable('Sessions', report.sessions, searched)}
${examples}`;
  return htmlPage(`spillway audit: ${report.format}`, body);
}
