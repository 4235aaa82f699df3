import { resolve } from 'node:path';
import { Command } from 'commander';
import { diagnoseHost, HOST_IDS, isHostId, type HostDiagnosis, type HostId } from '@spillway/hosts';
import { autoGcSettings, SPILLWAY_SCRIPT } from '../auto-gc.js';
import { CliError, oneLine, shellWord } from '../cli-error.js';
import { addCommonOptions, type CliContext, type CommonOptions } from '../context.js';
import { EXIT_CODES } from '../exit-codes.js';
import { formatBytes } from '../format.js';
import { jsonLine } from '../json.js';
import { localStoreHealth, objectStoreHealth, type StoreHealth } from '../store-health.js';
import { resolveStore } from '../store.js';

interface DoctorOptions extends CommonOptions {
  readonly host?: string;
  readonly configDir?: string;
}

const EXAMPLES = `
Examples:
  $ spillway doctor
  $ spillway doctor --host codex --config-dir ~/work/.codex
  $ spillway doctor --json | jq '.hosts[].servers[] | select(.status != "covered")'

For every host whose config it finds (or the one --host names), it lists the config files
it read, which MCP servers and hook-covered built-in tools run behind spillway and which do
not (servers added since setup included), the caps in force, other tools' hooks on the
same events, and the store's health: root, mode, free space, the last automatic cleanup
and the search index's size. Nothing is written. It exits 1 when something is not covered
(a server, a hook, a config it could not read, an unsafe root), else 0. Findings carry
stable codes; see docs/hosts.md.
`;

/** One line to act on: a finding's code, what it means, and a command that fixes it as printed (or `null`). */
interface Finding {
  readonly code: string;
  readonly host: HostId | null;
  readonly message: string;
  readonly hint: string | null;
}

/** `spillway doctor --json`: every field is present; values that do not apply are `null`. */
interface DoctorJson {
  readonly ok: boolean;
  readonly hosts: readonly HostDiagnosis[];
  readonly store: StoreHealth;
  readonly findings: readonly Finding[];
}

function tableName(table: readonly (string | number)[]): string {
  return table.map(String).join(' ');
}

