/**
 * The `pnpm demo` walk-through: a scripted agent loop on generated data, run once with
 * the local backend and once with the memory backend (the same policy code; one line
 * differs), then the same cycle from a shell with the `spillway` CLI.
 *
 * @packageDocumentation
 */
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { formatGrepMatches, formatReadLines, makeStyle, type Style } from '@spillway/cli/internal';
import { isSpillError, spillLocator, utf8ByteLength, type SpillBackend, type SpillReader } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy, type SpillEvent, type ToolExecution, type ToolResult } from '@spillway/policy';
import { parseSpillNotice } from '@spillway/policy/notice';
import { NEEDLE, fetchedPage, searchResults, sourceFile } from './data.js';
import { mcpPart, type McpPartSummary } from './mcp-part.js';
import { aiSdkPart, type AiSdkSummary } from './ai-sdk-part.js';

/**
 * The cap in the demo. The CLI's default is 32 KiB; the demo uses 2 KiB so that the whole
 * model-facing replacement fits on one screen.
 */
export const DEMO_CAP = 2048;

/** Options for {@link runDemo}. */
export interface DemoOptions {
  /** Receives the demo's output. */
  readonly write: (text: string) => void;
  /** Use ANSI colour for labels. */
  readonly color: boolean;
  /** Skip the shell part (which runs the built `spillway` binary). Default false. */
  readonly skipShell?: boolean;
  /** Told the temporary directory as soon as it exists, so an interrupted run can remove it. */
  readonly onTempDir?: (dir: string) => void;
}

/** What the demo observed, for its test. */
export interface DemoSummary {
  /** Per backend: what happened at each step. */
  readonly passes: readonly PassSummary[];
  /** The temporary directory the demo used; removed before `runDemo` resolves. */
  readonly tempDir: string;
  /** The `spillway run` exit code in the shell part, when it ran. */
  readonly shellExitCode?: number;
  /** The MCP round trip through `spillway mcp`, when the shell part ran. */
  readonly mcp?: McpPartSummary;
  /** What the Vercel AI SDK part observed. */
  readonly aiSdk: AiSdkSummary;
}

/** One pass of the agent loop over one backend. */
export interface PassSummary {
  readonly backend: string;
  readonly smallPassedThrough: boolean;
  readonly bigSpilled: boolean;
  readonly bigReplacementBytes: number;
  readonly bigOriginalBytes: number;
  readonly readLeftAlone: boolean;
  readonly failureKeptInline: boolean;
  readonly failureCode: string | undefined;
  readonly needleFoundAtLine: number | undefined;
}

type ReadableBackend = SpillBackend & { readonly reader: SpillReader };

const SESSION = 'demo-conversation-1';

class Printer {
  readonly style: Style;
  private readonly write: (text: string) => void;

  constructor(write: (text: string) => void, style: Style) {
    this.write = write;
    this.style = style;
  }

  line(text = ''): void {
    this.write(`${text}\n`);
  }

  title(text: string): void {
    this.line();
    this.line(this.style.bold(`━━ ${text} ${'━'.repeat(Math.max(3, 76 - text.length))}`));
  }

  step(n: number, text: string): void {
    this.line();
    this.line(this.style.bold(`[${String(n)}] ${text}`));
  }

  note(text: string): void {
    this.line(`    ${this.style.dim(text)}`);
  }

  /** Shows text exactly as the model receives it, in a margin. */
  model(text: string): void {
    this.line(`    ${this.style.green('model sees ▼')}`);
    const lines = text.split('\n');
    for (const line of lines) this.line(`    ${this.style.green('│')} ${line}`);
    this.line(`    ${this.style.green('▲')} ${this.style.dim(`(${String(utf8ByteLength(text))} bytes, exactly as above)`)}`);
  }

  block(text: string): void {
    for (const line of text.replace(/\n$/, '').split('\n')) this.line(`    ${this.style.dim('│')} ${line}`);
  }
}

function textOf(result: ToolResult): string {
  return result.content.map((block) => (block.type === 'text' && typeof block.text === 'string' ? block.text : '')).join('');
}

