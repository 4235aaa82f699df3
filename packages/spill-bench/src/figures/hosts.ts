import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { claudeCodeShellScript } from '@spillway/hosts';
import path from 'node:path';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import { assertSucceeded, runProcess } from '../process.js';
import { privateDir } from './common.js';
import { cliBin, commandBin } from './cli.js';

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
      target: ratioAtMost(1.2),
    },
    {
      id: 'hosts.run.startup',
      title: 'spillway run -- true: wall time per call',
      baseline: 'node -e 0 (same stdin, through sh)',
      unit: 'ms',
      target: ratioAtMost(1.3),
    },
    {
      id: 'hosts.cli.version',
      title: 'spillway --version: wall time per call',
      baseline: 'node -e 0 (same stdin, through sh)',
      unit: 'ms',
      target: ratioAtMost(1.3),
    },
    {
      id: 'hosts.cli.help',
      title: 'spillway --help (stdout a pipe): wall time per call',
      baseline: 'node -e 0 (same stdin, through sh)',
      unit: 'ms',
      target: ratioAtMost(1.3),
    },
    {
      id: 'hosts.shell-prefix.small',
      title: "a small Bash command through Claude Code's shell prefix (stdout a file, as Claude Code gives it): wall time per call",
      baseline: 'the same shell script run by bash directly',
      unit: 'ms',
      target: ratioAtMost(1.3),
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
    const script = commandBin();
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

    // Both sides of a figure as `sh -c` scripts, interleaved; wall time per call.
    const pair = (spillwaySh: string, baselineSh: string, pairEnv: Record<string, string>) =>
      runInterleaved(
        rounds,
        Object.fromEntries(
          ([['spillway', spillwaySh], ['baseline', baselineSh]] as const).map(([side, sh]) => [
            side,
            async () => {
              const r = await runProcess('sh', ['-c', sh], { env: pairEnv });
              assertSucceeded(r, sh);
              return r.wallMs;
            },
          ]),
        ) as Record<'spillway' | 'baseline', () => Promise<number>>,
        { warmup: true },
      );

    // Every Bash command of a Claude Code set up with spillway starts `spillway run`.
    const runEnv = { ...env, SPILLWAY_ROOT: path.join(dir, 'root'), SPILLWAY_AUTO_GC: 'off' };
    await mkdir(runEnv.SPILLWAY_ROOT, { mode: 0o700 });
    const run = await pair('"$NODE" "$SCRIPT" run -- true < "$INPUT"', '"$NODE" -e 0 < "$INPUT"', runEnv);
    ctx.record('hosts.run.startup', { spillway: run.spillway, baseline: run.baseline, notes: [`${String(rounds)} interleaved calls per side; the run writes its usage event`] });

    // The commands a person or a script tries first.
    const version = await pair('"$NODE" "$SCRIPT" --version < "$INPUT" > /dev/null', '"$NODE" -e 0 < "$INPUT"', runEnv);
    ctx.record('hosts.cli.version', { spillway: version.spillway, baseline: version.baseline, notes: [`${String(rounds)} interleaved calls per side`] });
    const help = await pair('"$NODE" "$SCRIPT" --help < "$INPUT" | cat > /dev/null', '"$NODE" -e 0 < "$INPUT" | cat > /dev/null', runEnv);
    ctx.record('hosts.cli.help', { spillway: help.spillway, baseline: help.baseline, notes: [`${String(rounds)} interleaved calls per side; the help file written at build time`] });

    // The prefix as Claude Code calls it: one argument, the whole script, ending with the
    // write of the working directory; stdout an empty file, as Claude Code gives it.
    const prefix = path.join(dir, 'claude-code-shell');
    await writeFile(prefix, claudeCodeShellScript({ node: process.execPath, spillway: script }, 24 * 1024, 9000));
    await chmod(prefix, 0o755);
    const cwdFile = path.join(dir, 'cwd');
    const shellScript = `eval 'git --version' < /dev/null && pwd -P >| '${cwdFile}'`;
    const prefixEnv = { ...runEnv, PREFIX: prefix, SHELL_SCRIPT: shellScript, SHELL: '/bin/bash', OUT: path.join(dir, 'out.txt') };
    const shell = await pair(': > "$OUT"; "$PREFIX" "$SHELL_SCRIPT" >> "$OUT" 2>&1', ': > "$OUT"; /bin/bash -c "$SHELL_SCRIPT" >> "$OUT" 2>&1', prefixEnv);
    ctx.record('hosts.shell-prefix.small', { spillway: shell.spillway, baseline: shell.baseline, notes: [`${String(rounds)} interleaved calls per side of \`git --version\` with Claude Code's cwd write`] });
  },
};
