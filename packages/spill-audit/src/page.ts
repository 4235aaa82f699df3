/**
 * The parts every spillway report page shares: one self-contained HTML document (inline CSS
 * and SVG, no script, no outside asset), escaping, and the charts. Every data mark a chart
 * draws has the class `mark`, so a test can tell a chart with data from an empty one.
 */

/** Escapes `text` for HTML text and attribute values (`& < > " '`). */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${String(ch.charCodeAt(0))};`);
}

/** A count in short form: 950, 1.2k, 3.4M. */
export function shortCount(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n);
}

const STYLE = [
  'body{font:14px/1.4 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;color:#222;background:#fff}',
  'h2{margin-top:1.6em;font-size:1.15em}',
  'table{border-collapse:collapse;margin:.5em 0}',
  'td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right;white-space:nowrap}',
  'td:first-child,th:first-child,.name{text-align:left}',
  'td.name{white-space:normal;min-width:16em;max-width:24em;overflow-wrap:anywhere}',
  'figure{margin:1.4em 0}figcaption{font-weight:600;margin-bottom:.3em}.note{color:#555;font-size:.9em;margin:.2em 0 0}',
  'svg{max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#333}',
  '.empty{color:#777;font-style:italic}',
].join('');

/** A whole page. `title` is text (escaped here); `body` is HTML the caller built and escaped. */
export function htmlPage(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head><body>
<h1>${escapeHtml(title)}</h1>
${body}
</body></html>
`;
}

/** One bar of {@link barChart} or {@link columnChart}. */
export interface ChartBar {
  /** The label under or beside the bar (text, escaped when drawn). */
  readonly label: string;
  /** Its length against the largest value (a bar chart draws a hairline for 0, so every row shows; a column chart draws nothing). */
  readonly value: number;
  /** The tooltip (text); the label and value when absent. */
  readonly note?: string;
  /** Drawn in the accent colour. */
  readonly accent?: boolean;
}

const BAR = '#7aa6c2';
const ACCENT = '#2b7a3d';
const WIDTH = 640;

/** Chart width in SVG units; every chart is this wide, so they line up on the page. */
export const CHART_WIDTH = WIDTH;

/**
 * An SVG chart element of {@link CHART_WIDTH} by `height` around `parts` (SVG the caller
 * built and escaped), named by `data-chart` and labelled for screen readers.
 */