function textResult(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

let callCounter = 0;
function exec(toolName: string): ToolExecution {
  callCounter++;
  return { toolName, callId: `call-${String(callCounter)}`, sessionId: SESSION };
}

/**
 * The harness side of the loop: one policy, whatever the backend. This is the code that
 * is the same in both passes.
 */
function makePolicy(backend: SpillBackend, events: SpillEvent[]): ReturnType<typeof createSpillPolicy> {
  return createSpillPolicy({
    backend,
    maxInlineBytes: DEMO_CAP,
    skipTools: ['read', 'spill_read', 'spill_grep'],
    onEvent: (event) => events.push(event),
  });
}

async function agentLoop(
  out: Printer,
  label: string,
  tools: { readonly read: string; readonly grep: string },
  backend: ReadableBackend,
  failing: { readonly backend: SpillBackend; readonly why: string },
): Promise<PassSummary> {
  const events: SpillEvent[] = [];
  const policy = makePolicy(backend, events);

  // 1. A small result passes through.
  const small = searchResults();
  out.step(1, `web_search("spillway handbook") → ${String(utf8ByteLength(small))} bytes`);
  const smallResult = await policy.applyToResult(exec('web_search'), textResult(small));
  const smallPassedThrough = textOf(smallResult) === small && events.length === 0;
  out.note(`at most ${String(DEMO_CAP)} bytes: passed through unchanged, the backend was not called.`);
  out.model(textOf(smallResult));

  // 2. A large fetch is spilled.
  const page = fetchedPage();
  const pageBytes = utf8ByteLength(page);
  out.step(2, `web_fetch("https://docs.example.test/handbook") → ${String(pageBytes)} bytes (generated)`);
  const before = events.length;
  const bigResult = await policy.applyToResult(exec('web_fetch'), textResult(page));
  const bigText = textOf(bigResult);
  const spilled = events.slice(before).find((e) => e.type === 'spilled');
  out.note(`over the cap: the full text went to the ${backend.name} backend; the model gets a head, a tail and a notice.`);
  out.model(bigText);
  if (spilled?.type !== 'spilled') throw new Error(`the ${label} pass did not spill the large result`);
  const locator = spillLocator(spilled.locator);

  // 3. A read result over the cap is left alone.
  const source = sourceFile();
  out.step(3, `read("src/generated.ts") → ${String(utf8ByteLength(source))} bytes, also over the cap`);
  const readBefore = events.length;
  const readResult = await policy.applyToResult(exec('read'), textResult(source));
  const readLeftAlone = textOf(readResult) === source && events.length === readBefore;
  out.note('`read` is in skipTools: spilling a read would send the model from read to spill to read again.');
  out.note(`left alone: the model gets all ${String(utf8ByteLength(textOf(readResult)))} bytes (first 2 lines shown here):`);
  out.block(source.split('\n').slice(0, 2).join('\n'));

  // 4. A backend failure keeps the inline result, without an error.
  out.step(4, `web_fetch again, with a broken backend: ${failing.why}`);
  const failEvents: SpillEvent[] = [];
  const failingPolicy = makePolicy(failing.backend, failEvents);
  const failResult = await failingPolicy.applyToResult(exec('web_fetch'), textResult(page));
  const kept = failEvents.find((e) => e.type === 'kept');
  const failureCode = kept?.type === 'kept' && isSpillError(kept.error) ? kept.error.code : undefined;
  const failureKeptInline = textOf(failResult) === page && failResult.isError !== true;
  const why = kept?.type === 'kept' ? `${kept.reason}${failureCode === undefined ? '' : `, ${failureCode}`}` : 'no event';
  out.note(`onEvent({ type: '${kept?.type ?? '?'}', … }): the save failed (${why}), and the call still succeeds:`);
  out.note(`the model gets the original ${String(utf8ByteLength(textOf(failResult)))} bytes inline, isError = ${String(failResult.isError ?? false)}.`);

  // 5. The model reads back and greps.
  out.step(5, `the model reads the spilled page back: ${tools.read}(locator, offset 20000, limit 4)`);
  out.note('(the harness answers it with backend.reader.read)');
  const page1 = await backend.reader.read(locator, { offset: 20_000, limit: 4 });
  out.block(formatReadLines(page1, out.style));
  out.note(`more follows: next offset ${String(page1.nextOffset ?? '-')}, ${String(page1.totalBytes)} bytes in all.`);

  out.step(6, `the model greps for a token it saw mentioned: ${tools.grep}(locator, "${NEEDLE}")`);
  const found = await backend.reader.grep(locator, NEEDLE);
  out.block(formatGrepMatches(found, out.style));
  const hit = found.matches[0];
  if (hit !== undefined) {
    out.note(`…and reads the lines around it: ${tools.read}(locator, offset ${String(hit.line - 1)}, limit 3)`);
    const around = await backend.reader.read(locator, { offset: hit.line - 1, limit: 3 });
    out.block(formatReadLines(around, out.style));
  }

  return {
    backend: label,
    smallPassedThrough,
    bigSpilled: true,
    bigReplacementBytes: utf8ByteLength(bigText),
    bigOriginalBytes: pageBytes,
    readLeftAlone,
    failureKeptInline,
    failureCode,
    needleFoundAtLine: hit?.line,
  };
}

const execFileAsync = promisify(execFile);

async function shellPart(out: Printer, root: string): Promise<number> {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve('@spillway/cli/package.json')), 'dist', 'bin.js');
  // The demo keeps its own state: its usage events go beside its root, not into the person's
  // `spillway stats`. Its root is removed seconds later, so no background index or cleanup
  // is started on it (one still writing there made that removal fail).
  const env: NodeJS.ProcessEnv = { ...process.env, SPILLWAY_ROOT: root, SPILLWAY_SESSION: 'demo-shell', SPILLWAY_USAGE_DIR: demoUsageDir(root), SPILLWAY_AUTO_INDEX: 'off', SPILLWAY_AUTO_GC: 'off', NO_COLOR: '1' };
  delete env.FORCE_COLOR;
  const generator = `for (let i = 1; i <= 100000; i++) console.log("line " + i + (i === 77777 ? ": ${NEEDLE}" : ": ok"))`;

  const show = async (args: string[]): Promise<{ stdout: string; code: number }> => {
    out.line(`    ${out.style.bold('$')} spillway ${args.map(quote).join(' ')}`);
    try {
      const { stdout } = await execFileAsync(process.execPath, [bin, ...args], { env, maxBuffer: 16 * 1024 * 1024 });
      out.block(stdout);
      return { stdout, code: 0 };
    } catch (error) {
      const failed = error as { stdout?: string; stderr?: string; code?: number };
      out.block(`${failed.stdout ?? ''}${failed.stderr ?? ''}`);
      return { stdout: failed.stdout ?? '', code: typeof failed.code === 'number' ? failed.code : 1 };
    }
  };

  out.title('From a shell: the spillway CLI (local backend, persistent files)');
  out.note(`SPILLWAY_ROOT=${root}`);
  out.line();
  const run = await show(['run', '--max-inline-bytes', '600', '--', 'node', '-e', generator]);
  const locator = parseSpillNotice(run.stdout)?.locator;
  if (locator !== undefined) {
    out.line();
    await show(['grep', locator, NEEDLE]);
    out.line();
    await show(['read', locator, '--offset', '77776', '--limit', '3']);
  }
  return run.code;
}

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Where the demo's own usage events go: beside its root, in its temporary directory. */
export function demoUsageDir(root: string): string {
  return join(dirname(root), 'usage');
}

