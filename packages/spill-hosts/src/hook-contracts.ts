/**
 * The output-hook contracts of the hosts that let a hook replace a built-in tool's output,
 * as checked against the real hosts (Claude Code 2.1.328, Gemini CLI 0.61.0). Pure
 * functions whose only import is as small, so `spillway hook` starts about as fast as Node itself.
 *
 * @packageDocumentation
 */

import { CLAUDE_CODE_TOOL_SHAPES } from './claude-code-tool-shapes.js';

export { CLAUDE_CODE_TOOL_SHAPES, type ClaudeCodeToolShape } from './claude-code-tool-shapes.js';

/** The hosts whose hooks can replace a tool's output. */
export type HookHost = 'claude-code' | 'gemini';

/** Whether `value` names a host with an output hook. */
export function isHookHost(value: string): value is HookHost {
  return value === 'claude-code' || value === 'gemini';
}

/** One tool call as the hook sees it. */
export interface HookToolCall {
  /** The host's tool name (`Bash`, `run_shell_command`…). */
  readonly toolName: string;
  /** The host's id of the call, or `""`. */
  readonly callId: string;
  /** The host's session id, or `""`. */
  readonly sessionId: string;
  /** The output as the hook input carries it (for Claude Code over 30,000 characters: only the first 30,000). */
  readonly text: string;
  /**
   * Claude Code: the file holding the whole output when the host persisted it. The whole
   * output must come from there, not from `text`.
   */
  readonly persistedOutputPath?: string | undefined;
  /** Claude Code Bash: stderr, shown after the output. */
  readonly stderr?: string | undefined;
  /** The bytes the host's rendering of a replacement adds around the preview (a tool's framing): they count against the cap. */
  readonly framingBytes?: number | undefined;
  /** The largest replacement this tool's output reaches the model whole at, when it is under the hook's cap. */
  readonly maxBytes?: number | undefined;
  /**
   * The share of the rendered bytes that is the preview's own, when the host indents every
   * line of it (Claude Code's sub-agent reports): estimated from the whole's mean line length,
   * as the preview is made of the whole's lines. Only a first guess: the hook measures the
   * rendering (`HookContract.shownBytes`) and makes a smaller preview when it is over.
   */
  readonly textShare?: number | undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Reads a Claude Code `PostToolUse` input. Bash's result (`stdout`, `stderr`, `interrupted`,
 * `isImage`, `noOutputExpected`, and over 30,000 characters `persistedOutputPath` and
 * `persistedOutputSize`), and the outputs of Grep, Glob, WebFetch, WebSearch and Agent (see
 * `claude-code-tool-shapes.ts`), whose text is what the model would see; anything else
 * answers `undefined` (the hook then passes the result through).
 */
export function readClaudeCodeInput(input: unknown): HookToolCall | undefined {
  const body = record(input);
  const response = record(body?.tool_response);
  if (body === undefined || response === undefined) return undefined;
  const toolName = str(body.tool_name);
  const shape = Object.hasOwn(CLAUDE_CODE_TOOL_SHAPES, toolName) ? CLAUDE_CODE_TOOL_SHAPES[toolName] : undefined;
  if (shape !== undefined) {
    const text = shape.whole(response);
    if (text === undefined) return undefined;
    const framing = shape.render(shape.replace(response, ''));
    const indent = shape.lineIndentBytes ?? 0;
    return {
      toolName,
      callId: str(body.tool_use_id),
      sessionId: str(body.session_id),
      text,
      framingBytes: Buffer.byteLength(framing),
      maxBytes: shape.maxBytes,
      textShare: indent === 0 ? undefined : textShareOf(text, indent),
    };
  }
  if (typeof response.stdout !== 'string' || response.isImage === true) return undefined;
  const persisted = response.persistedOutputPath;
  return {
    toolName: toolName || 'Bash',
    callId: str(body.tool_use_id),
    sessionId: str(body.session_id),
    text: response.stdout,
    stderr: str(response.stderr),
    persistedOutputPath: typeof persisted === 'string' && persisted !== '' ? persisted : undefined,
  };
}

/** The share of an indented rendering that is the text's own, from the text's mean line length. */
function textShareOf(text: string, indent: number): number {
  let lines = 1;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  const meanLine = Buffer.byteLength(text) / lines;
  return meanLine / (meanLine + indent);
}

/**
 * The Claude Code answer that replaces a tool's result with `text`, in the tool's own output
 * shape (Claude Code drops a replacement of another shape). For Bash, the `persisted*` keys
 * are left out on purpose: with them, Claude Code wraps the replacement in its own
 * `<persisted-output>` notice; stderr is part of what was stored, so it is not repeated.
 */