function findingsOf(diagnosis: HostDiagnosis, setup: string): Finding[] {
  const host = diagnosis.host;
  const out: Finding[] = [];
  // Setup refuses a read-only file, so the command that fixes one makes it writable first.
  const readOnly = diagnosis.files.filter((f) => f.readOnly).map((f) => f.path);
  const hintFor = (file: string): string => (readOnly.includes(file) ? `chmod u+w ${shellWord(file)} && ${setup}` : setup);
  for (const file of diagnosis.files) {
    if (file.status === 'refused') out.push({ code: 'CONFIG_REFUSED', host, message: file.error ?? `${file.path} could not be read.`, hint: null });
  }
  for (const server of diagnosis.servers) {
    if (server.code === undefined || server.status === 'skipped') continue;
    const where = `${server.name} (${tableName(server.table)} in ${server.file})`;
    if (server.code === 'SERVER_NOT_COVERED') out.push({ code: server.code, host, message: `${where} is not behind spillway.`, hint: hintFor(server.file) });
    else if (server.code === 'REMOTE_NOT_COVERED') {
      out.push({
        code: server.code,
        host,
        message: `${where} is a remote server, which setup leaves as it is; to cover it, give it "command": "spillway" and "args": ["mcp", "--url", ${JSON.stringify(server.command)}] by hand (headers with --header).`,
        hint: null,
      });
    } else if (server.code === 'WRAPPER_BROKEN') {
      const pathOnly = server.detail?.endsWith('is not on PATH') === true;
      out.push({
        code: server.code,
        host,
        message: `${where} cannot start: ${server.detail ?? 'its command is gone'}.${pathOnly ? ' Put spillway on the PATH the host starts it with.' : ''}`,
        hint: pathOnly ? null : hintFor(server.file),
      });
    }
  }
  // A cap above the host's own is in force, but the host may cut what lies between the two.
  const capHint = (file: string): string => `${hintFor(file)} --max-inline-bytes ${String(diagnosis.defaultCap)}`;
  const above = (cap: number | undefined): boolean => cap !== undefined && cap > diagnosis.defaultCap;
  const capMessage = (what: string, cap: number | undefined): string =>
    `${what} has cap ${String(cap)} bytes, above the ${String(diagnosis.defaultCap)} setup picks for ${diagnosis.label} (${diagnosis.capReason}); a result between the two may be cut by the host.`;
  for (const server of diagnosis.servers) {
    if (server.status === 'covered' && above(server.cap)) out.push({ code: 'CAP_ABOVE_HOST', host, message: capMessage(`${server.name} (${tableName(server.table)} in ${server.file})`, server.cap), hint: capHint(server.file) });
  }
  for (const hook of diagnosis.hooks) {
    if (hook.status === 'covered' && above(hook.cap)) out.push({ code: 'CAP_ABOVE_HOST', host, message: capMessage(`spillway's ${hook.event} hook`, hook.cap), hint: capHint(hook.file) });
  }
  for (const hook of diagnosis.hooks) {
    if (hook.code === 'HOOK_MISSING') out.push({ code: hook.code, host, message: `${hook.tools.join(', ')} output is not covered: no spillway ${hook.event} hook in ${hook.file}.`, hint: hintFor(hook.file) });
    if (hook.code === 'HOOK_OUTDATED') {
      out.push({ code: hook.code, host, message: `spillway's ${hook.event} hook in ${hook.file} has the matcher an earlier setup wrote: ${hook.leftOut.join(', ')} output is not covered.`, hint: hintFor(hook.file) });
    }
    if (hook.code === 'HOOK_BROKEN') out.push({ code: hook.code, host, message: `spillway's ${hook.event} hook in ${hook.file} cannot start: ${hook.detail ?? 'its command is gone'}.`, hint: hintFor(hook.file) });
  }
  for (const setting of diagnosis.settings) {
    const where = `${setting.name} in ${setting.file}`;
    if (setting.code === 'SETTING_MISSING') out.push({ code: setting.code, host, message: `${where} is not set, so this is not covered: ${setting.purpose}.`, hint: hintFor(setting.file) });
    if (setting.code === 'SETTING_BROKEN') out.push({ code: setting.code, host, message: `${where} cannot work: ${setting.detail ?? 'what it names no longer exists'}.`, hint: hintFor(setting.file) });
    if (setting.code === 'SETTING_NOT_OURS') {
      out.push({ code: setting.code, host, message: `${where} is ${JSON.stringify(setting.value)}, another tool's, which setup leaves as it is; so this is not covered: ${setting.purpose}.`, hint: null });
    }
  }
  for (const hook of diagnosis.foreignHooks) {
    out.push({
      code: hook.code,
      host,
      message: `Another ${hook.event} hook${hook.matcher === undefined ? ' (every tool)' : ` (${hook.matcher})`} in ${hook.file} runs ${JSON.stringify(hook.command)}; it may rewrite or stop the same output as spillway.`,
      hint: null,
    });
  }
  return out;
}

