import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, closeSync, existsSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync, writeSync } from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_CODE_TOOL_SHAPES, GEMINI_FAILED_PREFIX, GEMINI_PREFIX, type ClaudeCodeToolShape } from '@spillway/hosts/hook';
import { createUsageLog } from '@spillway/usage';
import { DELIVERY_FOLDER } from './hook-file-delivery.js';
import { answerHook, type HookIO } from './hook-main.js';

/** Whether this user's primary group is theirs alone: named after them, no member listed, no other user's primary group. */
function primaryGroupIsPrivate(): boolean {
  const gid = String(process.getgid?.() ?? -1);
  const me = userInfo().username;
  const rows = (file: string): string[][] => readFileSync(file, 'utf8').split('\n').map((line) => line.split(':'));
  const group = rows('/etc/group').find((f) => f[2] === gid);
  return group?.[0] === me && (group[3] ?? '').trim() === '' && !rows('/etc/passwd').some((f) => f[3] === gid && f[0] !== me);
}
import { ensureBuilt, PACKAGE_DIR } from './test-bin.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const home = tempDirsPerTest('hook-');

function io(dir: string, stdin: string, env: Record<string, string> = {}): HookIO {
  return {
    stdin: Readable.from([Buffer.from(stdin)]),
    stdout: process.stdout,
    // No sweep in a detached child unless a test asks: one would outlive the test's directory.
    env: { XDG_STATE_HOME: join(dir, 'state'), SPILLWAY_AUTO_GC: 'off', ...env },
    cwd: dir,
    homedir: dir,
  };
}

function bigLog(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `line ${String(i + 1)}: build step ${String(i % 97)} ok`).join('\n') + '\n';
}

function claudeInput(stdout: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    session_id: 'cc-session-1',
    tool_name: 'Bash',
    tool_use_id: 'toolu_1',
    cwd: '/work',
    tool_input: { command: 'make' },
    tool_response: { stdout, stderr: '', interrupted: false, isImage: false, noOutputExpected: false, ...extra },
  });
}

function locatorOf(text: string): string {
  const match = /stored at: (\S+?)\. /.exec(text);
  if (match?.[1] === undefined) throw new Error(`no notice in ${text.slice(-300)}`);
  return match[1];
}

