import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { HOOK_CONTRACTS, isHookHost, type HookHost } from '@spillway/hosts/hook';
import { createUsageLog, type UsageEvent } from '@spillway/usage';
import type { findSpillNotices as FindSpillNotices } from '@spillway/core/notice';
import { openPersistedOutput, persistedChunks } from './persisted-output.js';
import { deliverThroughFile } from './hook-file-delivery.js';

/** How long the hook may take before it gives up and answers nothing (the host keeps its result). */
export const HOOK_TIMEOUT_MS = 20_000;

/** What the hook needs from its process; injectable for tests. */
export interface HookIO {
  readonly stdin: NodeJS.ReadableStream;
  readonly stdout: NodeJS.WritableStream;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly homedir: string;
}

/** The arguments after `hook`. */
interface HookArgs {
  readonly host: HookHost;
  readonly cap: number;
  readonly root: string | undefined;
  readonly store: string | undefined;
}

function parseArgs(args: readonly string[]): HookArgs | undefined {
  const [host, ...rest] = args;
  if (host === undefined || !isHookHost(host)) return undefined;
  let cap = HOOK_CONTRACTS[host].defaultCap;
  let root: string | undefined;
  let store: string | undefined;
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? '';
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = inline ?? rest[++i];
    if (name === '--max-inline-bytes' && value !== undefined && /^\d+$/.test(value)) cap = Number(value);
    else if (name === '--root' && value !== undefined && value !== '') root = value;
    else if (name === '--store' && value !== undefined && value !== '') store = value;
    else return undefined;
  }
  // The two name different places, as for every command.
  if (root !== undefined && store !== undefined) return undefined;
  return { host, cap, root, store };
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** Whether `text` is at most `cap` UTF-8 bytes, without encoding it when its length decides. */
function fits(text: string, cap: number): boolean {
  if (text.length * 3 <= cap) return true;
  if (text.length > cap) return false;
  return Buffer.byteLength(text, 'utf8') <= cap;
}

/** stderr as it follows the output in what is stored, or `''`. */
function stderrSuffix(output: string, stderr: string | undefined): string {
  if (stderr === undefined || stderr === '') return '';
  return `${output.endsWith('\n') ? '' : '\n'}${stderr}`;
}

/**
 * Whether `text` is already a spilled preview: it ends with a spill notice, followed by
 * nothing but whitespace or the host's `footer`. A notice quoted earlier in a large output
 * (a Grep over files that hold one) does not make it a preview.
 */
function isPreview(text: string, find: typeof FindSpillNotices, footer: RegExp | undefined): boolean {
  // A notice never spans another's opening, so one that ends the text starts at the last opening.
  const at = text.lastIndexOf('(Omitted ');
  if (at < 0) return false;
  const tail = text.slice(at);
  const notice = find(tail).next().value;
  if (notice?.start !== 0) return false;
  const rest = tail.slice(notice.end);
  // A footer is a few short lines.
  return rest.trim() === '' || (footer !== undefined && rest.length <= 4096 && footer.test(rest));
}

/** How many smaller previews the hook makes when the host's rendering of one is over the cap. */
const MAX_SMALLER_PREVIEWS = 6;

/**
 * A preview of `whole` (already stored, as `first` says) whose rendering is at most `limit`
 * bytes by `shownBytes`, or `undefined` when none is found in {@link MAX_SMALLER_PREVIEWS}
 * tries. Each try scales the cap by how much the rendering added to the last preview (an
 * indent on many short lines adds more than the estimate allowed), and at least by 7/8.
 */
async function smallerPreview(whole: string, first: string, cap: number, limit: number, shownBytes: (text: string) => number, hint: string | undefined): Promise<string | undefined> {
  const [{ composeSpillPreview, createSpillPreviewScanner }, { KNOWN_RETRIEVAL_HINTS, parseSpillNotice }] = await Promise.all([import('@spillway/policy'), import('@spillway/core/notice')]);
  const notice = parseSpillNotice(first, { knownHints: hint === undefined ? KNOWN_RETRIEVAL_HINTS : [...KNOWN_RETRIEVAL_HINTS, hint] });
  if (notice === undefined) return undefined;
  const fixed = shownBytes('');
  const totalBytes = Buffer.byteLength(whole);
  let shown = shownBytes(first);
  let at = cap;
  for (let i = 0; i < MAX_SMALLER_PREVIEWS; i++) {
    at = Math.floor(at * Math.min(7 / 8, (limit - fixed) / Math.max(1, shown - fixed)));
    if (at <= 0) return undefined;
    // The policy's own preview at that cap, of the output it stored.
    const scanner = createSpillPreviewScanner(at);
    scanner.push(whole);
    const next = composeSpillPreview({ head: whole, tail: whole, totalBytes, maxInlineBytes: at, locator: notice.locator, retrievalHint: notice.retrievalHint, scan: scanner.finish() });
    if (next === undefined) return undefined;
    shown = shownBytes(next.text);
    if (shown <= limit) return next.text;
  }
  return undefined;
}