export function claudeCodeReplacement(input: unknown, text: string): Record<string, unknown> {
  const body = record(input);
  const response = record(body?.tool_response) ?? {};
  const toolName = str(body?.tool_name);
  const shape = Object.hasOwn(CLAUDE_CODE_TOOL_SHAPES, toolName) ? CLAUDE_CODE_TOOL_SHAPES[toolName] : undefined;
  if (shape !== undefined) return { hookSpecificOutput: { hookEventName: 'PostToolUse', updatedToolOutput: shape.replace(response, text) } };
  return {
    hookSpecificOutput: {
      hookEventName: 'PostToolUse',
      updatedToolOutput: {
        stdout: text,
        stderr: '',
        interrupted: response.interrupted === true,
        isImage: false,
        noOutputExpected: response.noOutputExpected === true,
      },
    },
  };
}

/**
 * What Claude Code shows the model when `claudeCodeReplacement(input, text)` replaces the
 * tool's result: the tool's rendering of the replacement (its framing and indent included),
 * or `text` itself for Bash.
 */
function claudeCodeShown(input: unknown, text: string): string {
  const body = record(input);
  const response = record(body?.tool_response) ?? {};
  const toolName = str(body?.tool_name);
  const shape = Object.hasOwn(CLAUDE_CODE_TOOL_SHAPES, toolName) ? CLAUDE_CODE_TOOL_SHAPES[toolName] : undefined;
  return shape === undefined ? text : shape.render(shape.replace(response, text));
}

/**
 * Reads a Gemini CLI `AfterTool` input: `tool_response.llmContent` is the whole output
 * (several MB on stdin, before Gemini's own cut), a string or a list of parts. A part that
 * is not text (an image, a file) answers `undefined`.
 */
export function readGeminiInput(input: unknown): HookToolCall | undefined {
  const body = record(input);
  const response = record(body?.tool_response);
  if (body === undefined || response === undefined) return undefined;
  const content = response.llmContent;
  let text: string;
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const parts: string[] = [];
    for (const part of content) {
      if (typeof part === 'string') parts.push(part);
      else if (typeof record(part)?.text === 'string') parts.push(str(record(part)?.text));
      else return undefined;
    }
    text = parts.join('');
  } else if (typeof record(content)?.text === 'string') text = str(record(content)?.text);
  else return undefined;
  return { toolName: str(body.tool_name) || 'tool', callId: str(body.tool_use_id), sessionId: str(body.session_id), text };
}

/**
 * The sentence put before the preview in Gemini CLI, which shows a replaced result to the
 * model as an error (`Tool result blocked: …`), so the model knows the call worked.
 */
export const GEMINI_PREFIX = 'Not an error: the tool succeeded and its output was too large to show here, so spillway stored it.\n\n';

/**
 * The sentence put before the preview in Gemini CLI when the shell command itself failed:
 * the tool ran, the command's exit code (in the preview) says how it ended.
 */
export const GEMINI_FAILED_PREFIX = 'The command ran and failed (its exit code is below); its output was too large to show here, so spillway stored it.\n\n';

/**
 * Whether a Gemini CLI `run_shell_command` output says the command failed: its last lines
 * hold `Exit Code: N` with N other than 0, or `Signal: …` (checked with 0.61.0).
 */
export function geminiCommandFailed(text: string): boolean {
  const end = text.slice(-2000);
  const exit = /^Exit Code: (\d+)\s*$/m.exec(end);
  return (exit !== null && exit[1] !== '0') || /^Signal: \S+/m.test(end);
}

/**
 * The Gemini CLI answer that replaces a result with `text`. Gemini CLI 0.61.0 offers three
 * things to an AfterTool hook: `additionalContext` (appended after the original, which
 * then still fills the context), `tailToolCallRequest` (runs another tool whose result
 * replaces this one, but no tool echoes text back verbatim) and `decision: "deny"` with a
 * `reason`, which replaces the result. Only the last keeps the output out, so it is used;
 * the model gets `{"error": "<GEMINI_PREFIX><preview and notice>"}` (checked with a real session).
 */
export function geminiReplacement(text: string, failed = false): Record<string, unknown> {
  return { decision: 'deny', reason: `${failed ? GEMINI_FAILED_PREFIX : GEMINI_PREFIX}${text}` };
}

/**
 * A host that can show a file's content as the tool's own result: the hook writes the
 * replacement into a directory the host reads without asking, and answers with a request to
 * read it there. The host's file tool cuts long lines and long files, so a replacement is
 * sent this way only when it fits whole.
 */
export interface FileDelivery {
  /** The directory to write into (it must exist), from the hook's input; `undefined` when the input names none. */
  dir(input: unknown): string | undefined;
  /** The longest line, in UTF-16 code units, that the host's file tool shows whole. */
  readonly maxLineUnits: number;
  /** Whether the host's file tool would take `text` for a binary file and show none of it. */
  looksBinary(text: string): boolean;
  /** The answer that makes the host read all `lines` lines of `path` and give them as the tool's result. */
  answer(path: string, lines: number): Record<string, unknown>;
}