describe('spillway hook claude-code (PostToolUse)', () => {
  it('prints nothing for a small output', async () => {
    const dir = home();
    expect(await answerHook(['claude-code'], io(dir, claudeInput('hello\n')))).toBe('');
  });

  it('stores in the backend that --store or SPILLWAY_STORE names, through the backend registry', async () => {
    const dir = home();
    const input = claudeInput(bigLog(3_000));
    const inMemory: string[] = [];
    for (const [args, env] of [
      [['--store', 'memory:'], {}],
      [[], { SPILLWAY_STORE: 'memory:' }],
    ] as const) {
      const out = await answerHook(['claude-code', ...args, '--max-inline-bytes', '4096'], io(dir, input, env));
      expect(locatorOf(out)).toMatch(/^spill\+memory:\/\/session-[0-9a-f]{32}\/[0-9a-f]{32}$/);
      inMemory.push(locatorOf(out));
    }
    // --root wins over SPILLWAY_STORE, as for every command.
    const root = join(dir, 'named-root');
    mkdirSync(root, { mode: 0o700 });
    const rooted = await answerHook(['claude-code', '--root', root, '--max-inline-bytes', '4096'], io(dir, input, { SPILLWAY_STORE: 'memory:' }));
    expect(locatorOf(rooted).startsWith(`${root}/session-`)).toBe(true);
    // One session looks alike on both backends: the memory locator names the directory.
    const sessionDir = locatorOf(rooted).slice(root.length + 1).split('/')[0];
    for (const locator of inMemory) expect(locator.split('/')[2]).toBe(sessionDir);
    // --store with --root names two places: the host keeps its output.
    expect(await answerHook(['claude-code', '--root', root, '--store', 'memory:'], io(dir, input))).toBe('');
  });

  it('stores in the default root when the named store cannot be opened (an unknown scheme)', async () => {
    const dir = home();
    const out = await answerHook(['claude-code', '--store', 'nosuch://x', '--max-inline-bytes', '4096'], io(dir, claudeInput(bigLog(3_000))));
    expect(locatorOf(out).startsWith(join(dir, 'state', 'spillway', 'session-'))).toBe(true);
  });

  it('stores the whole output from persistedOutputPath and leaves the persisted keys out', async () => {
    const dir = home();
    const whole = bigLog(80_000);
    mkdirSync(join(dir, 'projects', '-work', 'tool-results'), { recursive: true });
    const persisted = join(dir, 'projects', '-work', 'tool-results', 'toolu_1.txt');
    writeFileSync(persisted, whole);
    const input = claudeInput(whole.slice(0, 30_000), { persistedOutputPath: persisted, persistedOutputSize: whole.length });
    const out = await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, input));
    const answer = JSON.parse(out) as { hookSpecificOutput: { hookEventName: string; updatedToolOutput: Record<string, unknown> } };
    expect(answer.hookSpecificOutput.hookEventName).toBe('PostToolUse');
    const output = answer.hookSpecificOutput.updatedToolOutput;
    expect(Object.keys(output).sort()).toEqual(['interrupted', 'isImage', 'noOutputExpected', 'stderr', 'stdout']);
    const stdout = String(output.stdout);
    expect(Buffer.byteLength(stdout)).toBeLessThanOrEqual(24576);
    expect(stdout.startsWith('line 1: ')).toBe(true);
    expect(stdout).toContain(`line 80000: `);
    expect(readFileSync(locatorOf(stdout), 'utf8')).toBe(whole);
  });

  it('leaves alone an output that already carries a spill notice, however large', async () => {
    const dir = home();
    const preview = `${bigLog(2_000)}\n(Omitted 9999999 bytes. Full formatted result stored at: /elsewhere/session-1/out.txt. Use read with offset/limit, or grep this path to search within it.)`;
    expect(Buffer.byteLength(preview)).toBeGreaterThan(24_576);
    expect(await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, claudeInput(preview)))).toBe('');
    // Without the notice, the same output is spilled.
    expect(await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, claudeInput(bigLog(2_000))))).not.toBe('');
  });

  it('spills an inline output over the cap, stderr included', async () => {
    const dir = home();
    const whole = bigLog(2000);
    const input = JSON.stringify({ ...(JSON.parse(claudeInput(whole)) as object), tool_response: { stdout: whole, stderr: 'warning: deprecated\n', interrupted: false, isImage: false, noOutputExpected: false } });
    const out = await answerHook(['claude-code', '--max-inline-bytes', '4096'], io(dir, input));
    const stdout = (JSON.parse(out) as { hookSpecificOutput: { updatedToolOutput: { stdout: string } } }).hookSpecificOutput.updatedToolOutput.stdout;
    expect(readFileSync(locatorOf(stdout), 'utf8')).toBe(`${whole}warning: deprecated\n`);
  });

  it('reads only Claude Code’s own copy of the output: anything else the path names is left alone', async () => {
    const dir = home();
    const whole = bigLog(80_000);
    const results = join(dir, 'projects', '-work', 'tool-results');
    mkdirSync(results, { recursive: true });
    const secret = join(dir, 'shadow');
    writeFileSync(secret, `root:$6$secret-hash:19000:0:99999:7:::\n${whole}`);
    const fifo = join(results, 'fifo.txt');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    symlinkSync(secret, join(results, 'link.txt'));
    writeFileSync(join(results, 'other.txt'), bigLog(90_000).replace('line 1:', 'line one:'));
    writeFileSync(join(results, 'linked.txt'), whole);
    linkSync(join(results, 'linked.txt'), join(dir, 'second-name.txt'));
    const paths = [secret, '/etc/passwd', '/proc/self/environ', join(results, 'link.txt'), fifo, join(results, 'other.txt'), join(results, 'linked.txt'), 'tool-results/relative.txt'];
    for (const path of paths) {
      const input = claudeInput(whole.slice(0, 30_000), { persistedOutputPath: path });
      const started = Date.now();
      expect(await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, input)), path).toBe('');
      expect(Date.now() - started).toBeLessThan(5_000);
    }
    // Nothing was stored: no session directory was made under the root.
    expect(existsSync(join(dir, 'state', 'spillway'))).toBe(false);
  });

  it('streams a persisted output in bounded memory (a 200 MB file)', () => {
    const dir = home();
    const results = join(dir, 'projects', '-work', 'tool-results');
    mkdirSync(results, { recursive: true });
    const persisted = join(results, 'big.txt');
    const line = 'compiling module 0123456789 of the build, all is well so far\n';
    const block = line.repeat(Math.ceil((1024 * 1024) / line.length));
    const fd = openSync(persisted, 'w');
    for (let i = 0; i < 200; i++) writeSync(fd, block);
    writeSync(fd, 'error: the last line says what broke\n');
    closeSync(fd);
    const input = claudeInput(block.slice(0, 30_000), { persistedOutputPath: persisted });
    ensureBuilt();
    // One run, under /usr/bin/time when it is there for the peak RSS; a generous hook timeout for a loaded machine.
    const hook = [process.execPath, join(PACKAGE_DIR, 'bin', 'spillway.js'), 'hook', 'claude-code'];
    const timed = existsSync('/usr/bin/time');
    const child = spawnSync(timed ? '/usr/bin/time' : hook[0] ?? '', timed ? ['-f', '%M', ...hook] : hook.slice(1), {
      input,
      encoding: 'utf8',
      env: { PATH: process.env.PATH ?? '', HOME: dir, XDG_STATE_HOME: join(dir, 'state'), SPILLWAY_AUTO_GC: 'off', SPILLWAY_USAGE: 'off', SPILLWAY_HOOK_TIMEOUT_MS: '240000' },
      maxBuffer: 64 * 1024 * 1024,
    });
    const stdout = (JSON.parse(child.stdout) as { hookSpecificOutput: { updatedToolOutput: { stdout: string } } }).hookSpecificOutput.updatedToolOutput.stdout;
    expect(stdout).toContain('error: the last line says what broke');
    expect(statSync(locatorOf(stdout)).size).toBe(statSync(persisted).size);
    if (timed) {
      // Far below the file's 200 MB: it was never read whole.
      const kib = Number(child.stderr.trim().split('\n').at(-1));
      expect(kib * 1024).toBeLessThan(160 * 1024 * 1024);
    }
  }, 240_000);

  it('stores in the private per-user root when the root it was given cannot be used', async () => {
    const dir = home();
    const whole = bigLog(2000);
    const out = await answerHook(['claude-code', '--max-inline-bytes', '4096', '--root', join(dir, 'missing-root')], io(dir, claudeInput(whole)));
    const stdout = (JSON.parse(out) as { hookSpecificOutput: { updatedToolOutput: { stdout: string } } }).hookSpecificOutput.updatedToolOutput.stdout;
    const locator = locatorOf(stdout);
    expect(locator.startsWith(join(dir, 'state', 'spillway'))).toBe(true);
    expect(readFileSync(locator, 'utf8')).toBe(whole);
  });

  it('passes through when the persisted file cannot be read (the whole output would be lost)', async () => {
    const dir = home();
    const input = claudeInput(bigLog(3000).slice(0, 30_000), { persistedOutputPath: join(dir, 'gone.txt') });
    expect(await answerHook(['claude-code'], io(dir, input))).toBe('');
  });
});