function hostText(d: HostDiagnosis): string[] {
  if (!d.found) return [`${d.label} (${d.host}): not found (looked at ${d.files.map((f) => f.path).join(', ')}).`];
  const lines = [`${d.label} (${d.host}): setup's cap ${d.defaultCap} bytes.`];
  for (const file of d.files) lines.push(`  ${file.status.padEnd(8)} ${file.path}${file.scope === 'project' ? ' (project)' : ''}`);
  if (d.servers.length > 0) lines.push('  MCP servers:');
  for (const s of d.servers) {
    const status = s.status === 'not-covered' ? 'NOT COVERED' : s.status === 'broken' ? 'BROKEN' : s.status;
    const cap = s.cap === undefined ? '' : `, cap ${s.cap}`;
    const detail = s.detail === undefined ? '' : ` (${s.detail})`;
    lines.push(`    ${status.padEnd(12)} ${s.name} [${tableName(s.table)}, ${s.transport}${cap}]${detail}: ${s.command}`);
  }
  if (d.hooks.length > 0 || d.settings.length > 0) lines.push('  Built-in tools:');
  for (const h of d.hooks) {
    const status = h.status === 'not-covered' ? 'NOT COVERED' : h.status === 'broken' ? 'BROKEN' : h.status;
    lines.push(`    ${status.padEnd(12)} ${h.tools.join(', ')} (${h.event} hook${h.cap === undefined ? '' : `, cap ${h.cap}`})${h.detail === undefined ? '' : ` (${h.detail})`}`);
  }
  for (const s of d.settings) {
    const status = s.status === 'not-covered' ? 'NOT COVERED' : s.status === 'broken' ? 'BROKEN' : s.status;
    lines.push(`    ${status.padEnd(12)} ${s.name}${s.value === undefined ? '' : ` = ${settingValueText(s.value)}`}${s.detail === undefined ? '' : ` (${s.detail})`}`);
  }
  if (d.foreignHooks.length > 0) lines.push('  Other hooks on the same events:');
  for (const h of d.foreignHooks) lines.push(`    ${h.event} ${h.matcher ?? '*'}: ${h.command}`);
  lines.push(`  Not covered by design: ${d.notCovered}.`);
  return lines;
}

/**
 * A setting's value as the text shows it: one of several lines (a whole file, as OpenCode's
 * plugin, or a text block, as Codex's AGENTS.md block) by its first line and how many there
 * are, since on one line, its breaks escaped, it would run to thousands of characters.
 */
function settingValueText(value: string): string {
  // A final line break ends the last line; it does not start another.
  const lines = (value.endsWith('\n') ? value.slice(0, -1) : value).split('\n');
  if (lines.length === 1) return value;
  return `${lines[0] ?? ''} … (${String(lines.length)} lines; --json has them all)`;
}

function duration(ms: number): string {
  return ms % 86_400_000 === 0 ? `${ms / 86_400_000}d` : ms % 3_600_000 === 0 ? `${ms / 3_600_000}h` : `${Math.round(ms / 60_000)}min`;
}

function storeText(store: StoreHealth): string[] {
  const lines = ['Store:'];
  if (store.kind === 'object-store') lines.push(`  object store ${store.url ?? ''} (not probed)`);
  else {
    const state =
      store.exists === true
        ? `mode ${store.mode ?? '?'}, ${store.private === true ? 'private' : 'NOT PRIVATE'}`
        : store.checkError !== null
          ? `CANNOT BE CHECKED (${store.checkError})`
          : store.rootSource === 'default'
          ? 'not made yet (made on the first spill)'
          : 'MISSING (a named root is never made)';
    lines.push(`  root         ${store.root ?? ''} (${store.rootSource ?? ''}): ${state}`);
    if (store.freeBytes !== null) lines.push(`  free space   ${formatBytes(store.freeBytes)} of ${formatBytes(store.totalBytes ?? 0)}`);
    lines.push(`  last cleanup ${store.lastAutoCleanup ?? 'never'}`);
  }
  const auto = store.autoCleanup;
  lines.push(`  auto cleanup ${auto.enabled ? `on: older than ${duration(auto.maxAgeMs)} or over ${formatBytes(auto.maxTotalBytes)}, at most every ${duration(auto.intervalMs)}` : 'off'}`);
  lines.push(`  search index ${store.searchIndex === null ? 'in memory' : `${store.searchIndex.path}: ${store.searchIndex.bytes === null ? 'none yet' : formatBytes(store.searchIndex.bytes)}`}`);
  return lines;
}