/**
 * Gemini CLI 0.61.0: an AfterTool answer `hookSpecificOutput.tailToolCallRequest` runs
 * another tool in place of the result, judged by the person's policy like a call of the
 * model's own. `read_file` runs without asking and may read the project's temp directory
 * (`~/.gemini/tmp/<project>`, where the session's transcript is), and its result reaches the
 * model as a plain result, not an error (checked in a real session:
 * `real-host-gemini-answers.e2e.test.ts`). It cuts a line over 2,000 characters, and reads
 * at most 2,000 lines unless given a range.
 */
export const GEMINI_FILE_DELIVERY: FileDelivery = {
  dir(input) {
    const transcript = record(input)?.transcript_path;
    if (typeof transcript !== 'string' || !transcript.startsWith('/')) return undefined;
    // <home>/.gemini/tmp/<project>/chats/session-….jsonl: the project's temp directory is two up.
    const parts = transcript.split('/');
    if (parts.length < 6 || parts.at(-2) !== 'chats' || parts.at(-4) !== 'tmp' || parts.at(-5) !== '.gemini') return undefined;
    if (parts.some((p) => p === '..' || p === '.')) return undefined;
    return parts.slice(0, -2).join('/');
  },
  maxLineUnits: 2000,
  // read_file calls a file binary when its first 512 bytes hold a NUL or more than 10 %
  // control bytes (ANSI colour counts); this answers yes sooner, at 5 %.
  looksBinary(text) {
    const head = Buffer.from(text.slice(0, 512), 'utf8').subarray(0, 512);
    let control = 0;
    for (const byte of head) {
      if (byte === 0) return true;
      if (byte < 7 || (byte > 14 && byte < 32)) control++;
    }
    return control * 20 > head.length;
  },
  // Without a range read_file stops at 2,000 lines; with one it shows the lines asked for.
  answer: (path, lines) => ({ hookSpecificOutput: { hookEventName: 'AfterTool', tailToolCallRequest: { name: 'read_file', args: { file_path: path, start_line: 1, end_line: Math.max(1, lines) } } } }),
};

/** Everything `spillway hook` needs to know of one host: no code outside this table names a host. */
export interface HookContract {
  /** The cap when `--max-inline-bytes` is not given: the one `spillway setup` writes. */
  readonly defaultCap: number;
  /** Reads the host's hook input; `undefined` when it is not an output the hook can replace. */
  read(input: unknown): HookToolCall | undefined;
  /** The text the host's answer puts before the preview, for this call (its bytes count against the cap). */
  prefix(call: HookToolCall): string;
  /** True when the model's file tools cannot reach the store, so the notice names `spillway` commands to run in the shell. */
  readonly shellHint: boolean;
  /** The hook's answer that replaces the output with `text` (the preview and notice, without the prefix). */
  replace(input: unknown, text: string, call: HookToolCall): Record<string, unknown>;
  /**
   * The UTF-8 bytes of what reaches the model when the output is replaced with `text`: the
   * prefix, the tool's framing and any indent the host puts on every line included. The
   * hook's answer is never over its cap by this measure.
   */
  shownBytes(input: unknown, text: string, call: HookToolCall): number;
  /**
   * What the host appends after a tool's own output, if anything (Gemini CLI's shell lines
   * `Exit Code: N`, `Process Group PGID: N`…): an output that ends with a spill notice and
   * then this is still a preview, which the hook leaves alone.
   */
  readonly footer?: RegExp;
  /** Tried before `replace`: the preview shown as the tool's own result, through a file (no prefix then). */
  readonly fileDelivery?: FileDelivery;
}

/** The output-hook contract of each host that has one. */
export const HOOK_CONTRACTS: Readonly<Record<HookHost, HookContract>> = {
  'claude-code': {
    defaultCap: 24 * 1024,
    read: readClaudeCodeInput,
    prefix: () => '',
    shellHint: false,
    replace: (input, text) => claudeCodeReplacement(input, text),
    shownBytes: (input, text) => Buffer.byteLength(claudeCodeShown(input, text)),
  },
  gemini: {
    defaultCap: 32 * 1024,
    read: readGeminiInput,
    prefix: (call) => (geminiCommandFailed(call.text) ? GEMINI_FAILED_PREFIX : GEMINI_PREFIX),
    shellHint: true,
    replace: (_input, text, call) => geminiReplacement(text, geminiCommandFailed(call.text)),
    // With the prefix of `deny`: a preview read_file shows has none, and is then smaller.
    shownBytes: (_input, text, call) => Buffer.byteLength(`${geminiCommandFailed(call.text) ? GEMINI_FAILED_PREFIX : GEMINI_PREFIX}${text}`),
    fileDelivery: GEMINI_FILE_DELIVERY,
    footer: /^(?:\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID): [^\n]*)+\n?$/,
  },
};
