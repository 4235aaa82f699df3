/**
 * OpenCode's sessions: one SQLite database (`opencode.db` under `$XDG_DATA_HOME/opencode`),
 * whose `part` table holds each message's parts as JSON: text, and tool calls with their
 * state (input, output or error). Read without writing, by {@link SqliteFile}.
 */
import { TranscriptFormatError } from './errors.js';
import { isTooDeep, jsonText, TOO_DEEP } from './nesting.js';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { SqliteFile } from './sqlite-file.js';
import { readStoredOutput } from './stored-output.js';
import type { TranscriptEvent } from './transcript.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Yields the events of every session in an OpenCode database, session by session, each
 * session's parts in the order they were made (`time_created`, then the order written). `skip` is told of a
 * part that cannot be read: its rowid and why.
 *
 * @throws Error when the file is not a SQLite database or has no `part` table.
 */
export async function* readOpenCode(file: string, count: () => void, skip: (rowid: number, reason: string) => void, mcpServers: readonly string[] = []): AsyncGenerator<TranscriptEvent> {
  const split = openCodeToolSplitter(mcpServers);
  const db = new SqliteFile(file);
  try {
    if (!db.hasTable('part')) throw new TranscriptFormatError('no part table: not an OpenCode database');
    // First the order (two numbers per part, the parts' JSON left unread), then each part's JSON, one at a time.
    const sessions = new Map<string, { rowid: number; time: number }[]>();
    for (const { rowid, values } of db.table('part', ['session_id', 'time_created'])) {
      count();
      const session = values.session_id;
      if (typeof session !== 'string') {
        skip(rowid, 'no session_id');
        continue;
      }
      const list = sessions.get(session) ?? [];
      list.push({ rowid, time: typeof values.time_created === 'number' ? values.time_created : 0 });
      sessions.set(session, list);
    }
    for (const [session, parts] of sessions) {
      parts.sort((a, b) => a.time - b.time || a.rowid - b.rowid);
      for (const { rowid } of parts) {
        const data = db.row('part', rowid)?.values.data;
        let part: unknown;
        try {
          part = typeof data === 'string' ? JSON.parse(data) : undefined;
        } catch {
          part = undefined;
        }
        if (!isObject(part)) {
          skip(rowid, 'data not a JSON object');
          continue;
        }
        let events: TranscriptEvent[];
        try {
          events = await partEvents(part, session, dirname(file), split);
        } catch (error) {
          if (!isTooDeep(error)) throw error;
          skip(rowid, TOO_DEEP);
          continue;
        }
        yield* events;
        await Promise.resolve();
      }
    }
  } finally {
    db.close();
  }
}

/**
 * Splits OpenCode's `<server>_<tool>` names by the servers given, the longest matching server
 * first (a server name may hold `_`); any other name is a tool of OpenCode's own.
 */
export function openCodeToolSplitter(servers: readonly string[]): (name: string) => { tool: string; server?: string } {
  // OpenCode makes each character of a server's name other than letters, digits, `_` and `-` a `_`.
  const prefixes = servers.map((server) => ({ server, prefix: `${server.replace(/[^a-zA-Z0-9_-]/g, '_')}_` })).sort((a, b) => b.prefix.length - a.prefix.length);
  return (name) => {
    const match = prefixes.find((p) => name.startsWith(p.prefix) && name.length > p.prefix.length);
    return match === undefined ? { tool: name } : { server: match.server, tool: name.slice(match.prefix.length) };
  };
}

/** The events of one part: a text, or a tool call and (once it ended) its output or error. */
async function partEvents(part: Json, session: string, dataDir: string, split: (tool: string) => { tool: string; server?: string }): Promise<TranscriptEvent[]> {
  if (part.type === 'text' && typeof part.text === 'string') return part.text === '' ? [] : [{ kind: 'text', session, text: part.text }];
  if (part.type !== 'tool' || typeof part.callID !== 'string' || typeof part.tool !== 'string' || !isObject(part.state)) return [];
  const { state } = part;
  const id = part.callID;
  const input = typeof state.input === 'string' ? state.input : jsonText(state.input ?? null);
  const call: TranscriptEvent = { kind: 'call', session, id, ...split(part.tool), input };
  if (state.status === 'error') return [call, { kind: 'result', session, id, output: typeof state.error === 'string' ? state.error : '' }];
  if (state.status !== 'completed' || typeof state.output !== 'string') return [call];
  // Over its limits OpenCode keeps part of the output and stores the whole in a file it names.
  const metadata = isObject(state.metadata) ? state.metadata : {};
  const file = metadata.truncated === true && typeof metadata.outputPath === 'string' && isAbsolute(metadata.outputPath) ? metadata.outputPath : undefined;
  if (file === undefined) return [call, { kind: 'result', session, id, output: state.output }];
  // A data directory copied or moved elsewhere keeps the files beside its database.
  const beside = basename(dirname(file)) === 'tool-output' ? join(dataDir, 'tool-output', basename(file)) : undefined;
  const whole = (await readStoredOutput(file)) ?? (beside === undefined || beside === file ? undefined : await readStoredOutput(beside));
  return [call, { kind: 'result', session, id, output: whole ?? state.output, stored: { file, read: whole !== undefined, shown: state.output } }];
}