/** The hint for a model whose file tools cannot reach the root (Gemini CLI's read_file stays in the workspace). */
function shellHint(script: string): string {
  const spillway = `${process.execPath} ${script}`;
  return `Read it with run_shell_command: ${spillway} read <path> --offset N --limit N, or ${spillway} grep <path> <pattern>.`;
}

/**
 * Answers one host hook call: reads the hook JSON on stdin and, when the tool's output is
 * over the cap, stores the whole output and prints the host's replacement (a preview and
 * a notice). Prints nothing when the output is small, and nothing on any error: the host
 * then keeps its own result. Resolves with the text to print (`""` for none); never rejects.
 */
export async function answerHook(args: readonly string[], io: HookIO): Promise<string> {
  try {
    return await answer(args, io);
  } catch {
    return '';
  }
}

async function answer(args: readonly string[], io: HookIO): Promise<string> {
  const parsed = parseArgs(args);
  if (parsed === undefined) return '';
  const usage = createUsageLog({ env: io.env, home: io.homedir });
  const record = (event: Omit<UsageEvent, 'surface' | 'host'>): void => {
    usage.record({ ...event, surface: 'hook', host: parsed.host });
  };
  let input: unknown;
  try {
    input = JSON.parse(await readAll(io.stdin));
  } catch {
    return '';
  }
  const contract = HOOK_CONTRACTS[parsed.host];
  const call = contract.read(input);
  if (call === undefined) return '';
  // The host's prefix and the tool's framing reach the model with the preview: both count.
  const prefixBytes = Buffer.byteLength(contract.prefix(call)) + (call.framingBytes ?? 0);
  const cap = Math.max(0, Math.floor((Math.min(parsed.cap, call.maxBytes ?? parsed.cap) - prefixBytes) * (call.textShare ?? 1)));
  // Small output: the common case, answered without loading anything else.
  if (call.persistedOutputPath === undefined && fits(call.text + (call.stderr ?? ''), cap)) {
    record({ kind: 'passed', tool: call.toolName, session: call.sessionId, bytes: Buffer.byteLength(call.text) });
    return '';
  }
  // Already a preview: another spiller (spillway's own shell prefix or MCP proxy, or another
  // tool) stored this output, and spilling its preview again would only hide the notice.
  const { findSpillNotices } = await import('@spillway/core/notice');
  if (isPreview(call.text, findSpillNotices, contract.footer) || (call.stderr !== undefined && isPreview(call.stderr, findSpillNotices, undefined))) {
    record({ kind: 'passed', tool: call.toolName, session: call.sessionId, bytes: Buffer.byteLength(call.text) });
    return '';
  }
  // A path in the input is untrusted: only Claude Code's own copy of this output is read;
  // for anything else the host keeps its own result.
  const persisted = call.persistedOutputPath === undefined ? undefined : openPersistedOutput(call.persistedOutputPath, call.text);
  if (call.persistedOutputPath !== undefined && persisted === undefined) return '';
  const text = persisted === undefined ? `${call.text}${stderrSuffix(call.text, call.stderr)}` : undefined;
  const bytes = text !== undefined ? Buffer.byteLength(text, 'utf8') : (persisted?.bytes ?? 0) + Buffer.byteLength(stderrSuffix('', call.stderr));
  if (bytes <= cap && text !== undefined) {
    record({ kind: 'passed', tool: call.toolName, session: call.sessionId, bytes });
    return '';
  }
  const [{ createSpillPolicy }, { selectHookBackend }, autoGc, retention] = await Promise.all([
    import('@spillway/policy'),
    import('./hook-backend.js'),
    import('./auto-gc.js'),
    import('@spillway/retention'),
  ]);
  const { backend: stored, root } = await selectHookBackend(parsed, io);
  const hint = contract.shellHint ? shellHint(autoGc.SPILLWAY_SCRIPT) : undefined;
  const backend =
    hint === undefined
      ? stored
      : {
          specificationVersion: stored.specificationVersion,
          name: stored.name,
          saveText: async (...a: Parameters<typeof stored.saveText>) => ({ ...(await stored.saveText(...a)), retrievalHint: hint }),
          saveTextStream: async (...a: Parameters<typeof stored.saveTextStream>) => ({ ...(await stored.saveTextStream(...a)), retrievalHint: hint }),
        };
  let locator: string | undefined;
  const policy = createSpillPolicy({
    backend,
    maxInlineBytes: cap,
    skipTools: [],
    saveTimeoutMs: HOOK_TIMEOUT_MS / 2,
    onEvent: (event) => {
      if (event.type === 'spilled') locator = event.locator;
    },
  });
  const sessionId = call.sessionId !== '' ? call.sessionId : parsed.host;
  const exec = { toolName: call.toolName, callId: call.callId !== '' ? call.callId : randomUUID(), sessionId };
  let shown;
  if (persisted === undefined) {
    shown = await policy.applyToResult(exec, { content: [{ type: 'text' as const, text: text ?? '' }] });
  } else {
    // Streamed from the file: memory stays bounded by the preview, whatever its size.
    const stream = policy.stream(exec);
    let last = '';
    for (const chunk of persistedChunks(persisted)) {
      await stream.push(chunk);
      last = chunk;
    }
    const tail = stderrSuffix(last, call.stderr);
    if (tail !== '') await stream.push(tail);
    shown = await stream.finish();
  }
  const block = shown.content[0];
  if (locator === undefined || block?.type !== 'text') {
    record({ kind: 'kept', tool: call.toolName, session: call.sessionId, bytes });
    return '';
  }
  // The cap's share for the tool's framing was estimated: the rendering is measured, and
  // over the cap a smaller preview of the same stored output is made.
  const limit = Math.min(parsed.cap, call.maxBytes ?? parsed.cap);
  const shownBytes = (t: string): number => contract.shownBytes(input, t, call);
  let replacement: string | undefined = String(block.text);
  if (shownBytes(replacement) > limit) {
    replacement = text === undefined ? undefined : await smallerPreview(text, replacement, cap, limit, shownBytes, hint);
    if (replacement === undefined) {
      // The stored copy is referenced by nothing; the automatic cleanup removes it in time.
      record({ kind: 'kept', tool: call.toolName, session: call.sessionId, bytes });
      return '';
    }
  }
  // Shown as the tool's own result where the host allows it, else as the host's replacement (with its prefix).
  const delivered = contract.fileDelivery === undefined ? undefined : deliverThroughFile(contract.fileDelivery, input, replacement);
  record({ kind: 'spilled', tool: call.toolName, session: call.sessionId, artifact: locator, bytes, shownBytes: Buffer.byteLength(replacement) + (delivered === undefined ? prefixBytes : 0) });
  const answer = delivered ?? contract.replace(input, replacement, call);
  // Storage grew: a sweep of a local root may be due. It runs in a detached child, after this answer.
  if (root !== undefined) {
    const settings = autoGc.autoGcSettings(io.env, io.homedir, retention.parseDuration, retention.parseByteSize);
    setImmediate(() => {
      autoGc.startAutoGc(root, settings, io.env);
      void import('./auto-index.js').then(({ startAutoIndex }) => startAutoIndex(root, sessionId, io.env, io.homedir)).catch(() => undefined);
    });
  }
  return `${JSON.stringify(answer)}\n`;
}

/**
 * `spillway hook <host>` as a process: answers, and exits 0 whatever happens. A timer ends
 * the process with no output after {@link HOOK_TIMEOUT_MS} (or `SPILLWAY_HOOK_TIMEOUT_MS`).
 */
export async function runHookProcess(args: readonly string[]): Promise<void> {
  const fromEnv = Number(process.env.SPILLWAY_HOOK_TIMEOUT_MS);
  const timer = setTimeout(() => process.exit(0), Number.isSafeInteger(fromEnv) && fromEnv > 0 ? fromEnv : HOOK_TIMEOUT_MS);
  timer.unref();
  const quit = (): void => process.exit(0);
  process.on('uncaughtException', quit);
  process.on('unhandledRejection', quit);
  let out = '';
  try {
    out = await answerHook(args, { stdin: process.stdin, stdout: process.stdout, env: process.env, cwd: process.cwd(), homedir: homedir() });
  } catch {
    out = '';
  }
  clearTimeout(timer);
  if (out !== '') await new Promise<void>((done) => process.stdout.write(out, () => { done(); }));
  process.exitCode = 0;
}
