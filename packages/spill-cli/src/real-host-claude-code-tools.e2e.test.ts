import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt } from './test-bin.js';
import { CLAUDE_CODE, claudeCodeSessionEnv, realHostSkipReason, runHostSession, type ScriptedCall, type SessionRecord } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

const skip = realHostSkipReason();
const CAP = 24 * 1024;
/** Claude Code persists a Grep result over 20,000 characters itself, so the hook keeps Grep to 16 KiB. */
const GREP_CAP = 16 * 1024;
const SUB_AGENT = 'SUB-AGENT-TASK-7 answer at length';
const FETCH = 'FETCH-TASK-9 say everything the page says';
const SEARCH = 'Perform a web search for the query';

function answer(tag: string, lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${tag} line ${String(i)} ${'w'.repeat(60)}`).join('\n');
}

const STEPS = (tree: string): ScriptedCall[] => [
  { name: 'Grep', args: { pattern: 'NEEDLE', path: tree, output_mode: 'content' } },
  { name: 'Glob', args: { pattern: '**/*.txt', path: tree } },
  { name: 'WebFetch', args: { url: 'https://127.0.0.1:{PAGE_PORT}/page.txt', prompt: FETCH } },
  { name: 'WebSearch', args: { query: 'spillway offline search' } },
  { name: 'Agent', args: { description: 'read the tree', prompt: SUB_AGENT, subagent_type: 'general-purpose', run_in_background: false } },
  { name: 'Grep', args: { pattern: 'ONLY-ONCE', path: tree, output_mode: 'content' } },
  { name: 'Glob', args: { pattern: '**/small-*.md', path: tree } },
];

describe.skipIf(skip !== undefined)(`Claude Code 2.1.328, offline: Grep, Glob, WebFetch, WebSearch and Agent after spillway setup${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
  let dir: string;
  let config: string;
  let tree: string;
  let before: SessionRecord;
  const session = (): SessionRecord =>
    runHostSession({
      api: 'anthropic',
      dir,
      cwd: join(dir, 'project'),
      command: [CLAUDE_CODE, '-p', 'Run the scripted tools.', '--output-format', 'json', '--allowedTools', 'Grep,Glob,WebFetch,WebSearch,Agent'],
      env: { ...claudeCodeSessionEnv(dir, config), NODE_EXTRA_CA_CERTS: join(dir, 'cert.pem') },
      steps: STEPS(tree),
      // The sub-agent's turn, the small model's answer about the page, and the search.
      replies: [
        { when: SUB_AGENT, text: answer('SUB', 500) },
        { when: FETCH, text: answer('FETCHED', 900) },
        { when: SEARCH, text: answer('FOUND', 500) },
      ],
      page: { keyFile: join(dir, 'key.pem'), certFile: join(dir, 'cert.pem'), body: answer('PAGE', 900) },
    });

  const setup = async (...args: string[]): Promise<number> => main(['setup', 'claude-code', '--config-dir', config, ...args], testIO({ homedir: dir, cwd: join(dir, 'project'), env: { PATH: process.env.PATH } }).io);

  // The session without spillway, which each test below compares with or needs none of.
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'real-claude-tools-'));
    config = join(dir, 'claude');
    mkdirSync(config);
    // 200 files under long folder names: 100 paths (Glob's limit) of about 320 characters,
    // and 10,000 matching lines (Grep shows 250 of them).
    tree = join(dir, 'project', 'tree');
    for (let d = 0; d < 20; d++) {
      const sub = join(tree, `folder-${String(d)}-`.padEnd(200, 'f'));
      mkdirSync(sub, { recursive: true });
      for (let f = 0; f < 10; f++) {
        writeFileSync(join(sub, `${`file-${String(f)}-`.padEnd(100, 'g')}.txt`), Array.from({ length: 50 }, (_, i) => `line ${String(i)} NEEDLE in ${String(d)}/${String(f)} ${'z'.repeat(60)}`).join('\n'));
      }
    }
    writeFileSync(join(tree, 'small-note.md'), 'ONLY-ONCE here\n');
    // WebFetch upgrades http to https: the page is served over https with a certificate the host trusts.
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'ignore' });
    writeFileSync(join(config, '.claude.json'), `${JSON.stringify({ hasCompletedOnboarding: true }, null, 2)}\n`);
    // Offline, WebFetch's domain check against api.anthropic.com cannot answer: it is skipped.
    writeFileSync(join(config, 'settings.json'), '{\n  "skipWebFetchPreflight": true\n}\n');
    before = session();
  }, 360_000);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('without spillway: what Claude Code sends the model on its own', () => {
    expect(before.results, before.stderr).toHaveLength(7);
    const [grep, glob, fetch, search, agent] = before.results as [string, string, string, string, string];
    // Over its 20,000-character Grep limit and 50,000 for WebFetch, Claude Code keeps a 2 KB head.
    expect(grep).toContain('<persisted-output>');
    expect(fetch).toContain('<persisted-output>');
    expect(glob.length).toBeGreaterThan(30_000);
    expect(search.length).toBeGreaterThan(30_000);
    expect(agent.length).toBeGreaterThan(30_000);
    console.log(`claude-code tools without spillway, bytes the model got: ${before.results.map((r) => Buffer.byteLength(r)).join(', ')}`);
  });

  it('setup writes the hook for the built-in tools; undo right after gives the bytes back', async () => {
    const settings = join(config, 'settings.json');
    const original = readFileSync(settings);
    expect(await setup()).toBe(0);
    const hooks = (JSON.parse(readFileSync(settings, 'utf8')) as { hooks: { PostToolUse: { matcher: string }[] } }).hooks.PostToolUse;
    expect(hooks.map((h) => h.matcher)).toEqual(['Bash|Grep|Glob|WebFetch|WebSearch|Agent']);
    expect(await setup('--undo')).toBe(0);
    expect(readFileSync(settings)).toEqual(original);
  });

  it("with spillway: each large output reaches the model as the preview and notice in the tool's own shape, whole, and the whole is stored; small ones are unchanged", async () => {
    expect(await setup()).toBe(0);
    let after: SessionRecord;
    try {
      after = session();
    } finally {
      expect(await setup('--undo')).toBe(0);
    }
    expect(after.results, after.stderr).toHaveLength(7);
    console.log(`claude-code tools with spillway, bytes the model got: ${after.results.map((r) => Buffer.byteLength(r)).join(', ')}`);
    const stored = (text: string): string => readFileSync(/stored at: (\S+?)\. /.exec(text)?.[1] ?? '', 'utf8');
    const hostFile = (text: string): string => readFileSync(/Full output saved to: (\S+)/.exec(text)?.[1] ?? '', 'utf8');
    const [grep, glob, fetch, search, agent, smallGrep, smallGlob] = after.results as [string, string, string, string, string, string, string];
    const [grep0, glob0, fetch0, search0, agent0, smallGrep0, smallGlob0] = before.results as [string, string, string, string, string, string, string];
    for (const [shown, cap] of [[grep, GREP_CAP], [glob, CAP], [fetch, CAP], [search, CAP], [agent, CAP]] as const) {
      // Claude Code took the replacement whole: no persisted-output of its own around hook output over 10,000 characters.
      expect(shown).not.toContain('<persisted-output>');
      expect(shown).not.toContain('saved to');
      expect(shown).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
      expect(Buffer.byteLength(shown)).toBeGreaterThan(10_000);
      expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(cap);
    }
    expect(Buffer.byteLength(grep)).toBeLessThanOrEqual(GREP_CAP);
    // What is stored is what the model would have seen: Claude Code's own file of the whole,
    // or its whole result where it kept it inline.
    expect(stored(grep)).toBe(hostFile(grep0));
    expect(stored(glob)).toBe(glob0);
    expect(stored(fetch)).toBe(hostFile(fetch0));
    expect(stored(search)).toBe(search0);
    // The sub-agent's report is stored without the indent Claude Code's hand-back frame gives it.
    expect(agent0).toContain(`The report follows:\n  ${stored(agent).split('\n').join('\n  ')}\nagentId: `);
    expect(agent.startsWith('[Subagent hand-back] ')).toBe(true);
    expect(agent).toMatch(/agentId: \S+ .*\n<usage>subagent_tokens: /);
    // The rendering of each shape: Grep and Glob are the preview alone; WebSearch keeps its first line.
    // Grep's matches and Glob's paths are lists: the list preview's header line, then the first lines.
    expect(grep).toMatch(/^\[Preview of a list of \d+ lines, \d+ bytes;[^\n]*\]\ntree\/folder-0-/);
    expect(glob).toMatch(/^\[Preview of a list of \d+ lines, \d+ bytes;[^\n]*\]\ntree\/folder-/);
    expect(search.startsWith('Web search results for query: "spillway offline search"')).toBe(true);
    expect(smallGrep).toBe(smallGrep0);
    expect(smallGrep).toContain('ONLY-ONCE here');
    expect(smallGlob).toBe(smallGlob0);
    expect(smallGlob).toBe('tree/small-note.md');
  }, 300_000);
});