/** Registers `spillway doctor`: what runs behind spillway in each host, and the store's health. */
export function registerDoctor(program: Command, ctx: CliContext): void {
  const command = program
    .command('doctor')
    .description('Check which MCP servers and built-in tools of each host run behind spillway, and the store\'s health.')
    .option('--host <host>', `only this host (${HOST_IDS.join(', ')})`)
    .option('--config-dir <dir>', "with --host: the host's user config directory, as given to setup");
  addCommonOptions(command, { json: true });
  command.addHelpText('after', EXAMPLES).action(async (options: DoctorOptions) => {
    if (options.host !== undefined && !isHostId(options.host)) throw new CliError('USAGE', `Unknown host '${options.host}'; choose one of ${HOST_IDS.join(', ')}.`);
    if (options.configDir !== undefined && options.host === undefined) {
      throw new CliError('USAGE', '--config-dir names one host\'s directory; add --host <host> (as with spillway setup).');
    }
    const configDir = options.configDir === undefined ? undefined : resolve(ctx.io.cwd, options.configDir);
    const env = { home: ctx.io.homedir, cwd: ctx.io.cwd, env: ctx.io.env, configDir, command: { node: process.execPath, spillway: SPILLWAY_SCRIPT } };
    const hosts = options.host !== undefined && isHostId(options.host) ? [options.host] : HOST_IDS;
    const diagnoses = hosts.map((host) => diagnoseHost(host, env));
    const findings: Finding[] = [];
    for (const d of diagnoses) {
      if (!d.found) continue;
      // The hint names every option that chose the files, so that it works as printed.
      const hint = `spillway setup ${d.host}${configDir === undefined ? '' : ` --config-dir ${shellWord(configDir)}`}`;
      findings.push(...findingsOf(d, hint));
    }
    const store = await storeHealth(ctx, options);
    findings.push(...store.findings.map((f) => ({ ...f, host: null })));
    const ok = !diagnoses.some((d) => d.uncovered) && !store.findings.some((f) => f.code === 'STORE_UNSAFE');
    if (!ok) ctx.exitCode = EXIT_CODES.FAILURE;
    if (options.json === true) {
      const doc: DoctorJson = { ok, hosts: diagnoses, store, findings };
      return ctx.print(jsonLine(withNulls(doc)));
    }
    const lines: string[] = [];
    for (const d of diagnoses) lines.push(...hostText(d));
    lines.push(...storeText(store));
    if (!diagnoses.some((d) => d.found)) lines.push('No host config found in the default places (--host with --config-dir looks elsewhere).');
    // Findings that one command fixes print that command once, after the last of them.
    findings.forEach((f, i) => {
      lines.push(`${f.code}: ${f.message}`);
      if (f.hint !== null && !findings.slice(i + 1).some((later) => later.hint === f.hint)) lines.push(`  run: ${f.hint}`);
    });
    const found = diagnoses.some((d) => d.found);
    lines.push(!ok ? 'Something is not covered (see above).' : found ? 'Everything found runs behind spillway.' : 'Nothing runs behind spillway yet: `spillway setup <host>` sets a host up.');
    return ctx.print(`${lines.map(oneLine).join('\n')}\n`);
  });
}

async function storeHealth(ctx: CliContext, options: DoctorOptions): Promise<StoreHealth> {
  const { parseByteSize, parseDuration } = await import('@spillway/retention');
  const settings = autoGcSettings(ctx.io.env, ctx.io.homedir, parseDuration, parseByteSize);
  const store = resolveStore(options.store, options.root, ctx.io.env);
  if (store !== undefined && store.path === undefined) return objectStoreHealth(store.url, settings, ctx.searchIndexPlace(options)?.location ?? ':memory:');
  const root = ctx.root(options);
  const { indexDirFor, INDEX_FILE_NAME } = await import('@spillway/search');
  return localStoreHealth(root.path, root.source, options.root, settings, resolve(indexDirFor(root.path), INDEX_FILE_NAME));
}

/** `value` with every `undefined` property made `null`, so that `--json` has every field. */
function withNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withNulls);
  if (value === null || typeof value !== 'object') return value === undefined ? null : value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withNulls(v)]));
}
