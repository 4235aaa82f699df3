import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './test-bin.js';
import { CLAUDE_CODE, claudeCodeSessionEnv, realHostSkipReason, runHostSession } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

// Claude Code alone runs every Bash command through spillway's shell prefix: its permission
// rules must still judge the command as the model typed it. (What every host is held to is
// in real-hosts.e2e.test.ts.)

const skip = realHostSkipReason();

describe.skipIf(skip !== undefined)(`Claude Code 2.1.328, offline, with spillway's shell prefix${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let dir: string;
  let config: string;

  beforeAll(async () => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'real-claude-rules-'));
    config = join(dir, 'claude');
    mkdirSync(config);
    mkdirSync(join(dir, 'project'));
    writeFileSync(join(config, '.claude.json'), `${JSON.stringify({ hasCompletedOnboarding: true }, null, 2)}\n`);
    writeFileSync(join(config, 'settings.json'), '{\n  "permissions": { "allow": [] }\n}\n');
    const t = testIO({ homedir: dir, cwd: join(dir, 'project'), env: { PATH: process.env.PATH } });
    expect(await main(['setup', 'claude-code', '--config-dir', config], t.io), t.stdout.text()).toBe(0);
  }, 60_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('permission rules still match the command as typed: an allowed one runs, another is refused', () => {
    const rules = runHostSession({
      api: 'anthropic',
      dir,
      cwd: join(dir, 'project'),
      command: [CLAUDE_CODE, '-p', 'Run the scripted tools.', '--output-format', 'json', '--settings', JSON.stringify({ permissions: { allow: ['Bash(seq:*)'] } })],
      env: claudeCodeSessionEnv(dir, config),
      steps: [
        { name: 'Bash', args: { command: 'seq 1 3', description: 'count' } },
        { name: 'Bash', args: { command: `touch ${join(dir, 'outside-the-project')}`, description: 'touch a file' } },
      ],
    });
    expect(rules.results, rules.stderr).toHaveLength(2);
    expect(rules.results[0]).toBe('1\n2\n3');
    expect(rules.results[1]).toContain('needs approval');
    expect(existsSync(join(dir, 'outside-the-project'))).toBe(false);
  }, 300_000);
});