describe("spillway hook claude-code: Claude Code's other built-in tools", () => {
  const lines = (n: number, tag: string): string[] => Array.from({ length: n }, (_, i) => `${tag} ${String(i + 1)}: ${'x'.repeat(60)}`);
  /** A large output of each tool, in the shape Claude Code hands the hook. */
  const LARGE: Record<string, Record<string, unknown>> = {
    Grep: { mode: 'content', numFiles: 0, filenames: [], content: lines(2000, 'src/a.ts:1').join('\n'), numLines: 250, totalLines: 10000, appliedLimit: 250 },
    Glob: { filenames: lines(400, 'src/dir/file'), durationMs: 5, numFiles: 400, truncated: false },
    WebFetch: { bytes: 65489, code: 200, codeText: 'OK', result: lines(2000, 'page').join('\n'), durationMs: 38, url: 'https://example.com/page' },
    WebSearch: { query: 'spillway', results: [lines(2000, 'note').join('\n'), { tool_use_id: 'srvtoolu_1', content: [{ title: 'S', url: 'https://example.com' }] }], durationSeconds: 1.5, searchCount: 1 },
    Agent: { status: 'completed', agentId: 'a1', agentType: 'general-purpose', prompt: 'p', content: [{ type: 'text', text: lines(2000, 'answer').join('\n') }], totalToolUseCount: 1, totalTokens: 9, totalDurationMs: 9, usage: {} },
  };
  const input = (tool: string, response: Record<string, unknown>): string => JSON.stringify({ session_id: 'cc-1', tool_name: tool, tool_use_id: `toolu_${tool}`, tool_input: {}, tool_response: response });

  for (const [tool, response] of Object.entries(LARGE)) {
    it(`${tool}: a large output becomes the preview and notice in the tool's own shape, within the tool's cap, the whole as the model would see it stored`, async () => {
      const dir = home();
      const shape = CLAUDE_CODE_TOOL_SHAPES[tool] as ClaudeCodeToolShape;
      const out = await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, input(tool, response)));
      const replacement = (JSON.parse(out) as { hookSpecificOutput: { hookEventName: string; updatedToolOutput: Record<string, unknown> } }).hookSpecificOutput;
      expect(replacement.hookEventName).toBe('PostToolUse');
      const shown = shape.render(replacement.updatedToolOutput);
      expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(Math.min(24576, shape.maxBytes));
      expect(readFileSync(locatorOf(shown), 'utf8')).toBe(shape.whole(response));
      // A smaller cap, given by hand, holds too.
      const small = await answerHook(['claude-code', '--max-inline-bytes', '4096'], io(dir, input(tool, response)));
      expect(Buffer.byteLength(shape.render((JSON.parse(small) as { hookSpecificOutput: { updatedToolOutput: Record<string, unknown> } }).hookSpecificOutput.updatedToolOutput))).toBeLessThanOrEqual(4096);
    });
  }

  it('Grep: a 17 KiB result is spilled at the 24 KiB cap, as Claude Code would persist it over 20,000 characters; a 15 KiB one passes', async () => {
    const dir = home();
    const grep = (n: number): Record<string, unknown> => ({ mode: 'content', numFiles: 0, filenames: [], content: lines(n, 'src/a.ts:1').join('\n') });
    expect(Buffer.byteLength(String(grep(240).content))).toBeGreaterThan(17 * 1024);
    expect(await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, input('Grep', grep(240))))).not.toBe('');
    expect(Buffer.byteLength(String(grep(200).content))).toBeLessThan(15 * 1024);
    expect(await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, input('Grep', grep(200))))).toBe('');
  });

  /** What the model is shown of the hook's answer to `response`, or `undefined` when the hook answered nothing. */
  const shownOf = (tool: string, response: Record<string, unknown>, out: string): string | undefined => {
    if (out === '') return undefined;
    const shape = CLAUDE_CODE_TOOL_SHAPES[tool] as ClaudeCodeToolShape;
    return shape.render((JSON.parse(out) as { hookSpecificOutput: { updatedToolOutput: Record<string, unknown> } }).hookSpecificOutput.updatedToolOutput);
  };

  it('Agent: a report of very long and very short lines is rendered within the cap, every line indented', async () => {
    const dir = home();
    // The mean line length is about 35 bytes, but the preview's lines are 1 byte: the indent doubles them.
    const short = Array.from({ length: 6000 }, (_, i) => String(i % 10));
    const report = [...short, 'L'.repeat(400_000), ...short].join('\n');
    const response = { ...LARGE.Agent, content: [{ type: 'text', text: report }] };
    const shown = shownOf('Agent', response, await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, input('Agent', response))));
    expect(shown).toBeDefined();
    expect(Buffer.byteLength(shown ?? '')).toBeLessThanOrEqual(24576);
    expect(readFileSync(locatorOf(shown ?? ''), 'utf8')).toBe(report);
  });

  it("the rendering of any tool's replacement is never over the cap, whatever the mix of line lengths", async () => {
    const dir = home();
    const responseOf = (tool: string, text: string, query: string): Record<string, unknown> => {
      switch (tool) {
        case 'Grep':
          return { mode: 'content', numFiles: 0, filenames: [], content: text };
        case 'Glob':
          return { filenames: text.split('\n'), durationMs: 1, numFiles: 1, truncated: false };
        case 'WebFetch':
          return { ...LARGE.WebFetch, result: text };
        case 'WebSearch':
          return { query, results: [text], durationSeconds: 1 };
        default:
          return { ...LARGE.Agent, content: [{ type: 'text', text }] };
      }
    };
    const line = fc.oneof(fc.nat({ max: 3 }), fc.integer({ min: 100, max: 6000 })).map((n) => 'y'.repeat(n));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...Object.keys(LARGE)),
        fc.array(line, { minLength: 20, maxLength: 4000 }),
        fc.integer({ min: 2048, max: 40_000 }),
        fc.string({ maxLength: 2000 }),
        async (tool, lines_, cap, query) => {
          const response = responseOf(tool, lines_.join('\n'), query);
          const shape = CLAUDE_CODE_TOOL_SHAPES[tool] as ClaudeCodeToolShape;
          const limit = Math.min(cap, shape.maxBytes);
          const shown = shownOf(tool, response, await answerHook(['claude-code', '--max-inline-bytes', String(cap)], io(dir, input(tool, response))));
          if (shown === undefined) expect(Buffer.byteLength(shape.whole(response) ?? '')).toBeLessThanOrEqual(limit);
          else expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it('WebSearch: a query longer than the cap is cut in the replacement, and the output is still spilled within the cap', async () => {
    const dir = home();
    const response = { query: 'q'.repeat(30_000), results: [lines(2000, 'note').join('\n')], durationSeconds: 1.5 };
    const shown = shownOf('WebSearch', response, await answerHook(['claude-code', '--max-inline-bytes', '24576'], io(dir, input('WebSearch', response))));
    expect(shown).toBeDefined();
    expect(Buffer.byteLength(shown ?? '')).toBeLessThanOrEqual(24576);
    expect(shown).toContain('note 2000: ');
    expect(readFileSync(locatorOf(shown ?? ''), 'utf8')).toBe(CLAUDE_CODE_TOOL_SHAPES.WebSearch?.whole(response));
  });

  it('spills a large output that quotes a spill notice in its middle (a Grep over files that hold one)', async () => {
    const dir = home();
    const notice = '(Omitted 9999999 bytes. Full formatted result stored at: /elsewhere/s/out.txt. Use read with offset/limit, or grep this path to search within it.)';
    const content = [...lines(1000, 'src/a.ts:1'), `docs/notes.md:3:${notice}`, ...lines(1000, 'src/b.ts:1')].join('\n');
    const response = { mode: 'content', numFiles: 0, filenames: [], content };
    const shown = shownOf('Grep', response, await answerHook(['claude-code'], io(dir, input('Grep', response))));
    expect(readFileSync(locatorOf(shown?.slice(shown.lastIndexOf('(Omitted ')) ?? ''), 'utf8')).toBe(content);
    // Quoted in Bash output too; a preview that ends with its notice (and a line break) is left alone.
    expect(await answerHook(['claude-code'], io(dir, claudeInput(`${bigLog(1000)}${notice}\n${bigLog(1000)}`)))).not.toBe('');
    expect(await answerHook(['claude-code'], io(dir, claudeInput(`${bigLog(2000)}\n${notice}\n`)))).toBe('');
  });

  it('leaves alone small outputs, outputs that carry a spill notice, a sub-agent in the background, and Read', async () => {
    const dir = home();
    const notice = `${lines(2000, 'x').join('\n')}\n(Omitted 9999999 bytes. Full formatted result stored at: /elsewhere/s/out.txt. Use read with offset/limit, or grep this path to search within it.)`;
    const cases: [string, Record<string, unknown>][] = [
      ['Grep', { mode: 'content', numFiles: 0, filenames: [], content: 'a.ts:1:x' }],
      ['Glob', { filenames: ['a.ts'], durationMs: 1, numFiles: 1, truncated: false }],
      ['WebFetch', { ...LARGE.WebFetch, result: notice }],
      ['Agent', { status: 'async_launched', agentId: 'a1', description: 'd', prompt: 'p', outputFile: '/tmp/a1.output' }],
      ['Read', { type: 'text', file: { filePath: '/x', content: notice } }],
    ];
    for (const [tool, response] of cases) expect(await answerHook(['claude-code'], io(dir, input(tool, response))), tool).toBe('');
  });
});

