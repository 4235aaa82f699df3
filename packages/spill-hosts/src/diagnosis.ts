/**
 * What `spillway doctor` says about a host: which of its config files were read, which MCP
 * servers and hook-covered built-in tools run behind spillway and which do not, the caps in
 * force, and the hooks of other tools on the same events. Read only: nothing is written.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute } from 'node:path';
import { parseHookCommand, parseWrapper, isSpillwayHook, type SpillwayWrapper } from './command.js';
import { readConfigFile } from './config-file.js';
import { HOSTS, hostFiles } from './hosts.js';
import { commandOf, decode, getIn, isObject, openDocument } from './setup.js';
import type { ConfigFileSpec, ConfigPath, HostId, SetupEnvironment } from './types.js';
import { missingPath } from './wrapper-update.js';
import { onPath } from './path-lookup.js';

/** The cap `spillway mcp` uses when a wrapper names none. */
const MCP_DEFAULT_CAP = 32_768;

/** The hook events whose entries can rewrite or stop a tool's output, in every host. */
const HOOK_EVENTS = ['PreToolUse', 'PostToolUse', 'BeforeTool', 'AfterTool'] as const;

/**
 * The stable code of each finding. `SERVER_NOT_COVERED`: a stdio server not behind spillway
 * (setup wraps it); `REMOTE_NOT_COVERED`: a remote server not behind spillway (wrap it by
 * hand with `spillway mcp --url`); `WRAPPER_BROKEN`: a wrapper whose node or spillway is
 * gone or not on PATH; `HOOK_MISSING`: spillway's hook is not installed; `HOOK_BROKEN`: its
 * node or spillway is gone; `HOOK_OUTDATED`: its group has the matcher an earlier setup wrote,
 * which leaves out tools setup covers today (setup run again widens it); `CONFIG_REFUSED`: a config that could not be read;
 * `FOREIGN_HOOK`: another tool's hook on the same events (a warning);
 * `SETTING_MISSING`: a setting setup writes (Claude Code's `CLAUDE_CODE_SHELL_PREFIX`) is not
 * there; `SETTING_BROKEN`: it names a script that is gone; `SETTING_NOT_OURS`: it holds
 * another tool's value, which setup leaves (a warning).
 */
export type DiagnosisCode =
  | 'SERVER_NOT_COVERED'
  | 'REMOTE_NOT_COVERED'
  | 'WRAPPER_BROKEN'
  | 'HOOK_MISSING'
  | 'HOOK_BROKEN'
  | 'HOOK_OUTDATED'
  | 'SETTING_MISSING'
  | 'SETTING_BROKEN'
  | 'SETTING_NOT_OURS'
  | 'CONFIG_REFUSED'
  | 'FOREIGN_HOOK';

/** One config file doctor looked at. */
export interface DiagnosedFile {
  readonly path: string;
  readonly scope: 'user' | 'project';
  /** `read`, `missing` (no such file) or `refused` (see `error`). */
  readonly status: 'read' | 'missing' | 'refused';
  readonly error?: string | undefined;
  /** A file read that has no owner write bit: setup refuses to change it until it does (`chmod u+w`). */
  readonly readOnly: boolean;
}

/** One MCP server entry. */
export interface DiagnosedServer {
  readonly name: string;
  /** The config file it is in. */
  readonly file: string;
  /** The table it is in, e.g. `["projects", "/home/me/app", "mcpServers"]`. */
  readonly table: ConfigPath;
  /** `covered`: behind spillway; `not-covered`: not; `broken`: a wrapper that cannot start; `skipped`: not an entry a host can start (no command). */
  readonly status: 'covered' | 'not-covered' | 'broken' | 'skipped';
  /** `stdio` or `remote`. */
  readonly transport: 'stdio' | 'remote';
  /** The command line (or URL) as configured. */
  readonly command: string;
  /** For a covered or broken server: the cap in force, in UTF-8 bytes (spillway mcp's default when the wrapper names none). */
  readonly cap?: number | undefined;
  /** For a wrapper: how spillway is started (see {@link SpillwayWrapper.form}). */
  readonly form?: SpillwayWrapper['form'] | undefined;
  /** Why it is broken or skipped. */
  readonly detail?: string | undefined;
  /** The finding, unless covered. */
  readonly code?: DiagnosisCode | undefined;
}

