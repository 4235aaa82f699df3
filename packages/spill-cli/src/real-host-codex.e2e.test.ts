import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND, ensureBuilt } from './test-bin.js';
import { CODEX_CONFIG } from './test-real-host-cases.js';
import { HOSTS_CACHE, realHostSkipReason, runHostSession } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

const skip = realHostSkipReason();
const CODEX = join(HOSTS_CACHE, 'node_modules', '@openai', 'codex', 'bin', 'codex.js');

// No Codex hook can keep a shell command's whole output (see below): setup asks the model, in a
// block of AGENTS.md, to run long commands through spillway run. Under Codex's
// workspace-write sandbox, with a home the sandbox does not let commands write to (so the
// default root cannot be made there), the output goes to spillway-<uid> in /tmp.
describe.skipIf(skip !== undefined)(`Codex 0.169.0, offline: the AGENTS.md block and a long failing command${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let home: string;
  // The error in the middle, where Codex's own cut drops it.
  const ERROR = 'error: the build broke at step 9';
  const LONG = `sh -c 'seq 1 150000; echo "${ERROR}"; seq 150001 300000; exit 3'`;
  beforeAll(() => {
    ensureBuilt();
    // Outside /tmp: the workspace-write sandbox lets commands write to the project and /tmp only.
    home = mkdtempSync('/var/tmp/real-codex-home-');
    mkdirSync(join(home, '.codex'));
    mkdirSync(join(home, 'project'));
    writeFileSync(join(home, '.codex', 'config.toml'), CODEX_CONFIG.replace(/\n# the big report server[\s\S]*$/, '\n'));
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it('the block reaches the model; a command run as it says comes back as the preview, with the error line and the exit code, and the whole is stored', async () => {
    const t = testIO({ homedir: home, cwd: join(home, 'project'), env: {} });
    expect(await main(['setup', 'codex', '--config-dir', join(home, '.codex')], t.io)).toBe(0);
    const agents = readFileSync(join(home, '.codex', 'AGENTS.md'), 'utf8');
    // The command line exactly as the block gives it, with the command filled in.
    const line = /^ {4}(.* run --max-inline-bytes 8192 -- )<command> \[<args>\.\.\.\]$/m.exec(agents)?.[1];
    expect(line).toBeDefined();
    expect(line).toContain(COMMAND.split('/').slice(-2).join('/'));
    const record = runHostSession({
      api: 'openai-responses',
      dir: home,
      cwd: join(home, 'project'),
      command: [process.execPath, CODEX, 'exec', '-s', 'workspace-write', '--skip-git-repo-check', '--json', '-c', 'model_providers.fake.base_url="http://127.0.0.1:{PORT}/v1"', 'Run the scripted tools.'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: '/tmp', CODEX_HOME: join(home, '.codex'), FAKE_OPENAI_KEY: 'sk-fake-key-for-tests' },
      watch: ['## Long command output', `${line ?? ''}<command>`],
      steps: [
        { name: 'exec_command', args: { cmd: LONG } },
        { name: 'exec_command', args: { cmd: `${line ?? ''}${LONG}` } },
        { name: 'exec_command', args: { cmd: `${(line ?? '').replace(/ run --max-inline-bytes 8192 -- $/, '')} grep {LOCATOR} 'build broke'` } },
      ],
    });
    expect(record.results, `${record.stderr}\n${record.stdout}`).toHaveLength(3);
    expect(record.seen).toEqual(['## Long command output', `${line ?? ''}<command>`]);
    const [bare, through, grep] = record.results as [string, string, string];
    console.log(`codex, a 1.9 MB failing output: ${String(Buffer.byteLength(bare))} bytes reached the model without spillway (error line ${bare.includes(ERROR) ? 'kept' : 'lost'}), ${String(Buffer.byteLength(through))} through the block`);
    expect(bare).not.toMatch(/stored at: /);
    expect(bare).not.toContain(ERROR);
    expect(through).toMatch(/Process exited with code 3/);
    expect(through).toContain(ERROR);
    expect(through).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: \/tmp\/spillway-\d+\//);
    expect(through).not.toMatch(/truncated output/);
    expect(Buffer.byteLength(through)).toBeLessThanOrEqual(8192 + 600);
    const stored = /stored at: (\S+?)\. /.exec(through)?.[1] ?? '';
    expect(existsSync(stored)).toBe(true);
    const numbers = (from: number, to: number): string => Array.from({ length: to - from + 1 }, (_, i) => `${String(from + i)}\n`).join('');
    expect(readFileSync(stored, 'utf8')).toBe(`${numbers(1, 150000)}${ERROR}\n${numbers(150001, 300000)}`);
    expect(grep).toContain(ERROR);
    rmSync(stored);
    expect(await main(['setup', 'codex', '--config-dir', join(home, '.codex'), '--undo'], t.io)).toBe(0);
    expect(existsSync(join(home, '.codex', 'AGENTS.md'))).toBe(false);
  }, 300_000);
});

// Why setup writes a block and no hook: what Codex 0.169.0's own hooks do with a shell
// command, checked in a session. A hook rewrites or replaces only when the command names it.
const HOOK_SCRIPT = `import { appendFileSync, readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
const command = input.tool_input?.command ?? '';
appendFileSync(process.argv[3], JSON.stringify(input) + '\\n');
let answer = {};
if (process.argv[2] === 'pre' && command.includes('REWRITE-WITHOUT-ALLOW')) {
  answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', updatedInput: { command: 'echo the rewrite ran' } } };
}
if (process.argv[2] === 'pre' && command.includes('REWRITE-WITH-ALLOW')) {
  // What a wrapper would do: run the whole command through another program.
  const wrapped = 'sh -c ' + "'" + command.replaceAll("'", "'\\\\''") + "'";
  answer = { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'env ' + wrapped } } };
}
if (process.argv[2] === 'post' && command.includes('REPLACE-ME')) answer = { decision: 'block', reason: 'the hook replaced this output' };
process.stdout.write(JSON.stringify(answer));
`;

describe.skipIf(skip !== undefined)(`Codex 0.169.0, offline: its hooks cannot carry shell output to spillway without weakening its rules${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let home: string;
  beforeAll(() => {
    home = mkdtempSync('/var/tmp/real-codex-hooks-');
    const codex = join(home, '.codex');
    mkdirSync(join(codex, 'rules'), { recursive: true });
    mkdirSync(join(home, 'project'));
    writeFileSync(join(codex, 'config.toml'), CODEX_CONFIG.replace(/\n# the big report server[\s\S]*$/, '\n'));
    // The person's rules: `touch` is never run, `mkdir` only once they approve it.
    writeFileSync(join(codex, 'rules', 'default.rules'), 'prefix_rule(pattern = ["touch"], decision = "forbidden")\nprefix_rule(pattern = ["mkdir"], decision = "prompt")\n');
    const script = join(home, 'hook.mjs');
    writeFileSync(script, HOOK_SCRIPT);
    const hook = (event: string): unknown => [{ matcher: '*', hooks: [{ type: 'command', command: `${process.execPath} ${script} ${event} ${join(home, `${event}.jsonl`)}` }] }];
    writeFileSync(join(codex, 'hooks.json'), JSON.stringify({ hooks: { PreToolUse: hook('pre'), PostToolUse: hook('post') } }));
  });
  afterAll(() => {
    rmSync(home, { recursive: true, force: true });
  });

  it('a rewrite without allow is dropped; with allow a wrapped command escapes the rules that forbid it or ask for approval (the sandbox still holds); PostToolUse replaces output but sees only what Codex kept', () => {
    const outside = join(home, 'outside-the-sandbox');
    const record = runHostSession({
      api: 'openai-responses',
      dir: home,
      cwd: join(home, 'project'),
      // Hooks run only once the person has trusted them; the flag stands in for that review.
      command: [process.execPath, CODEX, 'exec', '-s', 'workspace-write', '--dangerously-bypass-hook-trust', '--skip-git-repo-check', '--json', '-c', 'model_providers.fake.base_url="http://127.0.0.1:{PORT}/v1"', 'Run the scripted tools.'],
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, TMPDIR: '/tmp', CODEX_HOME: join(home, '.codex'), FAKE_OPENAI_KEY: 'sk-fake-key-for-tests' },
      steps: [
        { name: 'exec_command', args: { cmd: 'echo REWRITE-WITHOUT-ALLOW' } },
        { name: 'exec_command', args: { cmd: 'touch bare-file' } },
        { name: 'exec_command', args: { cmd: 'mkdir bare-dir' } },
        { name: 'exec_command', args: { cmd: `touch wrapped-file; mkdir wrapped-dir; touch ${outside}; echo REWRITE-WITH-ALLOW` } },
        { name: 'exec_command', args: { cmd: "sh -c 'seq 1 300000; echo REPLACE-ME; exit 3'" } },
      ],
    });
    expect(record.results, `${record.stderr}\n${record.stdout}`).toHaveLength(5);
    const [withoutAllow, bare, bareAsked, withAllow, replaced] = record.results as [string, string, string, string, string];
    // Without allow the original command runs.
    expect(withoutAllow).toContain('REWRITE-WITHOUT-ALLOW');
    expect(withoutAllow).not.toContain('the rewrite ran');
    // The rules hold for the command as the model wrote it (codex exec has no one to ask)...
    expect(bare).toMatch(/policy forbids commands starting with `touch`/);
    expect(existsSync(join(home, 'project', 'bare-file'))).toBe(false);
    expect(bareAsked).toMatch(/approval required by policy/);
    expect(existsSync(join(home, 'project', 'bare-dir'))).toBe(false);
    // ...and not once a hook wraps it: Codex judges the rewritten command.
    expect(withAllow).toContain('REWRITE-WITH-ALLOW');
    expect(existsSync(join(home, 'project', 'wrapped-file'))).toBe(true);
    expect(existsSync(join(home, 'project', 'wrapped-dir'))).toBe(true);
    expect(withAllow).toMatch(/Read-only file system/);
    expect(existsSync(outside)).toBe(false);
    // PostToolUse may replace a shell output, but what it is given is Codex's cut.
    expect(replaced).toBe('the hook replaced this output');
    const post = readFileSync(join(home, 'post.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { tool_input: { command: string }; tool_response: unknown });
    const seen = post.find((p) => p.tool_input.command.includes('REPLACE-ME'))?.tool_response;
    expect(typeof seen).toBe('string');
    console.log(`codex PostToolUse: a 1.9 MB output reached the hook as ${String(Buffer.byteLength(String(seen)))} bytes`);
    expect(String(seen)).toMatch(/^Warning: truncated output \(original token count: \d+\)\n\.\.\. \d+ bytes omitted \.\.\./);
    expect(String(seen)).not.toContain('\n150000\n');
    expect(String(seen)).not.toMatch(/code 3/);
    expect(Buffer.byteLength(String(seen))).toBeLessThan(16 * 1024);
  }, 300_000);
});
