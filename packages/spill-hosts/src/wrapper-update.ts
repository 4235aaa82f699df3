/**
 * What a second setup changes in a wrapper already there: a cap asked for anew, a node or
 * spillway path that no longer exists, a machine's paths in a file shared through git.
 */
import { existsSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { formatWrapper, parseHookCommand, shellQuote, withCap, type CommandLine, type SpillwayWrapper } from './command.js';
import type { HostId, SpillwayCommand } from './types.js';

/** What the wrappers of one file should be. */
export interface WrapperTarget {
  /** The launcher setup writes now (see `spillwayLauncher`). */
  readonly launcher: readonly string[];
  /** `--max-inline-bytes` when given: every wrapper gets it. */
  readonly cap: number | undefined;
  readonly host: HostId;
  /** The file is shared through git: no absolute paths. */
  readonly portable: boolean;
}

/** The first absolute path among `words` that does not exist. */
export function missingPath(words: readonly string[]): string | undefined {
  return words.find((word) => isAbsolute(word) && !existsSync(word));
}

/** The wrapper brought up to date and why, or `undefined` when it already is. */
export function updateWrapper(wrapper: SpillwayWrapper, target: WrapperTarget): { readonly line: CommandLine; readonly reasons: readonly string[] } | undefined {
  const reasons: string[] = [];
  let { launcher, options } = wrapper;
  const gone = wrapper.form === 'npx' ? undefined : missingPath(wrapper.launcher);
  const absolute = wrapper.form !== 'npx' && wrapper.launcher.some((word) => isAbsolute(word));
  // Replaced only by paths that exist (a wrapper is not rewritten for another that would not start either).
  if (gone !== undefined && missingPath(target.launcher) === undefined) {
    launcher = target.launcher;
    reasons.push(`${gone} no longer exists`);
  } else if (target.portable && absolute) {
    launcher = target.launcher;
    reasons.push('absolute paths replaced by spillway through PATH (the file is shared through git)');
  }
  if (target.cap !== undefined && wrapper.cap !== target.cap) {
    options = withCap(options, target.cap);
    reasons.push(`cap ${wrapper.cap === undefined ? 'default' : String(wrapper.cap)} -> ${String(target.cap)}`);
  }
  if (reasons.length === 0) return undefined;
  // A wrapper of an older setup named no host; one rewritten anyway gets it, for `spillway stats`.
  if (wrapper.form === 'script' && wrapper.host === undefined) options = [...options, '--host', target.host];
  const line = formatWrapper({ ...wrapper, launcher, options });
  const before = formatWrapper(wrapper);
  return line.command === before.command && line.args.join('\0') === before.args.join('\0') ? undefined : { line, reasons };
}

/**
 * spillway's hook command brought up to date (`cap` when given, else the one it has, else
 * `fallbackCap`), or `undefined` when it already is.
 */
export function updateHook(
  command: string,
  spillway: SpillwayCommand,
  cap: number | undefined,
  fallbackCap: number,
  host: HostId,
): { readonly command: string; readonly reasons: readonly string[] } | undefined {
  const parsed = parseHookCommand(command);
  if (parsed === undefined) return undefined;
  const reasons: string[] = [];
  const gone = missingPath(parsed.launcher) !== undefined && missingPath([spillway.node, spillway.spillway]) === undefined ? missingPath(parsed.launcher) : undefined;
  if (gone !== undefined) reasons.push(`${gone} no longer exists`);
  if (cap !== undefined && parsed.cap !== cap) reasons.push(`cap ${parsed.cap === undefined ? 'default' : String(parsed.cap)} -> ${String(cap)}`);
  if (reasons.length === 0) return undefined;
  const launcher = gone === undefined ? parsed.launcher : [spillway.node, spillway.spillway];
  const next = [...launcher, 'hook', host, '--max-inline-bytes', String(cap ?? parsed.cap ?? fallbackCap)].map(shellQuote).join(' ');
  return next === command ? undefined : { command: next, reasons };
}