/** Runs the walk-through, writing to `options.write`, and cleans up its temporary files. */
export async function runDemo(options: DemoOptions): Promise<DemoSummary> {
  const out = new Printer(options.write, makeStyle(options.color));
  const started = performance.now();
  const tempDir = await mkdtemp(join(tmpdir(), 'spillway-demo-'));
  options.onTempDir?.(tempDir);
  try {
    const root = join(tempDir, 'root');
    await mkdir(root, { mode: 0o700 });
    await chmod(root, 0o700);
    // A regular file where the root should be: refused even when running as root.
    const notADirectory = join(tempDir, 'not-a-directory');
    await writeFile(notADirectory, 'this file is where a root directory should be\n');

    out.line(out.style.bold('spillway demo: an agent loop, scripted, on generated data (no network)'));
    out.note(`cap (maxInlineBytes) = ${String(DEMO_CAP)} bytes; session = "${SESSION}"; temp dir = ${tempDir}`);

    const passes: PassSummary[] = [];

    out.title('Pass 1: local backend (private files)');
    out.note(`const backend = createLocalBackend({ root: '${root}' });`);
    {
      const backend = createLocalBackend({ root });
      passes.push(
        await agentLoop(out, 'local', { read: 'read', grep: 'grep' }, backend, {
          backend: createLocalBackend({ root: notADirectory }),
          why: 'its root is a regular file, not a private directory',
        }),
      );
    }

    out.title('Pass 2: memory backend (same policy code, one line changed)');
    out.note('const backend = createMemoryBackend({ maxBytes: 64 * 1024 * 1024 });');
    {
      const backend = createMemoryBackend({ maxBytes: 64 * 1024 * 1024 });
      passes.push(
        await agentLoop(out, 'memory', { read: 'spill_read', grep: 'spill_grep' }, backend, {
          backend: createMemoryBackend({ maxBytes: 1024 * 1024 }),
          why: 'a memory backend capped at 1 MiB, smaller than the page',
        }),
      );
    }

    const aiSdk = await aiSdkPart(out, DEMO_CAP);

    let shellExitCode: number | undefined;
    if (options.skipShell !== true) shellExitCode = await shellPart(out, root);
    const mcp = options.skipShell === true ? undefined : await mcpPart(out, tempDir, root, DEMO_CAP);

    out.line();
    out.line(out.style.bold(`done in ${((performance.now() - started) / 1000).toFixed(1)} s; removing ${tempDir}`));
    return { passes, tempDir, aiSdk, ...(shellExitCode === undefined ? {} : { shellExitCode }), ...(mcp === undefined ? {} : { mcp }) };
  } finally {
    // Retried: a spillway process of the demo's may still be finishing a write in it.
    await rm(tempDir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}
