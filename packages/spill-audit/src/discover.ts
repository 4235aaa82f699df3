/** Where each host keeps its transcripts, and the walk that finds them. */
import { access, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { xdgBaseDir } from '@spillway/core/xdg';
import { AuditError } from './errors.js';
import type { TranscriptFormat } from './transcript.js';

/** Where to look: the environment and home directory to resolve hosts' directories from. */
export interface DiscoverOptions {
  /** Environment (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`, `GEMINI_CLI_HOME`, `XDG_DATA_HOME`). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The home directory. */
  readonly home: string;
}

/** The directory a host keeps transcripts under, and which files there are transcripts. */
export function transcriptRoot(format: TranscriptFormat, options: DiscoverOptions): string | undefined {
  if (format === 'claude-code') return join(options.env.CLAUDE_CONFIG_DIR ?? join(options.home, '.claude'), 'projects');
  if (format === 'codex') return join(options.env.CODEX_HOME ?? join(options.home, '.codex'), 'sessions');
  if (format === 'gemini') return join(options.env.GEMINI_CLI_HOME ?? options.home, '.gemini', 'tmp');
  if (format === 'opencode') return join(xdgBaseDir('data', options.env, options.home), 'opencode');
  return undefined;
}

function isTranscript(format: TranscriptFormat, name: string): boolean {
  if (format === 'opencode') return name === 'opencode.db';
  if (!name.endsWith('.jsonl')) return false;
  return format === 'codex' ? name.startsWith('rollout-') : format === 'gemini' ? name.startsWith('session-') : true;
}

async function walk(dir: string, format: TranscriptFormat, out: string[]): Promise<void> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const path = join(dir, entry.name);
    // Symbolic links are not followed: a walk never leaves the tree it was given.
    if (entry.isDirectory()) await walk(path, format, out);
    else if (entry.isFile() && isTranscript(format, entry.name)) out.push(path);
  }
}

/**
 * The transcript files under `paths` (files as given, directories walked for `*.jsonl`,
 * Codex's for `rollout-*.jsonl`, Gemini CLI's for `session-*.jsonl`, OpenCode's for
 * `opencode.db`), or under the host's own directory when `paths` is empty.
 *
 * @throws {@link AuditError} `AUDIT_NOT_FOUND` when a path does not exist, or nothing is
 * found; `AUDIT_UNREADABLE` when a directory cannot be listed.
 */
export async function findTranscripts(format: TranscriptFormat, paths: readonly string[], options: DiscoverOptions): Promise<string[]> {
  const root = transcriptRoot(format, options);
  const starts = paths.length > 0 ? paths : root === undefined ? [] : [root];
  if (starts.length === 0) throw new AuditError('AUDIT_NOT_FOUND', 'The generic format has no default place: name the JSONL files or directories to read.');
  const files: string[] = [];
  for (const start of starts) {
    let info;
    try {
      info = await stat(start);
    } catch (cause) {
      throw new AuditError('AUDIT_NOT_FOUND', `${start} does not exist. ${paths.length > 0 ? 'Check the path.' : `Use this host for a while first, or pass the transcripts' paths (or --host for another host).`}`, { cause });
    }
    if (info.isFile()) {
      files.push(start);
      continue;
    }
    // OpenCode's data directory holds its database at the top, beside snapshots not worth walking.
    if (format === 'opencode' && (await access(join(start, 'opencode.db')).then(() => true, () => false))) {
      files.push(join(start, 'opencode.db'));
      continue;
    }
    try {
      await walk(start, format, files);
    } catch (cause) {
      throw new AuditError('AUDIT_UNREADABLE', `Cannot list ${start}: ${(cause as Error).message}. Run as the user whose transcripts these are.`, { cause });
    }
  }
  if (files.length === 0) throw new AuditError('AUDIT_NOT_FOUND', `No transcripts under ${starts.join(', ')}. Pass the .jsonl files, or --host for the host that wrote them.`);
  return files;
}