/** spillway's output hook for the host's built-in tools. */
export interface DiagnosedHook {
  readonly file: string;
  /** The event, e.g. `PostToolUse`. */
  readonly event: string;
  /**
   * The built-in tools it covers, e.g. `["Bash"]`: of the tools setup's matcher names, those
   * the installed groups' matchers run on, as the host evaluates a matcher (all of them while
   * it is not installed).
   */
  readonly tools: readonly string[];
  /** Of the tools setup's matcher names, those the installed hook does not run on (a narrower matcher). */
  readonly leftOut: readonly string[];
  readonly status: 'covered' | 'not-covered' | 'broken';
  /** The command installed, when there is one. */
  readonly command?: string | undefined;
  readonly cap?: number | undefined;
  readonly detail?: string | undefined;
  readonly code?: DiagnosisCode | undefined;
}

/** A setting setup writes (Claude Code's `env.CLAUDE_CODE_SHELL_PREFIX`) and what it covers. */
export interface DiagnosedSetting {
  readonly file: string;
  /** Its path, dotted: `env.CLAUDE_CODE_SHELL_PREFIX`. */
  readonly name: string;
  /** What it covers. */
  readonly purpose: string;
  readonly status: 'covered' | 'not-covered' | 'broken';
  /** The value found, when there is one. */
  readonly value: string | undefined;
  readonly detail: string | undefined;
  readonly code: 'SETTING_MISSING' | 'SETTING_BROKEN' | 'SETTING_NOT_OURS' | undefined;
}

/** A hook entry of another tool on one of the events that can rewrite a tool's output. */
export interface ForeignHook {
  readonly file: string;
  readonly event: string;
  /** Its matcher (`undefined`: every tool). */
  readonly matcher: string | undefined;
  readonly command: string;
  readonly code: 'FOREIGN_HOOK';
}

/** What doctor found for one host. */
export interface HostDiagnosis {
  readonly host: HostId;
  readonly label: string;
  /** Whether any of its config files exists. */
  readonly found: boolean;
  /** The cap setup writes for it. */
  readonly defaultCap: number;
  /** Why that cap. */
  readonly capReason: string;
  /** What setup cannot cover in it. */
  readonly notCovered: string;
  readonly files: readonly DiagnosedFile[];
  readonly servers: readonly DiagnosedServer[];
  /** Empty for a host without an output hook. */
  readonly hooks: readonly DiagnosedHook[];
  /** Empty for a host without such a setting. */
  readonly settings: readonly DiagnosedSetting[];
  readonly foreignHooks: readonly ForeignHook[];
  /** Whether something is not covered, broken or unread. */
  readonly uncovered: boolean;
}

/** Why a launcher (the words before `mcp` or `hook`) cannot start, or `undefined`. */
function launcherProblem(launcher: readonly string[], env: SetupEnvironment): string | undefined {
  const gone = missingPath(launcher);
  if (gone !== undefined) return `${gone} no longer exists`;
  const first = launcher[0];
  if (first !== undefined && !isAbsolute(first) && onPath(first, env) === undefined) return `${first} is not on PATH`;
  return undefined;
}

function quoteWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word);
}

/** A header's value hidden (`Authorization: …`): doctor's output is the kind people paste into a bug report. */
function redactHeader(value: string): string {
  const colon = value.indexOf(':');
  return colon === -1 ? '…' : `${value.slice(0, colon)}: …`;
}

/** A command line for people, quoted where needed, `--header` values hidden. */
function displayLine(words: readonly string[]): string {
  return words
    .map((word, i) => (words[i - 1] === '--header' ? redactHeader(word) : word.startsWith('--header=') ? `--header=${redactHeader(word.slice(9))}` : word))
    .map(quoteWord)
    .join(' ');
}

