/**
 * Streaming readers for the transcripts agent hosts keep: each file is read line by line,
 * so memory is bounded by the longest line, and a line that cannot be read is counted and
 * named, never fatal.
 */
import { stat } from 'node:fs/promises';
import { fileLines } from './file-lines.js';
import { isTooDeep, jsonText, TOO_DEEP } from './nesting.js';
import { readOpenCode } from './read-opencode.js';
import { readStoredOutput, storedOutputFile } from './stored-output.js';

/** The transcript formats an audit reads. */
export type TranscriptFormat = 'claude-code' | 'codex' | 'gemini' | 'opencode' | 'generic';

/** One thing a transcript records, in the order it happened. */
export type TranscriptEvent =
  /** Text the agent saw or wrote outside tool results: prompts, replies. */
  | { readonly kind: 'text'; readonly session: string; readonly text: string }
  /** A tool call: its arguments as text (JSON for structured ones). */
  | { readonly kind: 'call'; readonly session: string; readonly id: string; readonly tool: string; readonly server?: string; readonly input: string }
  /**
   * A tool call's output, as the host recorded it; or, when the host stored the output in a
   * file and left a note in the transcript, read from that file (`stored` says which file,
   * whether it could be read, when not `output` is the note, and `shown`, the text the
   * transcript holds in its place: what the host showed the model).
   */
  | {
      readonly kind: 'result';
      readonly session: string;
      readonly id: string;
      readonly output: string;
      readonly stored?: { readonly file: string; readonly read: boolean; readonly shown?: string };
    };

/** A line that was skipped: where, and why (never its content). */
export interface SkippedLine {
  /** The file. */
  readonly file: string;
  /** 1-based line number. */
  readonly line: number;
  /** Why: `not JSON`, `not an object`, or a missing field. */
  readonly reason: string;
}

/** What a reader reports about one file besides its events. */
export interface ReadStats {
  /** Lines read. */
  lines: number;
  /** Lines that could not be read: the count of all of them. */
  skipped: number;
  /** The first {@link MAX_NAMED_SKIPS} of them, named. */
  readonly skippedLines: SkippedLine[];
}

/** How many skipped lines a read names; the rest are only counted. */
export const MAX_NAMED_SKIPS = 20;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** Text of a content value: a string, or blocks `[{type:"text", text}]` (other blocks skipped). */
function contentText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) return value === undefined || value === null ? '' : jsonText(value);
  const parts: string[] = [];
  for (const block of value) {
    if (typeof block === 'string') parts.push(block);
    else if (isObject(block) && typeof block.text === 'string') parts.push(block.text);
  }
  return parts.join('\n');
}

function inputText(value: unknown): string {
  return typeof value === 'string' ? value : jsonText(value ?? null);
}

/**
 * Splits a Claude Code tool name into server and tool: `mcp__github__create_issue` is tool
 * `create_issue` of server `github`. The split is at the first `__` after the prefix: a
 * tool name may hold `__`, and a server name holding one is taken as a shorter server.
 */
export function splitMcpName(name: string): { tool: string; server?: string } {
  if (!name.startsWith('mcp__')) return { tool: name };
  const rest = name.slice(5);
  const at = rest.indexOf('__');
  return at <= 0 ? { tool: name } : { server: rest.slice(0, at), tool: rest.slice(at + 2) };
}

type LineParser = (line: Json, fallbackSession: string) => TranscriptEvent[] | string;

/** Claude Code: `{type:"assistant"|"user", sessionId, message:{content:[…]}}`; other line types hold no tool traffic. */
const parseClaudeCode: LineParser = (line, fallback) => {
  const session = str(line.sessionId) ?? fallback;
  const type = line.type;
  if (type !== 'assistant' && type !== 'user') return [];
  const message = line.message;
  if (!isObject(message)) return 'no message';
  const content = message.content;
  if (typeof content === 'string') return [{ kind: 'text', session, text: content }];
  if (!Array.isArray(content)) return 'no message.content';
  const events: TranscriptEvent[] = [];
  for (const block of content) {
    if (!isObject(block)) continue;
    if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
      events.push({ kind: 'call', session, id: block.id, ...splitMcpName(block.name), input: inputText(block.input) });
    } else if (block.type === 'tool_result' && typeof block.tool_use_id === 'string') {
      events.push({ kind: 'result', session, id: block.tool_use_id, output: contentText(block.content) });
    } else if (block.type === 'text' && typeof block.text === 'string') {
      events.push({ kind: 'text', session, text: block.text });
    }
  }
  return events;
};