export function chartSvg(name: string, height: number, label: string, parts: readonly string[]): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="${escapeHtml(name)}" viewBox="0 0 ${String(WIDTH)} ${String(height)}" width="${String(WIDTH)}" height="${String(height)}" role="img" aria-label="${escapeHtml(label)}">${parts.join('')}</svg>`;
}

/**
 * A chart in a figure under its caption, with an optional `note` (how to read it) below;
 * or, with no chart, a line saying there is nothing to draw. Caption and note are text.
 */
export function figure(caption: string, chart: string | undefined, note?: string): string {
  if (chart === undefined) return `<p class="empty">${escapeHtml(caption)}: no data.</p>`;
  const below = note === undefined ? '' : `<p class="note">${escapeHtml(note)}</p>`;
  return `<figure><figcaption>${escapeHtml(caption)}</figcaption>${chart}${below}</figure>`;
}

/** `label` in at most `max` characters, cut in the middle: names that share a prefix (mcp__github__…) stay apart. */
function cut(label: string, max: number): string {
  if (label.length <= max) return label;
  const head = Math.ceil((max - 1) / 2);
  return `${label.slice(0, head)}…${label.slice(label.length - (max - 1 - head))}`;
}

/**
 * Horizontal bars, one a row, largest scale first as given; `format` writes each value at
 * the bar's end. `undefined` when there is no bar or every value is 0.
 */
export function barChart(name: string, label: string, bars: readonly ChartBar[], format: (n: number) => string = shortCount): string | undefined {
  if (bars.length === 0 || bars.every((b) => b.value <= 0)) return undefined;
  const row = 22;
  const left = 215;
  const right = 70;
  const height = bars.length * row + 10;
  const most = Math.max(...bars.map((b) => b.value));
  const parts = bars.map((b, i) => {
    const y = 5 + i * row;
    const w = Math.max(1, ((WIDTH - left - right) * b.value) / most);
    const note = b.note ?? `${b.label}: ${format(b.value)}`;
    return (
      `<text x="${String(left - 6)}" y="${String(y + 15)}" text-anchor="end">${escapeHtml(cut(b.label, 30))}</text>` +
      `<rect class="mark" x="${String(left)}" y="${String(y + 3)}" width="${w.toFixed(1)}" height="${String(row - 6)}" fill="${b.accent === true ? ACCENT : BAR}"><title>${escapeHtml(note)}</title></rect>` +
      `<text x="${(left + w + 4).toFixed(1)}" y="${String(y + 15)}">${escapeHtml(format(b.value))}</text>`
    );
  });
  return chartSvg(name, height, label, parts);
}

/** Vertical columns over labelled buckets, e.g. a size distribution. `undefined` when every value is 0. */
export function columnChart(name: string, label: string, bars: readonly ChartBar[], axis: string): string | undefined {
  if (bars.length === 0 || bars.every((b) => b.value <= 0)) return undefined;
  const height = 240;
  const pad = 36;
  const most = Math.max(...bars.map((b) => b.value));
  const step = (WIDTH - 2 * pad) / bars.length;
  const parts: string[] = [];
  for (const [i, b] of bars.entries()) {
    const x = pad + i * step;
    const h = ((height - 2 * pad) * b.value) / most;
    const note = b.note ?? `${b.label}: ${String(b.value)}`;
    if (b.value > 0) {
      parts.push(`<rect class="mark" x="${(x + step * 0.12).toFixed(1)}" y="${(height - pad - h).toFixed(1)}" width="${(step * 0.76).toFixed(1)}" height="${h.toFixed(1)}" fill="${b.accent === true ? ACCENT : BAR}"><title>${escapeHtml(note)}</title></rect>`);
      parts.push(`<text x="${(x + step / 2).toFixed(1)}" y="${(height - pad - h - 4).toFixed(1)}" text-anchor="middle">${escapeHtml(shortCount(b.value))}</text>`);
    }
    parts.push(`<text x="${(x + step / 2).toFixed(1)}" y="${String(height - pad + 15)}" text-anchor="middle">${escapeHtml(cut(b.label, 14))}</text>`);
  }
  parts.push(`<line x1="${String(pad)}" x2="${String(WIDTH - pad)}" y1="${String(height - pad)}" y2="${String(height - pad)}" stroke="#333"/>`);
  parts.push(`<text x="${String(WIDTH / 2)}" y="${String(height - 6)}" text-anchor="middle">${escapeHtml(axis)}</text>`);
  return chartSvg(name, height, label, parts);
}

/** One row of {@link timelineChart}: its label and its points in time. */
export interface TimelineLane {
  /** Text beside the lane (escaped when drawn). */
  readonly label: string;
  /** The lane's points, in any order. */
  readonly points: readonly {
    /** Epoch milliseconds. */
    readonly t: number;
    /** Drawn larger for a larger value (0 draws the smallest dot). */
    readonly value: number;
    readonly accent?: boolean;
    /** Drawn as a ring rather than a dot (e.g. a read rather than a result). */
    readonly hollow?: boolean;
    /** The tooltip (text). */
    readonly note: string;
  }[];
}

/**
 * One lane per row over a shared time axis: a line from each lane's first point to its
 * last, and a dot per point, its area growing with its value. `undefined` with no point.
 */
export function timelineChart(name: string, label: string, lanes: readonly TimelineLane[]): string | undefined {
  const all = lanes.flatMap((l) => l.points.map((p) => p.t));
  if (all.length === 0) return undefined;
  const row = 26;
  const left = 150;
  const right = 20;
  const top = 8;
  const height = top + lanes.length * row + 34;
  const from = Math.min(...all);
  const to = Math.max(...all);
  const span = Math.max(1, to - from);
  // Inset by the largest dot's radius, so that no dot runs into a label or off the edge.
  const inset = 10;
  const x = (t: number): number => left + inset + ((WIDTH - left - right - 2 * inset) * (t - from)) / span;
  const most = Math.max(1, ...lanes.flatMap((l) => l.points.map((p) => p.value)));
  const parts: string[] = [];
  for (const [i, lane] of lanes.entries()) {
    const y = top + i * row + row / 2;
    parts.push(`<text x="${String(left - 8)}" y="${String(y + 4)}" text-anchor="end">${escapeHtml(cut(lane.label, 22))}</text>`);
    const times = lane.points.map((p) => p.t);
    if (times.length === 0) continue;
    parts.push(`<line x1="${x(Math.min(...times)).toFixed(1)}" x2="${x(Math.max(...times)).toFixed(1)}" y1="${String(y)}" y2="${String(y)}" stroke="#bbb" stroke-width="2"/>`);
    for (const p of lane.points) {
      const r = 2.5 + 6.5 * Math.sqrt(Math.max(0, p.value) / most);
      const colour = p.accent === true ? ACCENT : BAR;
      const paint = p.hollow === true ? `fill="#fff" stroke="${colour}" stroke-width="1.5"` : `fill="${colour}" fill-opacity="0.8"`;
      parts.push(`<circle class="mark" cx="${x(p.t).toFixed(1)}" cy="${String(y)}" r="${r.toFixed(1)}" ${paint}><title>${escapeHtml(p.note)}</title></circle>`);
    }
  }
  const axisY = top + lanes.length * row + 6;
  parts.push(`<line x1="${String(left)}" x2="${String(WIDTH - right)}" y1="${String(axisY)}" y2="${String(axisY)}" stroke="#333"/>`);
  const stamp = (t: number): string => new Date(t).toISOString().slice(0, 16).replace('T', ' ');
  parts.push(`<text x="${String(left)}" y="${String(axisY + 16)}">${escapeHtml(stamp(from))}</text>`);
  if (span >= 120_000) parts.push(`<text x="${x(from + span / 2).toFixed(1)}" y="${String(axisY + 16)}" text-anchor="middle">${escapeHtml(stamp(from + span / 2).slice(11))}</text>`);
  parts.push(`<text x="${String(WIDTH - right)}" y="${String(axisY + 16)}" text-anchor="end">${escapeHtml(`${stamp(to)} UTC`)}</text>`);
  return chartSvg(name, height, label, parts);
}