function diagnoseServer(name: string, entry: Record<string, unknown>, spec: ConfigFileSpec, table: ConfigPath, env: SetupEnvironment): DiagnosedServer {
  const base = { name, file: spec.path, table, cap: undefined, form: undefined, detail: undefined, code: undefined };
  const line = commandOf(entry, spec);
  if (typeof line === 'string') {
    const url = [entry.url, entry.httpUrl].find((u): u is string => typeof u === 'string');
    if (line === 'a remote server') {
      return { ...base, status: 'not-covered', transport: 'remote', command: url ?? '(remote)', code: 'REMOTE_NOT_COVERED' };
    }
    return { ...base, status: 'skipped', transport: 'stdio', command: '', detail: line };
  }
  const command = displayLine([line.command, ...line.args]);
  const wrapper = parseWrapper(line);
  if (wrapper === undefined) return { ...base, status: 'not-covered', transport: 'stdio', command, code: 'SERVER_NOT_COVERED' };
  const transport = wrapper.url === undefined ? 'stdio' : 'remote';
  const cap = wrapper.cap ?? MCP_DEFAULT_CAP;
  const problem = launcherProblem(wrapper.launcher, env);
  if (problem !== undefined) return { ...base, status: 'broken', transport, command, cap, form: wrapper.form, detail: problem, code: 'WRAPPER_BROKEN' };
  return { ...base, status: 'covered', transport, command, cap, form: wrapper.form };
}

function diagnoseHook(spec: ConfigFileSpec, value: Record<string, unknown> | undefined, refused: boolean, host: HostId, env: SetupEnvironment): DiagnosedHook | undefined {
  const hook = spec.hook;
  if (hook === undefined) return undefined;
  const base = { file: spec.path, event: String(hook.path[hook.path.length - 1]), tools: hook.matcher.split('|'), leftOut: [], command: undefined, cap: undefined, detail: undefined, code: undefined };
  const groups = value === undefined ? undefined : getIn(value, hook.path);
  // Every group spillway's hook is in: the tools they run on together, and whether one has an earlier setup's matcher.
  let found: { command: string; cap: number | undefined } | undefined;
  const covered = new Set<string>();
  let outdated = false;
  for (const group of Array.isArray(groups) ? groups : []) {
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    for (const entry of group.hooks) {
      if (!isObject(entry) || typeof entry.command !== 'string' || !isSpillwayHook(entry.command, host)) continue;
      const parsed = parseHookCommand(entry.command);
      const problem = parsed === undefined ? undefined : launcherProblem(parsed.launcher, env);
      if (problem !== undefined) return { ...base, status: 'broken', command: entry.command, cap: parsed?.cap, detail: problem, code: 'HOOK_BROKEN' };
      found ??= { command: entry.command, cap: parsed?.cap };
      const matcher = typeof group.matcher === 'string' ? group.matcher : undefined;
      for (const tool of base.tools) if (hook.covers(matcher, tool)) covered.add(tool);
      if (matcher !== undefined && matcher !== hook.matcher && (hook.formerMatchers ?? []).includes(matcher)) outdated = true;
    }
  }
  if (found !== undefined) {
    const tools = base.tools.filter((tool) => covered.has(tool));
    const leftOut = base.tools.filter((tool) => !covered.has(tool));
    if (leftOut.length === 0) return { ...base, tools, status: 'covered', ...found };
    if (outdated) return { ...base, tools, leftOut, status: 'covered', ...found, detail: `an earlier setup's matcher, which leaves out ${leftOut.join(', ')}`, code: 'HOOK_OUTDATED' };
    return { ...base, tools, leftOut, status: 'covered', ...found, detail: `its matcher, not setup's, leaves out ${leftOut.join(', ')}; setup leaves a matcher you chose as it is` };
  }
  if (refused) return { ...base, status: 'not-covered', detail: 'its file could not be read' };
  // Setup makes a hook file only where the host keeps its config: without that folder the host
  // has not run here yet, and nothing is missing.
  if (value === undefined && !existsSync(dirname(spec.path))) {
    return { ...base, status: 'not-covered', detail: `${dirname(spec.path)} does not exist (the host has not run here yet); setup adds the hook once it does` };
  }
  return { ...base, status: 'not-covered', code: 'HOOK_MISSING' };
}

function diagnoseSetting(spec: ConfigFileSpec, value: Record<string, unknown> | undefined, refused: boolean): DiagnosedSetting | undefined {
  const setting = spec.setting;
  if (setting === undefined) return undefined;
  const base = { file: spec.path, name: setting.path.join('.'), purpose: setting.purpose, value: undefined, detail: undefined, code: undefined };
  if (refused) return { ...base, status: 'not-covered', detail: 'its file could not be read' };
  const found = value === undefined ? undefined : getIn(value, setting.path);
  if (found === undefined) {
    if (value === undefined && !existsSync(dirname(spec.path))) {
      return { ...base, status: 'not-covered', detail: `${dirname(spec.path)} does not exist (the host has not run here yet)` };
    }
    return { ...base, status: 'not-covered', code: 'SETTING_MISSING' };
  }
  const text = typeof found === 'string' ? found : JSON.stringify(found);
  if (!setting.isOurs(found)) return { ...base, status: 'not-covered', value: text, detail: "another tool's value, which setup leaves as it is", code: 'SETTING_NOT_OURS' };
  const needed = setting.needs === undefined ? text : setting.needs(text);
  if (needed !== undefined && !existsSync(needed)) return { ...base, status: 'broken', value: text, detail: `${needed} no longer exists`, code: 'SETTING_BROKEN' };
  return { ...base, status: 'covered', value: text };
}