/** Codex rollouts: `{type:"session_meta"|"response_item", payload}`; the session id comes from `session_meta`. */
function codexParser(): LineParser {
  let session: string | undefined;
  return (line, fallback) => {
    const payload = line.payload;
    if (!isObject(payload)) return line.type === 'response_item' ? 'no payload' : [];
    if (line.type === 'session_meta') {
      session = str(payload.id) ?? str(payload.session_id) ?? session;
      return [];
    }
    if (line.type !== 'response_item') return [];
    const s = session ?? fallback;
    const id = str(payload.call_id);
    switch (payload.type) {
      case 'function_call':
      case 'custom_tool_call': {
        const name = str(payload.name);
        if (id === undefined || name === undefined) return 'no call_id or name';
        const namespace = str(payload.namespace);
        const named = namespace?.startsWith('mcp__') === true ? { server: namespace.slice(5).replace(/__$/, ''), tool: name } : splitMcpName(name);
        return [{ kind: 'call', session: s, id, ...named, input: inputText(payload.type === 'function_call' ? payload.arguments : payload.input) }];
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        if (id === undefined) return 'no call_id';
        const output = payload.output;
        // The output is a string, or `{content, success}` in some versions.
        return [{ kind: 'result', session: s, id, output: isObject(output) ? contentText(output.content) : contentText(output) }];
      }
      case 'message':
        return [{ kind: 'text', session: s, text: contentText(payload.content) }];
      default:
        return [];
    }
  };
}

/** Gemini CLI names an MCP tool `mcp_<server>_<tool>`, ambiguous with underscores; its `displayName` `tool (server MCP Server)` is not. */
const GEMINI_MCP_DISPLAY = /^(.+) \((.+) MCP Server\)$/;

/**
 * Gemini CLI chats (`session-*.jsonl`): a header `{sessionId, …}`, then messages
 * `{id, type:"user"|"gemini", content, toolCalls?:[{id, name, args, result:[{functionResponse:{response:{output|error}}}], displayName}]}`,
 * each rewritten whole when it changes (so a call is taken once, by its id), and
 * `{"$set": {…}}` updates, whose `messages` are read like messages.
 */
function geminiParser(): LineParser {
  let session: string | undefined;
  const done = new Set<string>();
  const message = (m: Json, s: string): TranscriptEvent[] => {
    const events: TranscriptEvent[] = [];
    const content = m.content;
    if (typeof content === 'string' && content !== '') events.push({ kind: 'text', session: s, text: content });
    else if (Array.isArray(content)) {
      const text = content.filter((p): p is Json => isObject(p) && typeof p.text === 'string').map((p) => p.text as string).join('\n');
      if (text !== '') events.push({ kind: 'text', session: s, text });
    }
    if (!Array.isArray(m.toolCalls)) return events;
    for (const call of m.toolCalls) {
      if (!isObject(call) || typeof call.id !== 'string' || typeof call.name !== 'string' || done.has(call.id)) continue;
      if (!Array.isArray(call.result)) continue; // not answered yet: a later rewrite of the message has it
      done.add(call.id);
      const display = typeof call.displayName === 'string' ? GEMINI_MCP_DISPLAY.exec(call.displayName) : null;
      const named = display?.[1] !== undefined && display[2] !== undefined ? { tool: display[1], server: display[2] } : { tool: call.name };
      const outputs: string[] = [];
      for (const part of call.result) {
        const response = isObject(part) && isObject(part.functionResponse) ? part.functionResponse.response : undefined;
        if (isObject(response)) outputs.push(typeof response.output === 'string' ? response.output : typeof response.error === 'string' ? response.error : jsonText(response));
        else if (isObject(part) && typeof part.text === 'string') outputs.push(part.text);
      }
      events.push({ kind: 'call', session: s, id: call.id, ...named, input: inputText(call.args) });
      events.push({ kind: 'result', session: s, id: call.id, output: outputs.join('\n') });
    }
    return events;
  };
  return (line, fallback) => {
    if (typeof line.sessionId === 'string' && line.type === undefined) {
      session = line.sessionId;
      return [];
    }
    const s = session ?? fallback;
    const set = line.$set;
    if (isObject(set)) return Array.isArray(set.messages) ? set.messages.filter(isObject).flatMap((m) => message(m, s)) : [];
    if (line.type !== 'user' && line.type !== 'gemini') return [];
    return message(line, s);
  };
}

