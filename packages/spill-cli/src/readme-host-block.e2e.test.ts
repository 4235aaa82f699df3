import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE_DIR } from './test-bin.js';
import { BIG_MCP_SERVER, CLAUDE_CODE, claudeCodeSessionEnv, MCP_NEEDLE, realHostSkipReason, runHostSession, waitForBigServer } from './test-real-hosts.js';

// The README's host block, run as typed by a person without root, in a fresh clone, against
// a Claude Code config directory of their own; then the real Claude Code (offline, in a
// network namespace, against a fake model) takes the config it left and its MCP result and
// shell output reach the model as spillway's preview and notice.

const REPO = join(PACKAGE_DIR, '..', '..');
const USER = 'nobody';

/** The README's one-line host command, with its trailing comment cut off. */
function hostBlock(): string {
  const readme = readFileSync(join(REPO, 'README.md'), 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '');
  const block = blocks.find((b) => b.includes('pnpm protect'));
  if (block === undefined) throw new Error('README.md has no sh block with pnpm protect');
  const line = block.split('\n').find((l) => l.includes('pnpm protect')) ?? '';
  return line.replace(/\s+#.*$/, '').trim();
}

/** The machine's way to the registry (proxy, certificates, registry), which a person's shell has too. */
function networkEnv(): string[] {
  const keep = /proxy|_ca_|ca_certs|ssl_cert|^npm_config_(?:registry|cafile|strict_ssl)$|^corepack_npm_registry$/i;
  return Object.entries(process.env)
    .filter(([key, value]) => keep.test(key) && value !== undefined)
    .map(([key, value]) => `${key}=${String(value)}`);
}

function why(): string | undefined {
  const host = realHostSkipReason();
  if (host !== undefined) return host;
  if (spawnSync('id', ['-u', USER]).status !== 0) return `there is no user ${USER}`;
  if (spawnSync('git', ['--version']).status !== 0) return 'git is missing';
  return undefined;
}
const skip = why();

describe.skipIf(skip !== undefined)(`the README's host block, as ${USER}, from a fresh clone${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let work: string;
  let home: string;
  let config: string;
  let uid: number;
  let gid: number;
  const sessions: string[] = [];

  beforeAll(() => {
    uid = Number(spawnSync('id', ['-u', USER], { encoding: 'utf8' }).stdout.trim());
    gid = Number(spawnSync('id', ['-g', USER], { encoding: 'utf8' }).stdout.trim());
    work = mkdtempSync('/tmp/spillway-readme-host-');
    chmodSync(work, 0o755);
    home = join(work, 'home');
    config = join(home, 'claude');
    mkdirSync(config, { recursive: true, mode: 0o700 });
    writeFileSync(join(config, '.claude.json'), `${JSON.stringify({ hasCompletedOnboarding: true, mcpServers: { big: { type: 'stdio', command: 'node', args: [BIG_MCP_SERVER], env: {} } } }, null, 2)}\n`);
    writeFileSync(join(config, 'settings.json'), '{\n  "permissions": { "allow": [] }\n}\n');
    const clone = spawnSync('git', ['clone', '-q', REPO, join(work, 'spillway')], { encoding: 'utf8' });
    if (clone.status !== 0) throw new Error(`git clone failed: ${clone.stderr}`);
    spawnSync('chown', ['-R', `${String(uid)}:${String(gid)}`, home, join(work, 'spillway')]);
    chownSync(work, uid, gid);
  });
  // The clone holds an installed workspace: removing it takes more than the default 10 s under load.
  afterAll(() => {
    for (const dir of [work, ...sessions]) rmSync(dir, { recursive: true, force: true });
  }, 180_000);

  it('protects Claude Code in one command, and the real host takes the config it wrote', () => {
    const line = hostBlock();
    expect(line).toBe('corepack enable && pnpm install && pnpm protect claude-code');
    const started = Date.now();
    const ran = spawnSync(
      'setpriv',
      [
        `--reuid=${String(uid)}`,
        `--regid=${String(gid)}`,
        '--clear-groups',
        'env',
        '-i',
        `PATH=${dirname(process.execPath)}:/usr/bin:/bin`,
        `HOME=${home}`,
        `CLAUDE_CONFIG_DIR=${config}`,
        // A person answers corepack's one download question with yes.
        'COREPACK_ENABLE_DOWNLOAD_PROMPT=0',
        ...networkEnv(),
        'sh',
        '-c',
        line,
      ],
      { cwd: join(work, 'spillway'), encoding: 'utf8', timeout: 20 * 60_000, maxBuffer: 1 << 26 },
    );
    const seconds = (Date.now() - started) / 1000;
    expect(ran.status, `${ran.stdout.slice(-3000)}\n${ran.stderr.slice(-3000)}`).toBe(0);
    process.stdout.write(`README host block from a fresh clone as ${USER}: ${seconds.toFixed(0)} s\n`);
    expect(ran.stdout).toContain('done: claude-code is protected');

    // spillway is on the person's PATH (~/.local/bin), pointing into their clone.
    const link = join(home, '.local', 'bin', 'spillway');
    expect(readlinkSync(link)).toBe(join(work, 'spillway', 'packages', 'spill-cli', 'bin', 'spillway.js'));
    const settings = JSON.parse(readFileSync(join(config, 'settings.json'), 'utf8')) as { hooks?: unknown; env?: Record<string, string> };
    expect(JSON.stringify(settings.hooks)).toContain('hook claude-code');
    expect(existsSync(settings.env?.CLAUDE_CODE_SHELL_PREFIX ?? '')).toBe(true);

    // The real host, with that config: it starts the wrapped server, and both outputs come back spilled.
    // The session runs as root, in a directory of root's: spillway refuses a store below a
    // directory another user owns.
    const session = mkdtempSync('/tmp/spillway-readme-session-');
    sessions.push(session);
    mkdirSync(join(session, 'project'));
    const record = runHostSession({
      api: 'anthropic',
      dir: session,
      cwd: join(session, 'project'),
      command: [CLAUDE_CODE, '-p', 'Run the scripted tools.', '--output-format', 'json', '--allowedTools', 'Bash,mcp__big__get_big'],
      env: claudeCodeSessionEnv(session, config, `${join(home, '.local', 'bin')}:${process.env.PATH ?? '/usr/bin:/bin'}`),
      steps: [
        waitForBigServer('Bash', join(session, 'big-ready')),
        { name: 'mcp__big__get_big', args: {} },
        { name: 'Bash', args: { command: 'seq 1 200000', description: 'print a long listing' } },
      ],
    });
    expect(record.results, record.stderr).toHaveLength(3);
    const [, mcp, shell] = record.results as [string, string, string];
    expect(mcp).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
    expect(mcp).not.toContain(MCP_NEEDLE);
    const locator = /stored at: (\S+?)\. /.exec(shell)?.[1] ?? '';
    expect(readFileSync(locator, 'utf8')).toBe(`${Array.from({ length: 200_000 }, (_, i) => String(i + 1)).join('\n')}\n`);
  }, 30 * 60_000);
});