function foreignHooks(file: string, value: Record<string, unknown>, host: HostId): ForeignHook[] {
  const found: ForeignHook[] = [];
  const hooks = value.hooks;
  if (!isObject(hooks)) return found;
  for (const event of HOOK_EVENTS) {
    const groups = hooks[event];
    if (!Array.isArray(groups)) continue;
    for (const group of groups) {
      if (!isObject(group) || !Array.isArray(group.hooks)) continue;
      const matcher = typeof group.matcher === 'string' && group.matcher !== '' ? group.matcher : undefined;
      for (const entry of group.hooks) {
        if (!isObject(entry)) continue;
        const command = typeof entry.command === 'string' ? entry.command : JSON.stringify(entry);
        if (isSpillwayHook(command, host)) continue;
        found.push({ file, event, matcher, command, code: 'FOREIGN_HOOK' });
      }
    }
  }
  return found;
}

/**
 * Looks at `hostId`'s config files (the ones `setupHost` edits, found the same way) and
 * says what runs behind spillway. Reads only; a file it cannot read is reported `refused`
 * and counts as not covered.
 */
export function diagnoseHost(hostId: HostId, env: SetupEnvironment): HostDiagnosis {
  const host = HOSTS[hostId];
  const cap = env.maxInlineBytes ?? host.cap;
  const files: DiagnosedFile[] = [];
  const servers: DiagnosedServer[] = [];
  const hooks: DiagnosedHook[] = [];
  const settings: DiagnosedSetting[] = [];
  const foreign: ForeignHook[] = [];
  const hookOnly = (host.hookOnlyFiles?.(env) ?? []).filter((spec) => !hostFiles(host, env, cap).some((f) => f.path === spec.path));
  for (const spec of [...hostFiles(host, env, cap), ...hookOnly]) {
    let value: Record<string, unknown> | undefined;
    try {
      const state = readConfigFile(spec, env.cwd);
      if (state.bytes === undefined) {
        files.push({ path: spec.path, scope: spec.scope, status: 'missing', error: undefined, readOnly: false });
      } else {
        value = openDocument(spec, decode(state.bytes).text).value();
        files.push({ path: spec.path, scope: spec.scope, status: 'read', error: undefined, readOnly: ((state.info?.mode ?? 0o600) & 0o200) === 0 });
      }
    } catch (error) {
      files.push({ path: spec.path, scope: spec.scope, status: 'refused', error: error instanceof Error ? error.message : String(error), readOnly: false });
    }
    const refused = files.at(-1)?.status === 'refused';
    const hook = diagnoseHook(spec, value, refused, hostId, env);
    if (hook !== undefined) hooks.push(hook);
    const setting = diagnoseSetting(spec, value, refused);
    if (setting !== undefined) settings.push(setting);
    if (value === undefined) continue;
    for (const table of spec.serverTables(value)) {
      const entries = getIn(value, table);
      if (!isObject(entries)) continue;
      for (const [name, entry] of Object.entries(entries)) {
        if (isObject(entry)) servers.push(diagnoseServer(name, entry, spec, table, env));
      }
    }
    foreign.push(...foreignHooks(spec.path, value, hostId));
  }
  const found = files.some((f) => f.status !== 'missing');
  const uncovered =
    found &&
    (files.some((f) => f.status === 'refused') || servers.some((s) => s.code !== undefined && s.status !== 'skipped') || hooks.some((h) => h.code !== undefined) ||
      settings.some((s) => s.code !== undefined && s.code !== 'SETTING_NOT_OURS'));
  return { host: hostId, label: host.label, found, defaultCap: host.cap, capReason: host.capReason, notCovered: host.notCovered, files, servers, hooks, settings, foreignHooks: foreign, uncovered };
}