/**
 * The generic format, one object per line: `{session, tool, server?, input, output, t?}`.
 * `input` is a string or any JSON value (written as JSON); `output` a string or text blocks.
 */
function genericParser(): LineParser {
  let calls = 0;
  return (line) => {
  const session = str(line.session);
  const tool = str(line.tool);
  if (session === undefined || tool === undefined) return 'no session or tool';
  if (!('output' in line)) return 'no output';
  const id = `generic-${String(++calls)}`;
  const server = str(line.server);
  return [
    { kind: 'call', session, id, tool, ...(server === undefined ? {} : { server }), input: inputText(line.input) },
    { kind: 'result', session, id, output: contentText(line.output) },
  ];
  };
}

/** `parse(value, fallback)`, or {@link TOO_DEEP} when the value nests too deeply (see `nesting.ts`). */
function parsedEvents(parse: LineParser, value: Json, fallback: string): TranscriptEvent[] | string {
  try {
    return parse(value, fallback);
  } catch (error) {
    if (isTooDeep(error)) return TOO_DEEP;
    throw error;
  }
}

/**
 * Reads one transcript file line by line (see {@link fileLines}) and yields its
 * events in order. Lines that are not JSON objects, or lack the fields their type needs, are
 * counted in `stats` and skipped. The session of a Claude Code line without `sessionId`, or
 * of Codex lines before `session_meta`, is the file's name. An OpenCode database is read
 * part by part instead (each part counts as a line; a skipped one is named by its rowid).
 * `onBytes`, when given, is told how many more bytes of the file were read, as they are
 * (a database's whole size once it is read).
 */
export async function* readTranscript(file: string, format: TranscriptFormat, stats: ReadStats, mcpServers: readonly string[] = [], onBytes?: (bytes: number) => void): AsyncGenerator<TranscriptEvent> {
  if (format === 'opencode') {
    // A database, not lines: its parts are counted as lines, and a skipped one named by its rowid.
    const count = (): void => {
      stats.lines++;
    };
    const skip = (rowid: number, reason: string): void => {
      stats.skipped++;
      if (stats.skippedLines.length < MAX_NAMED_SKIPS) stats.skippedLines.push({ file, line: rowid, reason });
    };
    yield* readOpenCode(file, count, skip, mcpServers);
    // Its pages are read out of order: the whole file counts once it is read.
    if (onBytes !== undefined) onBytes((await stat(file)).size);
    return;
  }
  const parse = format === 'claude-code' ? parseClaudeCode : format === 'codex' ? codexParser() : format === 'gemini' ? geminiParser() : genericParser();
  const fallback = file.slice(file.lastIndexOf('/') + 1).replace(/\.jsonl$/, '');
  let n = 0;
  const skip = (reason: string): void => {
    stats.skipped++;
    if (stats.skippedLines.length < MAX_NAMED_SKIPS) stats.skippedLines.push({ file, line: n, reason });
  };
  for await (const batch of fileLines(file, onBytes)) {
    for (const raw of batch) {
      n++;
      stats.lines++;
      if (raw.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(raw);
      } catch {
        skip('not JSON');
        continue;
      }
      if (!isObject(value)) {
        skip('not an object');
        continue;
      }
      const events = parsedEvents(parse, value, fallback);
      if (typeof events === 'string') {
        skip(events);
        continue;
      }
      for (const event of events) {
        const file = format === 'claude-code' && event.kind === 'result' ? storedOutputFile(event.output) : undefined;
        if (file === undefined || event.kind !== 'result') yield event;
        else {
          const whole = await readStoredOutput(file);
          yield { ...event, output: whole ?? event.output, stored: { file, read: whole !== undefined, shown: event.output } };
        }
      }
    }
  }
}
