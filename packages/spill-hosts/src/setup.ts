import { createHash } from 'node:crypto';
import { existsSync, fchmodSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigRefusal, readConfigFile, replaceAtomically, writeConfigFile } from './config-file.js';
import { parseWrapper, spillwayLauncher, unwrapCommand, wrapWith, isSpillwayHook, type CommandLine } from './command.js';
import { ConfigParseError, isStrictJson, jsoncDocument, tomlDocument, type ConfigDocument } from './document.js';
import { lineDiff } from './diff.js';
import { instructionsDocument } from './instructions-document.js';
import { ownedFileDocument } from './owned-file-document.js';
import { isTrackedByGit } from './git-tracked.js';
import { onPath } from './path-lookup.js';
import { HOSTS, hostFiles } from './hosts.js';
import type { ConfigFileSpec, ConfigPath, FileReport, HostDefinition, HostId, SetupEnvironment, SetupReport } from './types.js';
import { readUndoRecord, recordOwner, removeUndoRecord, undoRecordPath, withSetupLock, writeUndoRecord, type UndoRecord } from './undo-records.js';
import { updateHook, updateWrapper } from './wrapper-update.js';

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The value at `path` in a parsed config, or `undefined`. */
export function getIn(value: unknown, path: ConfigPath): unknown {
  let target = value;
  for (const key of path) {
    if (target === null || typeof target !== 'object') return undefined;
    target = (target as Record<string | number, unknown>)[key];
  }
  return target;
}

/** Whether `value` is a plain object (not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) && value.every((v) => typeof v === 'string') ? value : undefined;
}

/** The command line of a stdio server entry, or why it is not one. */
export function commandOf(entry: Record<string, unknown>, spec: ConfigFileSpec): CommandLine | string {
  if (spec.style === 'command-array') {
    if (entry.type !== undefined && entry.type !== 'local') return 'a remote server';
    const parts = strings(entry.command);
    if (parts?.[0] === undefined) return 'no command';
    return { command: parts[0], args: parts.slice(1) };
  }
  if (typeof entry.url === 'string' || typeof entry.httpUrl === 'string' || entry.type === 'http' || entry.type === 'sse') return 'a remote server';
  if (typeof entry.command !== 'string' || entry.command === '') return 'no command';
  const args = entry.args === undefined ? [] : strings(entry.args);
  if (args === undefined) return 'args that are not strings';
  return { command: entry.command, args };
}

function setCommand(doc: ConfigDocument, spec: ConfigFileSpec, path: ConfigPath, line: CommandLine, keepArgs: boolean): void {
  if (spec.style === 'command-array') {
    doc.set([...path, 'command'], [line.command, ...line.args]);
    return;
  }
  doc.set([...path, 'command'], line.command);
  doc.set([...path, 'args'], keepArgs || line.args.length > 0 ? [...line.args] : undefined);
}

function display(line: CommandLine): string {
  return [line.command, ...line.args].join(' ');
}

/** The editable document of a config file's text. */
export function openDocument(spec: ConfigFileSpec, text: string): ConfigDocument {
  if (spec.format === 'markdown') return instructionsDocument(spec.path, text);
  if (spec.format === 'owned') return ownedFileDocument(text);
  return spec.format === 'toml' ? tomlDocument(spec.path, text) : jsoncDocument(spec.path, text);
}

const BOM = '\uFEFF';

/** A config file's text, and the byte order mark it began with (kept apart, and written back). */
export function decode(bytes: Uint8Array | undefined): { bom: string; text: string } {
  // The byte order mark is kept here (and set apart below), not dropped by the decoder.
  const text = bytes === undefined ? '' : new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes);
  return text.startsWith(BOM) ? { bom: BOM, text: text.slice(1) } : { bom: '', text };
}

/** Options for {@link setupHost} and {@link undoHost}. */
export interface SetupOptions {
  /** Print the change, write nothing. */
  readonly dryRun?: boolean | undefined;
}

function capOf(host: HostDefinition, env: SetupEnvironment): number {
  return env.maxInlineBytes ?? host.cap;
}

/**
 * Applies setup's edits to one document; returns the change lines, what to record, and how
 * many wrappers or hooks already there were brought up to date. `portable`: the file is
 * shared through git, so `spillway` is found through PATH instead of absolute paths.
 */