describe('spillway hook gemini (AfterTool)', () => {
  it('replaces a large result through decision "deny", within the cap, and says it is not an error', async () => {
    const dir = home();
    const whole = bigLog(60_000);
    const input = JSON.stringify({ session_id: 'g-1', hook_event_name: 'AfterTool', tool_name: 'run_shell_command', tool_input: { command: 'make' }, tool_response: { llmContent: whole, returnDisplay: whole } });
    const out = await answerHook(['gemini', '--max-inline-bytes', '32768'], io(dir, input));
    const answer = JSON.parse(out) as { decision: string; reason: string };
    expect(answer.decision).toBe('deny');
    expect(answer.reason.startsWith(GEMINI_PREFIX)).toBe(true);
    expect(Buffer.byteLength(answer.reason)).toBeLessThanOrEqual(32768);
    expect(answer.reason).toMatch(/run_shell_command: .*spillway.* read <path>/);
    expect(readFileSync(locatorOf(answer.reason), 'utf8')).toBe(whole);
  });

  it('says a failing command failed, rather than "not an error", when the output ends with a non-zero exit code', async () => {
    const dir = home();
    const answerFor = async (ending: string): Promise<string> => {
      const whole = `Output: ${bigLog(60_000)}error: the build broke\n${ending}`;
      const input = JSON.stringify({ session_id: 'g-3', tool_name: 'run_shell_command', tool_input: { command: 'make' }, tool_response: { llmContent: whole } });
      return (JSON.parse(await answerHook(['gemini', '--max-inline-bytes', '32768'], io(dir, input))) as { reason: string }).reason;
    };
    const failed = await answerFor('Exit Code: 3\nProcess Group PGID: 4242\n');
    expect(failed.startsWith(GEMINI_FAILED_PREFIX)).toBe(true);
    expect(Buffer.byteLength(failed)).toBeLessThanOrEqual(32768);
    expect(failed).toContain('Exit Code: 3');
    expect((await answerFor('Signal: SIGKILL\n')).startsWith(GEMINI_FAILED_PREFIX)).toBe(true);
    expect((await answerFor('Exit Code: 0\n')).startsWith(GEMINI_PREFIX)).toBe(true);
  });

  it('joins text parts, and leaves a result with a non-text part alone', async () => {
    const dir = home();
    const parts = [{ text: bigLog(3000) }, { text: 'tail\n' }];
    const base = { session_id: 'g-2', tool_name: 'web_fetch', tool_input: {} };
    const out = await answerHook(['gemini', '--max-inline-bytes', '4096'], io(dir, JSON.stringify({ ...base, tool_response: { llmContent: parts } })));
    expect(readFileSync(locatorOf((JSON.parse(out) as { reason: string }).reason), 'utf8')).toBe(`${bigLog(3000)}tail\n`);
    const image = [{ text: bigLog(3000) }, { inlineData: { mimeType: 'image/png', data: 'AAAA' } }];
    expect(await answerHook(['gemini', '--max-inline-bytes', '4096'], io(dir, JSON.stringify({ ...base, tool_response: { llmContent: image } })))).toBe('');
  });

  describe("as read_file's own result, through the project's temp directory", () => {
    /** A Gemini CLI home with the project's temp directory and a transcript path in it. */
    const geminiTemp = (dir: string): { temp: string; transcript: string } => {
      const temp = join(dir, '.gemini', 'tmp', 'project');
      mkdirSync(join(temp, 'chats'), { recursive: true, mode: 0o700 });
      return { temp, transcript: join(temp, 'chats', 'session-1.jsonl') };
    };
    const shellInput = (transcript: string | undefined, whole: string): string =>
      JSON.stringify({ session_id: 'g-4', ...(transcript === undefined ? {} : { transcript_path: transcript }), tool_name: 'run_shell_command', tool_input: { command: 'make' }, tool_response: { llmContent: whole } });

    it('writes the preview, without the error prefix, into a private folder there, and asks Gemini CLI to read it', async () => {
      const dir = home();
      const { temp, transcript } = geminiTemp(dir);
      const whole = bigLog(60_000);
      const answer = JSON.parse(await answerHook(['gemini', '--max-inline-bytes', '32768'], io(dir, shellInput(transcript, whole)))) as { hookSpecificOutput: { hookEventName: string; tailToolCallRequest: { name: string; args: { file_path: string; start_line: number; end_line: number } } } };
      expect(answer.hookSpecificOutput.hookEventName).toBe('AfterTool');
      const tail = answer.hookSpecificOutput.tailToolCallRequest;
      expect(tail.name).toBe('read_file');
      expect(dirname(tail.args.file_path)).toBe(join(temp, DELIVERY_FOLDER));
      expect(statSync(dirname(tail.args.file_path)).mode & 0o777).toBe(0o700);
      expect(statSync(tail.args.file_path).mode & 0o777).toBe(0o600);
      const preview = readFileSync(tail.args.file_path, 'utf8');
      expect(preview.startsWith(GEMINI_PREFIX)).toBe(false);
      expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(32768);
      expect(readFileSync(locatorOf(preview), 'utf8')).toBe(whole);
      // Every line, asked for as a range: without one read_file stops at 2,000 lines.
      expect(tail.args.start_line).toBe(1);
      expect(tail.args.end_line).toBe(preview.replace(/\n$/, '').split('\n').length);
    });

    it('falls back to deny for a preview read_file would cut, a transcript of another shape, and a temp directory others may write into', async () => {
      const dir = home();
      const { temp, transcript } = geminiTemp(dir);
      const decision = async (input: string, cap = '32768'): Promise<unknown> => (JSON.parse(await answerHook(['gemini', '--max-inline-bytes', cap], io(dir, input))) as { decision?: unknown }).decision;
      // One 60,000-character line: its preview holds a line longer than read_file's 2,000.
      expect(await decision(shellInput(transcript, `${'x'.repeat(60_000)}\n`))).toBe('deny');
      // Colour codes or a NUL at the start: read_file would show "binary file" instead of the preview.
      expect(await decision(shellInput(transcript, '\u001b[31mred\u001b[0m\n'.repeat(4000)))).toBe('deny');
      expect(await decision(shellInput(transcript, `\u0000${bigLog(60_000)}`))).toBe('deny');
      expect(await decision(shellInput(join(dir, 'elsewhere', 'session-1.jsonl'), bigLog(60_000)))).toBe('deny');
      expect(await decision(shellInput(undefined, bigLog(60_000)))).toBe('deny');
      chmodSync(temp, 0o777);
      expect(await decision(shellInput(transcript, bigLog(60_000)))).toBe('deny');
      expect(existsSync(join(temp, DELIVERY_FOLDER))).toBe(false);
    });

    it("under umask 002: a temp directory writable by the user's own private group still gets the preview as read_file's result", async () => {
      const dir = home();
      const { temp, transcript } = geminiTemp(dir);
      // What Gemini CLI makes under umask 002: group-writable folders of the user's primary group.
      for (const d of [temp, dirname(temp), dirname(dirname(temp))]) chmodSync(d, 0o775);
      const answer = JSON.parse(await answerHook(['gemini'], io(dir, shellInput(transcript, bigLog(60_000))))) as { decision?: string; hookSpecificOutput?: { tailToolCallRequest?: { args: { file_path: string } } } };
      if (!primaryGroupIsPrivate()) {
        // A shared primary group (nobody's nogroup): others could write there, so the hook denies.
        expect(answer.decision).toBe('deny');
        expect(existsSync(join(temp, DELIVERY_FOLDER))).toBe(false);
        return;
      }
      const file = answer.hookSpecificOutput?.tailToolCallRequest?.args.file_path ?? '';
      expect(dirname(file)).toBe(join(temp, DELIVERY_FOLDER));
      expect(statSync(dirname(file)).mode & 0o777).toBe(0o700);
    });

    it("falls back to deny when a folder on the way could be changed by someone else, or spillway's folder is not a private real folder", async () => {
      const dir = home();
      const { temp, transcript } = geminiTemp(dir);
      const decision = async (): Promise<unknown> => (JSON.parse(await answerHook(['gemini'], io(dir, shellInput(transcript, bigLog(60_000))))) as { decision?: unknown }).decision;
      expect(await decision()).toBeUndefined();
      // A folder above the temp directory that anyone may write into: spillway's folder could be renamed away.
      chmodSync(join(dir, '.gemini'), 0o777);
      expect(await decision()).toBe('deny');
      chmodSync(join(dir, '.gemini'), 0o700);
      // Group-writable, but not by a group of the user's own.
      if (process.getuid?.() === 0) {
        chownSync(temp, 0, 65534);
        chmodSync(temp, 0o770);
        expect(await decision()).toBe('deny');
        chownSync(temp, 0, 0);
        chmodSync(temp, 0o700);
      }
      // spillway's folder open to others, or a link to a private folder elsewhere.
      const folder = join(temp, DELIVERY_FOLDER);
      chmodSync(folder, 0o755);
      expect(await decision()).toBe('deny');
      rmSync(folder, { recursive: true });
      mkdirSync(join(dir, 'elsewhere'), { mode: 0o700 });
      symlinkSync(join(dir, 'elsewhere'), folder);
      expect(await decision()).toBe('deny');
      expect(readdirSync(join(dir, 'elsewhere'))).toEqual([]);
      rmSync(folder);
      expect(await decision()).toBeUndefined();
    });

    it('removes preview files Gemini CLI read long ago, and nothing else', async () => {
      const dir = home();
      const { temp, transcript } = geminiTemp(dir);
      const folder = join(temp, DELIVERY_FOLDER);
      mkdirSync(folder, { mode: 0o700 });
      const stale = join(folder, 'preview-00000000-0000-4000-8000-000000000000.txt');
      const other = join(folder, 'notes.txt');
      writeFileSync(stale, 'old');
      writeFileSync(other, 'mine');
      const old = new Date(Date.now() - 60 * 60_000);
      utimesSync(stale, old, old);
      utimesSync(other, old, old);
      await answerHook(['gemini'], io(dir, shellInput(transcript, bigLog(60_000))));
      expect(existsSync(stale)).toBe(false);
      expect(existsSync(other)).toBe(true);
      expect(readdirSync(folder).filter((n) => n.startsWith('preview-'))).toHaveLength(1);
    });
  });

  it("leaves alone a preview followed by the shell's own last lines, and spills an output that quotes a notice before them", async () => {
    const dir = home();
    const notice = '(Omitted 9999999 bytes. Full formatted result stored at: /elsewhere/s/out.txt. Use spillway read with --offset/--limit, spillway grep to search within it, or spillway cat to copy it whole.)';
    const shell = (llmContent: string): string => JSON.stringify({ session_id: 'g-5', tool_name: 'run_shell_command', tool_input: { command: 'make' }, tool_response: { llmContent } });
    expect(await answerHook(['gemini'], io(dir, shell(`Output: ${bigLog(3000)}\n${notice}\nExit Code: 2\nProcess Group PGID: 4242`)))).toBe('');
    const quoted = (JSON.parse(await answerHook(['gemini'], io(dir, shell(`Output: ${bigLog(1500)}${notice}\n${bigLog(1500)}Process Group PGID: 4242`)))) as { reason: string }).reason;
    expect(readFileSync(locatorOf(quoted.slice(quoted.lastIndexOf('(Omitted '))), 'utf8')).toContain(notice);
  });

  it('prints nothing for a small result', async () => {
    const dir = home();
    const input = JSON.stringify({ tool_name: 'run_shell_command', tool_response: { llmContent: 'ok', returnDisplay: 'ok' } });
    expect(await answerHook(['gemini'], io(dir, input))).toBe('');
  });
});

