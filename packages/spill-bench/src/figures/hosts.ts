import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import { assertSucceeded, runProcess } from '../process.js';
import { privateDir } from './common.js';
import { cliBin } from './cli.js';

/** A Claude Code PostToolUse input for a small Bash output, as the host sends it. */
const SMALL_CALL = JSON.stringify({
  session_id: 'bench-session',
  transcript_path: '/tmp/bench.jsonl',
  cwd: '/tmp',
  hook_event_name: 'PostToolUse',
  tool_name: 'Bash',
  tool_use_id: 'toolu_bench',
  tool_input: { command: 'git status', description: 'Show the working tree status' },
  tool_response: { stdout: 'On branch main\nnothing to commit, working tree clean\n', stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
});

function specs(): FigureSpec[] {
  return [
    {
      id: 'hosts.hook.passthrough',
      title: 'spillway hook claude-code, small output (pass-through): wall time per call',
      baseline: 'node -e 0 (same stdin, through sh)',
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
  ];
}

/**
 * The output hook runs once per tool call of the host, so its start-up is its cost. Both
 * sides are started by `sh -c` with the hook input on stdin; the hook's usage event is
 * written (the default), its answer is empty.
 */
export const hostsGroup: FigureGroup = {
  name: 'hosts',
  specs,
  async run(ctx) {
    const script = path.join(path.dirname(cliBin()), '..', 'bin', 'spillway.js');
    if (!existsSync(path.join(path.dirname(cliBin()), 'hook-main.js'))) throw new Error('The CLI is not built; run pnpm build first.');
    const dir = await privateDir(ctx.scratch, 'hook');
    const input = path.join(dir, 'input.json');
    await writeFile(input, SMALL_CALL);
    const env = { NODE: process.execPath, SCRIPT: script, INPUT: input, HOME: dir, XDG_STATE_HOME: path.join(dir, 'state') };
    const rounds = ctx.profile.cli.rounds * 10;
    const samples = await runInterleaved(
      rounds,
      {
        spillway: async () => {
          const run = await runProcess('sh', ['-c', '"$NODE" "$SCRIPT" hook claude-code < "$INPUT"'], { env, captureStdout: true });
          assertSucceeded(run, 'spillway hook');
          if (run.stdout.length !== 0) throw new Error('spillway hook answered a small output; it must print nothing');
          return run.wallMs;
        },
        baseline: async () => {
          const run = await runProcess('sh', ['-c', '"$NODE" -e 0 < "$INPUT"'], { env });
          assertSucceeded(run, 'node -e 0');
          return run.wallMs;
        },
      },
      { warmup: true },
    );
    ctx.record('hosts.hook.passthrough', { spillway: samples.spillway, baseline: samples.baseline, notes: [`${String(rounds)} interleaved calls per side; the hook writes its usage event`] });
  },
};