function editFile(
  host: HostDefinition,
  spec: ConfigFileSpec,
  doc: ConfigDocument,
  env: SetupEnvironment,
  cap: number,
  portable = false,
): {
  changes: string[];
  servers: UndoRecord['servers'][number][];
  hooks: UndoRecord['hooks'][number][];
  matchers: NonNullable<UndoRecord['matchers']>[number][];
  settings: NonNullable<UndoRecord['settings']>[number][];
  updated: number;
} {
  const changes: string[] = [];
  let updated = 0;
  const launcher = spillwayLauncher(portable ? undefined : env.command);
  const servers: UndoRecord['servers'][number][] = [];
  const hooks: UndoRecord['hooks'][number][] = [];
  const matchers: NonNullable<UndoRecord['matchers']>[number][] = [];
  const settings: NonNullable<UndoRecord['settings']>[number][] = [];
  // Every entry's new command, written in one pass at the end (one parse of a large file).
  const commands: { readonly path: ConfigPath; readonly line: CommandLine }[] = [];
  for (const tablePath of spec.serverTables(doc.value())) {
    const servers_ = getIn(doc.value(), tablePath);
    if (!isObject(servers_)) continue;
    for (const [name, entry] of Object.entries(servers_)) {
      if (!isObject(entry)) continue;
      const where = tablePath.length > 1 ? ` (${tablePath.slice(0, -1).join(' ')})` : '';
      const line = commandOf(entry, spec);
      if (typeof line === 'string') {
        changes.push(`left ${name}${where} as it is: ${line}`);
        continue;
      }
      const path = [...tablePath, name];
      const wrapper = parseWrapper(line);
      if (wrapper !== undefined) {
        const update = updateWrapper(wrapper, { launcher, cap: env.maxInlineBytes, host: host.id, portable });
        if (update === undefined) continue;
        commands.push({ path, line: update.line });
        updated++;
        changes.push(`updated ${name}${where} (${update.reasons.join('; ')}): ${display(update.line)}`);
        continue;
      }
      commands.push({ path, line: wrapWith(launcher, line, cap, host.id) });
      servers.push({ path, hadArgs: spec.style === 'command-array' || entry.args !== undefined });
      changes.push(`wrapped ${name}${where}: spillway mcp --max-inline-bytes ${cap} -- ${display(line)}`);
    }
  }
  doc.editEach(
    commands.map((c) => c.path),
    (sub, i) => {
      const line = commands[i]?.line;
      if (line !== undefined) setCommand(sub, spec, [], line, true);
    },
  );
  if (spec.hook !== undefined) {
    const groups = getIn(doc.value(), spec.hook.path);
    const installed =
      Array.isArray(groups) &&
      groups.some((group) => isObject(group) && Array.isArray(group.hooks) && group.hooks.some((h) => isObject(h) && isSpillwayHook(h.command, host.id)));
    if (installed) {
      const hook = spec.hook;
      const event = String(hook.path[hook.path.length - 1]);
      // spillway's hooks taken out of a group they shared, for a group of their own.
      const moved: Record<string, unknown>[] = [];
      (groups as unknown[]).forEach((group, g) => {
        if (!isObject(group) || !Array.isArray(group.hooks)) return;
        const entries = group.hooks;
        const ours = entries.flatMap((h, j) => (isObject(h) && isSpillwayHook(h.command, host.id) ? [j] : []));
        // A matcher an earlier setup wrote grows to today's tools; one a person chose stays. A
        // group that holds a person's hooks too keeps its matcher, for them: spillway's hook
        // leaves it instead.
        const former = ours.length > 0 && typeof group.matcher === 'string' && group.matcher !== hook.matcher && (hook.formerMatchers ?? []).includes(group.matcher);
        const alone = ours.length === entries.length;
        if (former && alone) {
          doc.set([...hook.path, g, 'matcher'], hook.matcher);
          matchers.push({ path: hook.path, from: String(group.matcher), to: hook.matcher });
          updated++;
          changes.push(`updated the ${event} hook's matcher from ${String(group.matcher)} to ${hook.matcher}`);
        }
        for (const j of ours) {
          const h = entries[j] as Record<string, unknown>;
          const update = typeof h.command === 'string' ? updateHook(h.command, env.command, env.maxInlineBytes, cap, host.id) : undefined;
          if (former && !alone) {
            moved.push(update === undefined ? h : { ...h, command: update.command });
            continue;
          }
          if (update === undefined) continue;
          doc.set([...hook.path, g, 'hooks', j, 'command'], update.command);
          updated++;
          changes.push(`updated the ${event} hook (${update.reasons.join('; ')}): ${update.command}`);
        }
        if (former && !alone) {
          for (const j of [...ours].reverse()) doc.set([...hook.path, g, 'hooks', j], undefined);
          changes.push(`moved spillway's ${event} hook out of the ${String(group.matcher)} group it shared with other hooks (which keep that matcher) into a group of its own for ${hook.matcher}`);
        }
      });
      if (moved.length > 0) {
        doc.append(hook.path, { matcher: hook.matcher, hooks: moved });
        for (const h of moved) hooks.push({ path: hook.path, command: String(h.command), created: null });
        updated++;
      }
    } else {
      const created = firstMissing(doc, spec.hook.path);
      doc.append(spec.hook.path, { matcher: spec.hook.matcher, hooks: [{ type: 'command', command: spec.hook.command }] });
      hooks.push({ path: spec.hook.path, command: spec.hook.command, created });
      changes.push(`added a ${String(spec.hook.path[spec.hook.path.length - 1])} hook for ${spec.hook.matcher}: ${spec.hook.command}`);
    }
  }
  if (spec.setting !== undefined) {
    const { path, value, purpose } = spec.setting;
    const current = getIn(doc.value(), path);
    const name = path.join('.');
    const shown = spec.setting.label ?? value;
    if (current === undefined) {
      settings.push({ path, created: firstMissing(doc, path) });
      doc.set(path, value);
      changes.push(`set ${name} to ${shown}: ${purpose}`);
    } else if (current !== value && spec.setting.isOurs(current)) {
      settings.push({ path, created: null });
      doc.set(path, value);
      changes.push(`updated ${name} to ${shown}`);
    } else if (current !== value) {
      changes.push(`left ${name} as it is (${JSON.stringify(current)}, not spillway's), so this is not covered: ${purpose}`);
    }
  }
  return { changes, servers, hooks, matchers, settings, updated };
}

