import { relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { AuditError, renderAuditHtml, runAudit, setupCapFor, transcriptRoot, type AuditGroup, type AuditProgress, type AuditReport, type TranscriptFormat } from '@spillway/audit';
import { searchOutputOnDemand } from '../audit-search.js';
import { CliError, oneLine } from '../cli-error.js';
import { DEBUG_OPTION, type CliContext } from '../context.js';
import { jsonLine } from '../json.js';
import { parseShare, positiveInt } from '../options.js';
import { ProgressLine, itemsProgressText } from '../progress-line.js';
import { assertNewPage, writeNewPage } from '../write-page.js';

/**
 * The MCP servers OpenCode's configs name (the user's and this project's): OpenCode's tool
 * names do not set the server apart, so the audit needs the names to group by server. An
 * unreadable config gives no names; the tools are then reported under their whole names.
 */
async function openCodeServers(ctx: CliContext): Promise<string[]> {
  const { diagnoseHost } = await import('@spillway/hosts');
  try {
    const diagnosis = diagnoseHost('opencode', { home: ctx.io.homedir, cwd: ctx.io.cwd, env: ctx.io.env, command: { node: process.execPath, spillway: '' } });
    return [...new Set(diagnosis.servers.map((s) => s.name))];
  } catch {
    return [];
  }
}

interface AuditOptions {
  readonly host: TranscriptFormat;
  readonly cap?: number;
  readonly maxNeeded: number;
  readonly json?: boolean;
  readonly examples?: boolean;
  readonly html?: string;
  readonly threads?: number;
  /** `--no-search` makes it false. */
  readonly search: boolean;
}

const FORMATS: readonly TranscriptFormat[] = ['claude-code', 'codex', 'gemini', 'opencode', 'generic'];

const EXAMPLES = `
Examples:
  $ spillway audit
  $ spillway audit --host codex --cap 4096
  $ spillway audit --host opencode
  $ spillway audit --host generic ./traces/*.jsonl --json

Reads the transcripts the host keeps (Claude Code: $CLAUDE_CONFIG_DIR or ~/.claude,
projects/**/*.jsonl; Codex: $CODEX_HOME or ~/.codex, sessions/**/rollout-*.jsonl; Gemini CLI:
$GEMINI_CLI_HOME or ~, .gemini/tmp/**/session-*.jsonl; OpenCode: $XDG_DATA_HOME or
~/.local/share, opencode/opencode.db), or the files and directories given;
never writes them. Tokens are estimated at 4 bytes each.
An output's omitted part counts as needed later when a later tool call's arguments use a
distinctive string (6+ characters with a digit, /, . or _) that only that part held, or
read a line range (Read's offset, sed -n 'a,bp') of a file the output showed numbered
whose lines the preview left out.
For each such output (the first 200), spill_search is asked, with that call's words less
the needed strings, whether its answer holds the part (--no-search skips it).
Nothing of the transcripts is printed but with --examples.
`;

/** Reading less than this is over too soon to be worth a progress line. */
const PROGRESS_MIN_BYTES = 4 * 1024 * 1024;

/** One progress line of an audit, such as `reading 3 of 40 transcript files [####--------] 31% 120 MB of 386 MB`. */
export function renderAuditProgress(p: AuditProgress): string {
  return itemsProgressText('reading', 'transcript file', { items: p.files, itemsDone: p.filesDone, bytes: p.bytes, bytesDone: p.bytesDone });
}

// A bad --host, --cap, --max-needed or --threads is refused with the code runAudit gives
// for the same value (AUDIT_INVALID_OPTION, exit 2), whichever of the two sees it first.
function invalidOption(option: string, value: string, expected: string): AuditError {
  return new AuditError('AUDIT_INVALID_OPTION', `${option} '${value}' is not valid: give ${expected}.`);
}

function parseHost(value: string): TranscriptFormat {
  const found = FORMATS.find((f) => f === value);
  if (found === undefined) throw invalidOption('--host', value, `one of ${FORMATS.join(', ')}`);
  return found;
}

function parseRate(value: string): number {
  const share = parseShare(value);
  if (share === undefined) throw invalidOption('--max-needed', value, 'a share between 0 and 1, or a percentage such as 10%');
  return share;
}

function wholeNumber(option: string, what: string): (value: string) => number {
  return (value) => {
    try {
      return positiveInt(value);
    } catch {
      throw invalidOption(option, value, what);
    }
  };
}

function tokens(n: number): string {
  return n >= 1e6 ? `${(n / 1e6).toFixed(1)}M` : n >= 1e3 ? `${(n / 1e3).toFixed(1)}k` : String(n);
}

function count(n: number, noun: string): string {
  return `${String(n)} ${noun}${n === 1 ? '' : 's'}`;
}

function percent(part: number, whole: number): string {
  return whole === 0 ? '-' : `${Math.round((100 * part) / whole)} %`;
}

function table(groups: readonly AuditGroup[], first: string, limit: number): string[] {
  const head = [first, 'calls', 'spilled', 'tokens', 'kept out', 'needed later'];
  const body = groups.slice(0, limit).map((g) => [oneLine(g.name.length > 40 ? `${g.name.slice(0, 39)}…` : g.name), String(g.calls), String(g.spilled), tokens(g.tokens), tokens(g.tokensKeptOut), String(g.neededLater)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const more = groups.length > limit ? [`… and ${String(groups.length - limit)} more (--json lists all)`] : [];
  return [line(head), ...body.map(line), ...more];
}

/**
 * The cap to keep when none is recommended: the one `spillway setup` writes for a host; for a
 * harness's generic transcripts, which setup does not configure, the audit's default, which the
 * harness would pass as maxInlineBytes.
 */
function keepCap(format: TranscriptFormat): string {
  const cap = String(setupCapFor(format));
  return format === 'generic'
    ? `keep a cap of ${cap} bytes, the default for generic transcripts (no spillway setup configures a harness: it passes the cap as maxInlineBytes; --cap audits another)`
    : `keep the cap spillway setup writes (${cap} bytes for ${format})`;
}

function summary(r: AuditReport, ctx: CliContext, examples: boolean, searchSkipped: boolean): string {
  const t = r.total;
  const lines: string[] = [];
  lines.push(`${r.format}: ${count(r.files, 'transcript file')}, ${count(r.sessions.length, 'session')}, ${count(t.calls, 'tool output')}, about ${tokens(t.tokens)} tokens`);
  lines.push(`at the cap of ${r.cap} bytes: ${t.spilled} spilled, about ${tokens(t.tokensKeptOut)} tokens kept out of context (${percent(t.tokensKeptOut, t.tokens)})`);
  lines.push(`needed later: ${t.neededLater} of ${t.spilled} with spillway's preview, ${t.neededLaterHeadTail} with a plain head+tail`);
  if (r.search !== undefined && r.search.checked > 0) {
    const past = r.search.unchecked > 0 ? ` (the first ${String(r.search.checked)} searched of ${String(r.search.checked + r.search.unchecked)})` : '';
    lines.push(`spill_search, given the later call's words, finds ${String(r.search.found)} of ${String(r.search.checked)}${past}; without the needed strings, ${String(r.search.foundWithoutNeeded)}`);
  }
  if (searchSkipped) lines.push(ctx.out.dim('(spill_search could not run here, its libsql binary did not load: whether it finds the needed part was not checked)'));
  if (t.overHostLimit > 0) lines.push(`the host itself would cut or refuse ${t.overHostLimit} of these outputs`);
  if (t.hostCut > 0) lines.push(`with the host's own preview (the part it showed of ${count(t.hostCut, 'output')} it stored in files): needed later ${t.neededLaterHost} of ${t.hostCut}`);
  if (r.skippedLines > 0) lines.push(ctx.out.dim(`(${r.skippedLines} of ${r.lines} lines could not be read and were skipped; --json names the first)`));
  if (r.callsWithoutOutput > 0) lines.push(ctx.out.dim(`(${r.callsWithoutOutput} tool calls have no output in the transcript)`));
  const { read, missing } = r.storedOutputs;
  if (read + missing > 0) lines.push(ctx.out.dim(`(${count(read + missing, 'output')} the host stored in files itself: ${read} read from their files, ${missing} judged by the note left in the transcript, their files gone or over 64 MiB)`));
  if (r.tools.length > 0) lines.push('', ...table(r.tools, 'tool', 8));
  if (r.servers.length > 0) lines.push('', ...table(r.servers, 'MCP server', 4));
  const host = r.recommendations[0];
  lines.push('');
  if ((host?.cap == null || host.figures === null) && host?.unproven != null) {
    lines.push(`too few outputs spilled to recommend a cap with confidence; ${keepCap(r.format)}, and audit more sessions`);
  } else if ((host?.cap == null || host.figures === null) && host?.candidates.every((f) => f.spilled === 0) !== false) {
    lines.push(`no output is over ${String(host?.candidates[0]?.cap ?? r.cap)} bytes, so nothing would spill; ${keepCap(r.format)}`);
  } else if (host.cap == null || host.figures === null) {
    lines.push(`no cap keeps the needed-later rate under ${percent(r.maxNeeded * 100, 100)}; keep outputs whole or raise --max-needed`);
  } else {
    const f = host.figures;
    lines.push(`recommended cap: ${host.cap} bytes, about ${tokens(f.tokensKeptOut)} tokens kept out, needed later ${f.neededLater} of ${f.spilled} (${percent(f.neededLater, f.spilled)}, limit ${percent(r.maxNeeded * 100, 100)})`);
    lines.push(r.format === 'generic' ? `  (pass it to spillway as maxInlineBytes in your harness)` : `  spillway setup ${r.format} --max-inline-bytes ${host.cap}`);
  }
  const unproven = host?.unproven;
  if (unproven !== undefined && unproven !== null) {
    lines.push(ctx.out.dim(`  (${unproven.cap} bytes would keep about ${tokens(unproven.tokensKeptOut)} tokens out, needed later ${unproven.neededLater} of ${unproven.spilled}: too few outputs spilled there to be sure the rate stays under the limit; audit more sessions)`));
  }
  const own = r.recommendations.slice(1).filter((x) => x.cap !== null && x.cap !== host?.cap);
  const perServer = own.filter((x) => x.scope.endsWith('/*'));
  const perTool = own.filter((x) => !x.scope.endsWith('/*'));
  for (const x of [...perTool.slice(0, 4), ...perServer.slice(0, 4)]) lines.push(ctx.out.dim(`  ${oneLine(x.scope)}: ${String(x.cap)} bytes would suit it alone`));
  if (examples && r.examples.length > 0) {
    lines.push('', "needed later with spillway's preview (the string a later call used, or the file:lines it read, that the preview omitted):");
    // Names and strings come from the transcripts: escaped, so none can drive the terminal.
    for (const e of r.examples.slice(0, 10)) lines.push(`  ${oneLine(e.tool)} (${e.bytes} bytes, session ${oneLine(e.session)}): ${oneLine(e.string)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Registers `spillway audit`: what spilling would do, measured on the transcripts a host keeps. */
export function registerAudit(program: Command, ctx: CliContext): void {
  program
    .command('audit')
    .description('Tell, from the transcripts a host keeps, what spilling would keep out of context and which cap to set.')
    .argument('[paths...]', 'transcript files or directories (default: where the host keeps them)')
    .option('--host <host>', `the host that wrote them: ${FORMATS.join(', ')}`, parseHost, 'claude-code')
    .option('--cap <bytes>', `the cap to report on (default: the host's setup cap, ${FORMATS.filter((f) => f !== 'generic').map((f) => `${f} ${String(setupCapFor(f))}`).join(', ')}; generic ${String(setupCapFor('generic'))}, which no setup writes)`, wholeNumber('--cap', 'a whole number of bytes, 1 or more'))
    .option('--max-needed <rate>', 'the highest share of spilled outputs needed later the recommendation accepts: 0 to 1 (0.1), or a percentage (10%)', parseRate, 0.1)
    .option('--examples', 'print the strings found needed later (transcript content)')
    .option('--json', 'print one JSON document with every figure')
    .option('--html <file>', 'also write the report as one self-contained HTML page, to a new file')
    .option('--no-search', 'do not ask whether spill_search, given the later call\'s words, finds each needed-later part')
    .option('--threads <n>', 'most threads to read transcript files on at once, up to 16 (default: 2, or 1 on one core); each thread adds its own memory', wholeNumber('--threads', 'a whole number of threads, 1 or more'))
    .option(...DEBUG_OPTION)
    .addHelpText('after', EXAMPLES)
    .action(async (paths: string[], options: AuditOptions) => {
      const html = options.html === undefined ? undefined : resolve(ctx.io.cwd, options.html);
      if (html !== undefined) {
        // The page must never land among the transcripts it describes.
        const roots = paths.length > 0 ? paths : [transcriptRoot(options.host, { env: ctx.io.env, home: ctx.io.homedir }) ?? ''];
        const inside = roots.filter((r) => r !== '').map((r) => relative(resolve(ctx.io.cwd, r), html)).some((rel) => rel === '' || (!rel.startsWith('..') && !rel.startsWith('/')));
        if (inside) throw new CliError('USAGE', `--html ${options.html} is among the transcripts being read; write the page somewhere else.`);
        assertNewPage(html);
      }
      // On a terminal, a progress line while the transcripts are read (on stderr, so --json stays whole).
      const line = ctx.io.stderr.isTTY === true ? new ProgressLine(ctx.io.stderr) : undefined;
      const onProgress = (p: AuditProgress): void => {
        if (p.bytes >= PROGRESS_MIN_BYTES) line?.draw(renderAuditProgress(p), p.bytesDone === 0 || p.filesDone === p.files);
      };
      // Loaded only when an output needs searching; when libsql cannot load, the audit goes on without the check.
      const onDemand = options.search ? searchOutputOnDemand() : undefined;
      const report = await runAudit({
        format: options.host,
        paths,
        ...(line === undefined ? {} : { onProgress }),
        ...(options.host === 'opencode' ? { mcpServers: await openCodeServers(ctx) } : {}),
        ...(options.cap === undefined ? {} : { cap: options.cap }),
        ...(options.threads === undefined ? {} : { threads: options.threads }),
        maxNeeded: options.maxNeeded,
        env: ctx.io.env,
        home: ctx.io.homedir,
        ...(onDemand === undefined ? {} : { searchOutput: onDemand.search }),
      }).finally(() => line?.done());
      if (html !== undefined) {
        await writeNewPage(html, renderAuditHtml(report, { examples: options.examples === true }));
      }
      const searchSkipped = onDemand?.unavailable() === true;
      if (options.json === true) {
        if (searchSkipped) await ctx.note('spillway: spill_search could not run here (its libsql binary did not load); the report has no search figures');
        // Without --examples, nothing of the transcripts but names and sizes.
        const contentFree = { ...report, calls: report.calls.map((c) => ({ ...c, caps: c.caps.map(({ example: _e, ...rest }) => rest) })), examples: report.examples.map(({ string: _s, ...rest }) => rest) };
        await ctx.print(jsonLine(options.examples === true ? report : contentFree));
        return;
      }
      await ctx.print(summary(report, ctx, options.examples === true, searchSkipped) + (html === undefined ? '' : `${ctx.out.dim(`(the page is in ${html})`)}\n`));
    });
}
