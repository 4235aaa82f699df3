import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOSTS } from '@spillway/hosts';
import { ensureBuilt } from './test-bin.js';
import { FAILING, FAILING_ERROR, REAL_HOST_CASES, type RealHostLayout } from './test-real-host-cases.js';
import { BIG_MCP_SERVER, MCP_NEEDLE, realHostSkipReason, type ScriptedCall, type SessionRecord } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

// Every real host, offline (a network namespace with loopback only, a fake model server),
// is held to one contract after `spillway setup`: setup and undo give the person's bytes
// back, a broken config is refused untouched, the big MCP result and a long failing command
// reach the model as preview and notice within what the host keeps, spill_grep finds what
// the preview left out, a small output is unchanged, stats and audit answer from the
// session, and undo after it keeps what the host wrote. What differs between hosts is data,
// in test-real-host-cases.ts; evidence about one host alone stays in real-host-<host> files.

const NOTICE = /\(Omitted \d+ bytes\. Full formatted result stored at: /;
const storedText = (text: string): string => readFileSync(/stored at: (\S+?)\. /.exec(text)?.[1] ?? '', 'utf8');

for (const c of REAL_HOST_CASES) {
  const host = HOSTS[c.host];
  const version = host.checkedWith?.version ?? '';
  const skip = realHostSkipReason() ?? c.skipReason?.();

  describe.skipIf(skip !== undefined)(`${host.label} ${version}, offline, after spillway setup${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
    let dir: string;
    let layout: RealHostLayout;
    const setup = async (...args: string[]): Promise<{ code: number; out: string }> => {
      const t = testIO({ homedir: layout.home, cwd: layout.cwd, env: layout.setupEnv });
      const code = await main(['setup', c.host, ...layout.setupArgs, ...args], t.io);
      return { code, out: t.stdout.text() };
    };
    // What the session's calls are, by their place in it.
    let record: SessionRecord;
    let shared: { readonly mcp: string; readonly grep: string; readonly small: string; readonly failing: string | undefined };
    let extra: readonly string[];
    let before: readonly Buffer[];
    let first: { code: number; out: string };
    let undone: readonly Buffer[];
    let again: { code: number; out: string };

    beforeAll(async () => {
      ensureBuilt();
      dir = mkdtempSync(join(tmpdir(), `real-${c.host}-`));
      layout = c.prepare(dir);
      before = layout.files.map((f) => readFileSync(f));
      first = await setup();
      await setup('--undo');
      undone = layout.files.map((f) => readFileSync(f));
      again = await setup();

      const opening = c.before(dir);
      const steps: ScriptedCall[] = [
        ...opening,
        c.mcp('get_big', {}),
        c.mcp('spill_grep', { locator: '{LOCATOR}', pattern: 'MCP-NEEDLE-31337' }),
        c.shell('echo small-output-ok'),
        ...(c.failing === undefined ? [] : [c.shell(FAILING)]),
        ...(c.extra?.steps(layout) ?? []),
      ];
      record = c.session(dir, layout, steps);
      const results = record.results.slice(opening.length);
      const [mcp = '', grep = '', small = ''] = results;
      shared = { mcp, grep, small, failing: c.failing === undefined ? undefined : results[3] };
      extra = results.slice(c.failing === undefined ? 3 : 4);
      console.log(`${c.host}, bytes the model got: ${record.results.map((r) => Buffer.byteLength(r)).join(', ')}`);
      expect(record.results, `${record.stderr}\n${record.stdout}`).toHaveLength(steps.length);
    }, 360_000);
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('setup, undo right after it gives the bytes back, setup again', () => {
      expect(first.code, first.out).toBe(0);
      expect(layout.files.some((f) => readFileSync(f, 'utf8').includes('spillway'))).toBe(true);
      expect(undone).toEqual(before);
      expect(again.code, again.out).toBe(0);
      expect(again.out).toContain(`cap ${String(host.cap)} bytes`);
      for (const f of layout.written) expect(existsSync(f), f).toBe(true);
      expect(layout.files.map((f) => readFileSync(f, 'utf8')).join('\n')).toContain(layout.ownText);
    });

    it('a config that cannot be parsed is refused and left untouched', async () => {
      mkdirSync(layout.broken.dir, { recursive: true });
      const file = join(layout.broken.dir, layout.broken.file);
      writeFileSync(file, layout.broken.text);
      const t = testIO({ homedir: layout.home, cwd: layout.cwd });
      expect(await main(['setup', c.host, '--config-dir', layout.broken.dir], t.io)).toBe(1);
      expect(t.stdout.text() + t.stderr.text()).toContain(file);
      expect(readFileSync(file, 'utf8')).toBe(layout.broken.text);
    });

    it('the 500 KB MCP result reaches the model as preview and notice, and spill_grep finds what it left out', () => {
      expect(shared.mcp).toMatch(NOTICE);
      expect(shared.mcp).not.toContain(MCP_NEEDLE);
      expect(shared.mcp).not.toMatch(/truncated/i);
      expect(Buffer.byteLength(shared.mcp)).toBeLessThanOrEqual(c.mcpLimit);
      expect(shared.grep).toContain(MCP_NEEDLE);
    });

    it('a small output is unchanged', () => {
      expect(c.shellText(shared.small)).toContain('small-output-ok');
      expect(shared.small).not.toMatch(/spillway|Omitted/);
    });

    it.skipIf(c.failing === undefined)("a long failing command's preview keeps its error line from the middle, within what the host keeps of a failure, and the whole is stored", () => {
      const failing = c.shellText(shared.failing ?? '');
      console.log(`${c.host}, a 1.9 MB failing output: ${String(Buffer.byteLength(failing))} bytes reached the model`);
      expect(failing).toMatch(NOTICE);
      expect(failing).toContain(FAILING_ERROR);
      if (c.failing?.exitCode !== undefined) expect(failing).toMatch(c.failing.exitCode);
      expect(failing).not.toContain('characters truncated');
      expect(Buffer.byteLength(failing)).toBeLessThanOrEqual(c.failing?.limit ?? 0);
      expect(storedText(failing)).toContain(`150000\n${FAILING_ERROR}\n150001\n`);
    });

    it.skipIf(c.extra === undefined)(`what only ${host.label} runs in the session`, () => {
      c.extra?.check(extra, layout);
    });

    it('spillway stats answers from the session', async () => {
      const t = testIO({ homedir: layout.home, env: layout.statsEnv });
      expect(await main(['stats', '--json'], t.io)).toBe(0);
      const stats = JSON.parse(t.stdout.text()) as { total: { spilled: number; readBack: { artifacts: number } } };
      // The MCP result, the failing command and the host's own large outputs.
      expect(stats.total.spilled).toBe(1 + (c.failing === undefined ? 0 : 1) + (c.extra?.spills ?? 0));
      expect(stats.total.readBack.artifacts).toBe(1);
    });

    it("spillway audit reads the host's own transcript: every line, every tool", async () => {
      const t = testIO({ homedir: layout.home, env: layout.audit.env });
      expect(await main(['audit', '--json', ...layout.audit.args], t.io), t.stderr.text()).toBe(0);
      const report = JSON.parse(t.stdout.text()) as { skippedLines: number; callsWithoutOutput: number; tools: { name: string }[]; servers: { name: string }[] };
      expect(report.skippedLines).toBe(0);
      expect(report.callsWithoutOutput).toBe(0);
      expect(report.tools.map((x) => x.name).sort()).toEqual([...c.auditTools].sort());
      expect(report.servers.map((x) => x.name)).toEqual(['big']);
    });

    it('undo after the session keeps what the host wrote and removes only spillway', async () => {
      const undo = await setup('--undo');
      expect(undo.code, undo.out).toBe(0);
      const text = layout.files.map((f) => readFileSync(f, 'utf8')).join('\n');
      expect(text).not.toContain('spillway');
      expect(text).toContain(layout.ownText);
      // The big server runs its own command again.
      expect(text).toContain(BIG_MCP_SERVER);
      for (const f of layout.written) expect(existsSync(f), f).toBe(false);
    });
  });
}