/** The shortest prefix of `path` that the document lacks (what setting `path` creates), or `null`. */
function firstMissing(doc: ConfigDocument, path: ConfigPath): ConfigPath | null {
  for (let i = 1; i <= path.length; i++) {
    if (getIn(doc.value(), path.slice(0, i)) === undefined) return path.slice(0, i);
  }
  return null;
}

/** Removes the keys setup created to hold `path`, from the innermost out, once they hold nothing. */
function removeEmptyParents(doc: ConfigDocument, path: ConfigPath, created: ConfigPath): void {
  for (let end = path.length; end >= created.length; end--) {
    const at = path.slice(0, end);
    const value = getIn(doc.value(), at);
    const empty = Array.isArray(value) ? value.length === 0 : isObject(value) && Object.keys(value).length === 0;
    if (!empty) break;
    doc.set(at, undefined);
  }
}

/** Writes the file a setting names (0755, replaced atomically), when it differs. */
function writeSettingFile(file: NonNullable<ConfigFileSpec['setting']>['file']): void {
  if (file === undefined) return;
  mkdirSync(dirname(file.path), { recursive: true, mode: 0o700 });
  const content = Buffer.from(file.content, 'utf8');
  let current: Buffer | undefined;
  try {
    current = readFileSync(file.path);
  } catch {
    current = undefined;
  }
  if (current !== undefined && current.equals(content)) return;
  replaceAtomically(file.path, content, (fd) => {
    fchmodSync(fd, 0o755);
  });
}

function refused(spec: ConfigFileSpec, error: unknown): FileReport {
  const message = error instanceof ConfigParseError || error instanceof ConfigRefusal ? error.message : `Cannot use ${spec.path}: ${error instanceof Error ? error.message : String(error)}; it was left untouched.`;
  return { path: spec.path, scope: spec.scope, status: 'refused', changes: [], error: message, code: 'CONFIG_REFUSED' };
}

