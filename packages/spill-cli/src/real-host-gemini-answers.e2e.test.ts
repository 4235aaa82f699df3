import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_READ_FILE_CUTS, HOSTS_CACHE, realHostSkipReason, runHostSession } from './test-real-hosts.js';

// Which AfterTool answer of Gemini CLI 0.61.0 can put a preview before the model as a plain
// tool result, without asking the person anything they would not have been asked. Each
// scripted shell call gets a different answer from a hook the test writes; what the fake
// model received shows what each answer did. spillway's hook answers a tail call to
// read_file on a file in the project's temp directory, else `decision: "deny"` (see
// GEMINI_FILE_DELIVERY in hook-contracts.ts): this test is the evidence for that choice.

const skip = realHostSkipReason();
const GEMINI = join(HOSTS_CACHE, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');

/** The hook: answers each shell call by the case its command names. */
const HOOK = `
const fs = require('node:fs');
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const command = String(input.tool_input?.command ?? '');
const dir = process.env.ANSWERS_DIR;
const answer = (value) => process.stdout.write(JSON.stringify(value));
fs.appendFileSync(dir + '/inputs.jsonl', JSON.stringify(input) + '\\n');
if (command.includes('CASE-TAIL-TEMP')) {
  const temp = require('node:path').dirname(require('node:path').dirname(input.transcript_path));
  fs.writeFileSync(temp + '/preview.txt', 'PREVIEW-VIA-TEMP-DIR\\n');
  answer({ hookSpecificOutput: { hookEventName: 'AfterTool', tailToolCallRequest: { name: 'read_file', args: { file_path: temp + '/preview.txt' } } } });
} else if (command.includes('CASE-TAIL-READ')) {
  answer({ hookSpecificOutput: { hookEventName: 'AfterTool', tailToolCallRequest: { name: 'read_file', args: { file_path: dir + '/project/preview.txt' } } } });
} else if (command.includes('CASE-TAIL-SHELL')) {
  answer({ hookSpecificOutput: { hookEventName: 'AfterTool', tailToolCallRequest: { name: 'run_shell_command', args: { command: 'cat ' + dir + '/outside/preview.txt' } } } });
} else if (command.includes('CASE-EXIT-2')) {
  process.stderr.write('PREVIEW-VIA-EXIT-2');
  process.exit(2);
} else if (command.includes('CASE-CONTEXT')) {
  answer({ hookSpecificOutput: { hookEventName: 'AfterTool', additionalContext: 'PREVIEW-VIA-CONTEXT' } });
} else if (command.includes('CASE-DENY')) {
  answer({ decision: 'deny', reason: 'PREVIEW-VIA-DENY' });
}
`;

describe.skipIf(skip !== undefined)(`Gemini CLI 0.61.0, offline: what each AfterTool answer gives the model${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'real-gemini-answers-'));
    mkdirSync(join(dir, '.gemini'));
    mkdirSync(join(dir, 'project'));
    mkdirSync(join(dir, 'outside'));
    writeFileSync(join(dir, 'project', 'preview.txt'), 'PREVIEW-VIA-READ-FILE\n');
    writeFileSync(join(dir, 'outside', 'preview.txt'), 'PREVIEW-VIA-SHELL\n');
    writeFileSync(join(dir, 'hook.cjs'), HOOK);
    const settings = {
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      telemetry: { enabled: false },
      privacy: { usageStatisticsEnabled: false },
      hooks: { AfterTool: [{ matcher: 'run_shell_command', hooks: [{ type: 'command', command: `${process.execPath} ${join(dir, 'hook.cjs')}` }] }] },
    };
    writeFileSync(join(dir, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('deny replaces the result as an error; a tail call is a new call, approved like one, and read_file gives a plain result; exit 2 is an error too; additionalContext keeps the output', () => {
    const record = runHostSession({
      api: 'gemini',
      dir,
      cwd: join(dir, 'project'),
      // The default approval mode, with `echo` allowed: what a person who allowed one command has.
      command: [process.execPath, GEMINI, '-p', 'Run the scripted tools.', '--output-format', 'json', '--approval-mode', 'default', '--allowed-tools', 'run_shell_command(echo)', '-m', 'gemini-2.5-pro'],
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: dir,
        GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:{PORT}',
        GEMINI_API_KEY: 'fake-gemini-key-for-tests',
        NO_BROWSER: '1',
        GEMINI_CLI_TRUST_WORKSPACE: 'true',
        ANSWERS_DIR: dir,
      },
      steps: [
        { name: 'run_shell_command', args: { command: 'echo CASE-DENY the-original-output' } },
        { name: 'run_shell_command', args: { command: 'echo CASE-TAIL-READ the-original-output' } },
        { name: 'run_shell_command', args: { command: 'echo CASE-TAIL-SHELL the-original-output' } },
        { name: 'run_shell_command', args: { command: 'echo CASE-EXIT-2 the-original-output' } },
        { name: 'run_shell_command', args: { command: 'echo CASE-CONTEXT the-original-output' } },
        { name: 'run_shell_command', args: { command: 'echo CASE-TAIL-TEMP the-original-output' } },
      ],
    });
    expect(record.results, `${record.stderr}\n${record.stdout}`).toHaveLength(6);
    const [deny, tailRead, tailShell, exit2, context, tailTemp] = record.results as [string, string, string, string, string, string];
    // The hook's input names the transcript, in the project's temp directory.
    const firstInput = JSON.parse(readFileSync(join(dir, 'inputs.jsonl'), 'utf8').split('\n')[0] ?? '') as { transcript_path?: string };
    expect(firstInput.transcript_path).toMatch(/\/\.gemini\/tmp\/[^/]+\/chats\/session-[^/]+\.jsonl$/);
    for (const [name, text] of Object.entries({ deny, tailRead, tailShell, exit2, context, tailTemp })) console.log(`gemini AfterTool ${name}: ${text.slice(0, 400)}`);

    // deny: the reason replaces the result, framed as an error.
    expect(JSON.parse(deny)).toEqual({ error: 'PREVIEW-VIA-DENY' });
    // A tail call to read_file (a read-only tool) runs without asking, and its result is a
    // plain result, in the workspace and in the project's temp directory, where the
    // transcript is (spillway writes only there).
    expect(tailRead).toContain('PREVIEW-VIA-READ-FILE');
    expect(tailRead).not.toContain('"error"');
    expect(tailRead).not.toContain('the-original-output');
    // A tail call to the shell is judged as a call of its own: `cat` is not among the allowed
    // commands, so it is not run without the person, and the model gets no preview.
    expect(tailShell).not.toContain('PREVIEW-VIA-SHELL');
    expect(JSON.parse(tailShell)).toEqual({ error: 'Tool execution denied by policy.' });
    // Exit code 2: stderr replaces the result, as an error.
    expect(exit2).toContain('PREVIEW-VIA-EXIT-2');
    expect(exit2).toContain('"error"');
    expect(JSON.parse(tailTemp)).toEqual({ output: 'PREVIEW-VIA-TEMP-DIR\n' });
    for (const cut of GEMINI_READ_FILE_CUTS) {
      expect(tailRead).not.toContain(cut);
      expect(tailTemp).not.toContain(cut);
    }
    // additionalContext: appended, and the original output stays in the context.
    expect(context).toContain('PREVIEW-VIA-CONTEXT');
    expect(context).toContain('the-original-output');
  }, 300_000);
});