describe('the hook never breaks the tool call', () => {
  it.each([
    ['malformed JSON', ['claude-code'], '{"tool_response": '],
    ['an unknown host', ['codex'], claudeInput(bigLog(5000))],
    ['a bad option', ['claude-code', '--frobnicate'], claudeInput(bigLog(5000))],
    ['an input of another shape', ['claude-code'], JSON.stringify({ tool_response: 'a string' })],
    ['an image', ['claude-code'], claudeInput(bigLog(5000), { isImage: true })],
  ])('%s: no output', async (_name, args, stdin) => {
    expect(await answerHook(args, io(home(), stdin))).toBe('');
  });

  it('an unusable root and an unusable fallback root: no output, the host keeps its result', async () => {
    const dir = home();
    writeFileSync(join(dir, 'not-a-dir'), '');
    writeFileSync(join(dir, 'state'), 'a file where the state directory would be\n');
    const out = await answerHook(['claude-code', '--max-inline-bytes', '1024', '--root', join(dir, 'not-a-dir')], io(dir, claudeInput(bigLog(5000))));
    expect(out).toBe('');
  });

  describe('as a process', () => {
    beforeAll(() => {
      ensureBuilt();
    });
    const script = join(PACKAGE_DIR, 'bin', 'spillway.js');

    function run(args: string[], env: NodeJS.ProcessEnv, stdin: string | null): Promise<{ code: number | null; out: string }> {
      return new Promise((resolve, reject) => {
        const child = spawn(process.execPath, [script, 'hook', ...args], { env: { PATH: process.env.PATH, ...env }, stdio: ['pipe', 'pipe', 'ignore'] });
        let out = '';
        child.stdout.on('data', (b: Buffer) => (out += b.toString()));
        child.on('error', reject);
        child.on('close', (code) => {
          resolve({ code, out });
        });
        // null: leave stdin open, as a host that never finishes writing would.
        if (stdin !== null) child.stdin.end(stdin);
      });
    }

    it('exits 0 with no output on garbage, and on a timeout', async () => {
      const dir = home();
      const env = { HOME: dir, XDG_STATE_HOME: join(dir, 'state') };
      expect(await run(['claude-code'], env, 'not json')).toEqual({ code: 0, out: '' });
      expect(await run(['claude-code'], { ...env, SPILLWAY_HOOK_TIMEOUT_MS: '300' }, null)).toEqual({ code: 0, out: '' });
    });

    it('answers a large output and records usage events without content', async () => {
      const dir = home();
      const usage = join(dir, 'usage');
      const env = { HOME: dir, XDG_STATE_HOME: join(dir, 'state'), SPILLWAY_USAGE_DIR: usage, SPILLWAY_AUTO_GC: 'off' };
      const big = await run(['claude-code', '--max-inline-bytes', '2048'], env, claudeInput(bigLog(3000)));
      expect(big.code).toBe(0);
      expect(big.out).toContain('"hookEventName":"PostToolUse"');
      expect((await run(['claude-code'], env, claudeInput('small\n'))).out).toBe('');
      const events = createUsageLog({ dir: usage, env: {} }).read();
      expect(events.map((e) => e.kind)).toEqual(['spilled', 'passed']);
      expect(events[0]).toMatchObject({ surface: 'hook', host: 'claude-code', tool: 'Bash' });
      expect(readFileSync(join(usage, 'events.jsonl'), 'utf8')).not.toContain('cc-session-1');
      expect(await run(['claude-code'], { ...env, SPILLWAY_USAGE: 'off' }, claudeInput('small\n'))).toEqual({ code: 0, out: '' });
      expect(createUsageLog({ dir: usage, env: {} }).read()).toHaveLength(2);
    });
  });
});