/**
 * One pass over `hostId`'s config files: `visit` answers each file's report; a file it
 * throws on is refused (reported, untouched) and the others still go ahead.
 */
function eachConfigFile(
  hostId: HostId,
  env: SetupEnvironment,
  options: SetupOptions,
  capReason: (host: HostDefinition) => string,
  visit: (host: HostDefinition, spec: ConfigFileSpec, cap: number, dryRun: boolean) => FileReport,
): SetupReport {
  const host = HOSTS[hostId];
  const cap = capOf(host, env);
  const dryRun = options.dryRun === true;
  const files: FileReport[] = [];
  const pass = (): void => {
    for (const spec of hostFiles(host, env, cap)) {
      try {
        files.push(visit(host, spec, cap, dryRun));
      } catch (error) {
        files.push(refused(spec, error));
      }
    }
  };
  try {
    if (dryRun) pass();
    else withSetupLock(env, pass);
  } catch (error) {
    // The lock or the state directory: nothing was read or written.
    if (!(error instanceof ConfigRefusal)) throw error;
    for (const spec of hostFiles(host, env, cap)) files.push(refused(spec, error));
  }
  return { host: hostId, cap, capReason: capReason(host), dryRun, files };
}

/**
 * Sets `host` up: wraps every stdio MCP server in its user and project configs with
 * `spillway mcp`, and installs the output hook where the host has one. Idempotent; an
 * unparseable file is refused (reported, untouched) and the others still go ahead.
 */
export function setupHost(hostId: HostId, env: SetupEnvironment, options: SetupOptions = {}): SetupReport {
  return eachConfigFile(hostId, env, options, (host) => (env.maxInlineBytes === undefined ? host.capReason : 'set by --max-inline-bytes'), (host, spec, cap, dryRun) => {
    const state = readConfigFile(spec, env.cwd);
    const bytes = state.bytes;
    // A hook file may be created, but only where the host keeps its config.
    const canCreate =
      spec.createIfMissing === 'directory' ? existsSync(dirname(dirname(spec.path))) : (spec.createIfMissing === 'file' || spec.hook !== undefined) && existsSync(dirname(spec.path));
    if (bytes === undefined && !canCreate) {
      return { path: spec.path, scope: spec.scope, status: 'missing', changes: [] };
    }
    if (bytes === undefined && !dryRun) mkdirSync(dirname(spec.path), { recursive: true });
    const { bom, text } = decode(bytes);
    const doc = openDocument(spec, text);
    const portable = spec.scope === 'project' && env.absolutePaths !== true && bytes !== undefined && isTrackedByGit(state.target);
    const edit = editFile(host, spec, doc, env, cap, portable);
    if (spec.strictJson === true && !isStrictJson(text)) {
      edit.changes.push(`warning: ${host.label} reads this file as strict JSON and ignores all of it while it has comments or trailing commas; remove them`);
    }
    const next = Buffer.from(bom + doc.text(), 'utf8');
    const changed = edit.servers.length > 0 || edit.hooks.length > 0 || edit.settings.length > 0 || edit.updated > 0;
    if (changed && portable) {
      edit.changes.push("git tracks this file, so it names spillway through PATH (\"spillway mcp …\"), not absolute paths of node and spillway; --absolute-paths writes those instead");
      if (onPath('spillway', env) === undefined) edit.changes.push('warning: spillway is not on PATH here, so the host cannot start these servers until it is');
    }
    // The file the setting names comes first: a config never names a missing script.
    if (!dryRun && spec.setting !== undefined && getIn(doc.value(), spec.setting.path) === spec.setting.value) writeSettingFile(spec.setting.file);
    if (!changed) {
      return { path: spec.path, scope: spec.scope, status: 'unchanged', changes: edit.changes };
    }
    if (dryRun) {
      return { path: spec.path, scope: spec.scope, status: 'changed', changes: edit.changes, diff: lineDiff(text, doc.text()) };
    }
    const previous = readUndoRecord(env, spec.path);
    const before = bytes ?? Buffer.alloc(0);
    const keepsOriginal = previous !== undefined && previous.original !== null && previous.after === sha256(before);
    // The config first: a record is never left for a change that did not happen.
    writeConfigFile(state, next);
    const written = readConfigFile(spec, env.cwd).info;
    const record: UndoRecord = {
      version: 2,
      host: hostId,
      configPath: resolve(spec.path),
      target: state.target,
      dev: written?.dev ?? 0,
      ino: written?.ino ?? 0,
      ...recordOwner(),
      existed: previous?.existed ?? bytes !== undefined,
      original: previous === undefined ? before.toString('base64') : keepsOriginal ? previous.original : null,
      originalMode: previous === undefined ? (state.info?.mode ?? null) : previous.originalMode,
      after: sha256(next),
      servers: [...(previous?.servers ?? []), ...edit.servers],
      hooks: [...(previous?.hooks ?? []), ...edit.hooks],
      ...(previous?.matchers !== undefined || edit.matchers.length > 0 ? { matchers: [...(previous?.matchers ?? []), ...edit.matchers] } : {}),
      settings: [...(previous?.settings ?? []), ...edit.settings],
    };
    writeUndoRecord(env, record);
    return { path: spec.path, scope: spec.scope, status: 'changed', changes: edit.changes };
  });
}

function removeHooks(doc: ConfigDocument, host: HostId, record: UndoRecord['hooks'][number]): boolean {
  const groups = getIn(doc.value(), record.path);
  if (!Array.isArray(groups)) return false;
  let removed = false;
  for (let i = groups.length - 1; i >= 0; i--) {
    const group: unknown = groups[i];
    if (!isObject(group) || !Array.isArray(group.hooks)) continue;
    const ours = group.hooks.map((h, j) => (isObject(h) && (h.command === record.command || isSpillwayHook(h.command, host)) ? j : -1)).filter((j) => j >= 0);
    if (ours.length === 0) continue;
    removed = true;
    if (ours.length === group.hooks.length) doc.set([...record.path, i], undefined);
    else for (const j of ours.reverse()) doc.set([...record.path, i, 'hooks', j], undefined);
  }
  // Remove what setup created to hold the hook, once it holds nothing else.
  if (record.created !== null) removeEmptyParents(doc, record.path, record.created);
  return removed;
}

/**
 * Gives back the matcher setup widened (`record.to` to `record.from`) in each group that
 * holds spillway's hook and, by now, hooks of the person's too: they keep running on the
 * tools they ran on before. A group of spillway's alone goes with its hook. Answers whether
 * one changed.
 */
function narrowMatcher(doc: ConfigDocument, host: HostId, record: NonNullable<UndoRecord['matchers']>[number]): boolean {
  const groups = getIn(doc.value(), record.path);
  if (!Array.isArray(groups)) return false;
  let narrowed = false;
  groups.forEach((group: unknown, i) => {
    if (!isObject(group) || !Array.isArray(group.hooks) || group.matcher !== record.to) return;
    const ours = group.hooks.filter((h) => isObject(h) && isSpillwayHook(h.command, host)).length;
    if (ours === 0 || ours === group.hooks.length) return;
    doc.set([...record.path, i, 'matcher'], record.from);
    narrowed = true;
  });
  return narrowed;
}

/** What of spillway `doc` still holds: each server still wrapped (with the command it had before) and spillway's hook. */
function leftOfSpillway(doc: ConfigDocument, spec: ConfigFileSpec, host: HostId): string[] {
  const left: string[] = [];
  for (const tablePath of spec.serverTables(doc.value())) {
    const table = getIn(doc.value(), tablePath);
    if (!isObject(table)) continue;
    for (const [name, entry] of Object.entries(table)) {
      if (!isObject(entry)) continue;
      const line = commandOf(entry, spec);
      const original = typeof line === 'string' ? undefined : unwrapCommand(line);
      if (original !== undefined) left.push(`the server ${name} (give it back its command: ${display(original)})`);
    }
  }
  if (spec.hook !== undefined) {
    const groups = getIn(doc.value(), spec.hook.path);
    const hooked = Array.isArray(groups) && groups.some((g) => isObject(g) && Array.isArray(g.hooks) && g.hooks.some((h) => isObject(h) && isSpillwayHook(h.command, host)));
    if (hooked) left.push(`the ${spec.hook.path.join('.')} hook running "spillway hook" (remove that entry)`);
  }
  return left;
}

/**
 * Takes back what {@link setupHost} added. A file the host has not touched since gets its
 * original bytes back (or is removed, if setup created it); a file the host has rewritten
 * keeps the host's edits and loses only spillway's wrappers and hook.
 */
export function undoHost(hostId: HostId, env: SetupEnvironment, options: SetupOptions = {}): SetupReport {
  return eachConfigFile(hostId, env, options, (host) => host.capReason, (_host, spec, _cap, dryRun) => {
    const state = readConfigFile(spec, env.cwd);
    const bytes = state.bytes;
    const manifest = readUndoRecord(env, spec.path);
    if (manifest === undefined) {
      return { path: spec.path, scope: spec.scope, status: bytes === undefined ? 'missing' : 'unchanged', changes: bytes === undefined ? [] : ['no setup recorded for this file'] };
    }
    if (bytes === undefined) {
      if (!dryRun) removeUndoRecord(env, spec.path);
      return { path: spec.path, scope: spec.scope, status: 'missing', changes: ['the file is gone; its setup record was removed'] };
    }
    if (manifest.original !== null && sha256(bytes) === manifest.after) {
      const original = Buffer.from(manifest.original, 'base64');
      if (!dryRun) {
        if (manifest.existed) writeConfigFile(state, original, manifest.originalMode ?? undefined);
        else unlinkSync(state.target);
        removeUndoRecord(env, spec.path);
      }
      return {
        path: spec.path,
        scope: spec.scope,
        status: 'restored',
        changes: [manifest.existed ? 'restored the bytes it had before setup' : 'removed the file setup created'],
        diff: dryRun ? lineDiff(decode(bytes).text, decode(original).text) : undefined,
      };
    }
    const { bom, text } = decode(bytes);
    const doc = openDocument(spec, text);
    const changes: string[] = [];
    for (const record of manifest.servers) {
      const entry = getIn(doc.value(), record.path);
      if (!isObject(entry)) continue;
      const line = commandOf(entry, spec);
      const original = typeof line === 'string' ? undefined : unwrapCommand(line);
      if (original === undefined) continue;
      setCommand(doc, spec, record.path, original, record.hadArgs);
      changes.push(`unwrapped ${String(record.path[record.path.length - 1])}: ${display(original)}`);
    }
    for (const record of manifest.matchers ?? []) {
      if (narrowMatcher(doc, hostId, record)) changes.push(`gave the ${String(record.path[record.path.length - 1])} group that holds other hooks its matcher ${record.from} back`);
    }
    for (const record of manifest.hooks) {
      if (removeHooks(doc, hostId, record)) changes.push(`removed the ${String(record.path[record.path.length - 1])} hook`);
    }
    for (const record of manifest.settings ?? []) {
      if (spec.setting === undefined || !spec.setting.isOurs(getIn(doc.value(), record.path))) continue;
      doc.set(record.path, undefined);
      if (record.created !== null) removeEmptyParents(doc, record.path.slice(0, -1), record.created);
      changes.push(`removed ${record.path.join('.')}`);
    }
    // A record altered or cut short may miss wrappers: undo never reports success while one stays.
    const left = leftOfSpillway(doc, spec, hostId);
    if (left.length > 0) {
      throw new ConfigRefusal(
        `Undo left ${spec.path} untouched: its undo record ${undoRecordPath(env, spec.path)} does not cover all of spillway's edits in it (the record was altered or cut short). ` +
          `Still there: ${left.join('; ')}. Edit the file by hand, then remove the record.`,
      );
    }
    if (!dryRun) {
      // A file that is spillway's as a whole goes once spillway's part of it has.
      if (changes.length > 0 && spec.format === 'owned' && doc.text() === '') unlinkSync(state.target);
      else if (changes.length > 0) writeConfigFile(state, Buffer.from(bom + doc.text(), 'utf8'));
      removeUndoRecord(env, spec.path);
    }
    return {
      path: spec.path,
      scope: spec.scope,
      status: changes.length > 0 ? 'removed' : 'unchanged',
      changes: changes.length > 0 ? changes : ['nothing of spillway was left in it'],
      diff: dryRun && changes.length > 0 ? lineDiff(text, doc.text()) : undefined,
    };
  });
}
