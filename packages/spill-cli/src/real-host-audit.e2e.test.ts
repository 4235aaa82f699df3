import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CANDIDATE_CAPS, type AuditReport } from '@spillway/audit';
import { HOSTS } from '@spillway/hosts';
import { ensureBuilt } from './test-bin.js';
import { REAL_HOST_CASES, type RealHostLayout } from './test-real-host-cases.js';
import { realHostSkipReason, type SessionRecord } from './test-real-hosts.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

// Every real host, offline and without spillway, runs one session of real tools over a
// project: a file list, a grep, a build log and a failing test run, each large, each
// followed by a call that uses a path or name only its middle holds; then `spillway audit`
// reads the transcript the host wrote. The audit must see every call, spill the large
// outputs, and find the later calls that needed the middle.

const AREAS = ['accounts', 'billing', 'catalog', 'checkout', 'inventory', 'reports', 'search', 'shipping'];

/** The project: 8 areas of 40 modules, a build log with one error in its middle, a test script that fails in its middle. */
function writeProject(cwd: string): void {
  for (const area of AREAS) {
    mkdirSync(join(cwd, 'src', area), { recursive: true });
    for (let i = 0; i < 40; i++) {
      const name = `${area}_${String(i * 7 + 100).padStart(4, '0')}`;
      const body = Array.from({ length: 6 }, (_, f) => `export function ${name}_step${String(f)}(input: number): number {\n  return input * ${String(f + 2)};\n}\n`).join('\n');
      writeFileSync(join(cwd, 'src', area, `${name}.ts`), body);
    }
  }
  const log = Array.from({ length: 4000 }, (_, i) => (i === 2100 ? 'src/checkout/checkout_0205.ts(41,7): error TS2345: Argument of type string is not assignable to number.' : `[build] compiled module ${String(i)} of 4000 in ${String(i % 97)} ms`));
  writeFileSync(join(cwd, 'build.log'), `${log.join('\n')}\n`);
  mkdirSync(join(cwd, 'scripts'));
  writeFileSync(join(cwd, 'scripts', 'test.sh'), 'seq -f "ok %g passed" 1 40000\necho "FAIL tests/shipping_0247.test.ts: expected 12 to equal 14"\nseq -f "ok %g passed" 40001 80000\nexit 1\n');
}

/** The session's commands, in order: each large output, then the call that uses what only its middle held. */
const COMMANDS = [
  'find src -type f | sort',
  'sed -n 1,8p src/inventory/inventory_0233.ts',
  'grep -rn "export function" src | sort',
  'grep -n "reports_0352_step4" src/reports/reports_0352.ts',
  'cat build.log',
  'sed -n 38,44p src/checkout/checkout_0205.ts',
  'sh scripts/test.sh',
  'ls tests/shipping_0247.test.ts || true',
  'echo small-output-ok',
];

for (const c of REAL_HOST_CASES) {
  const host = HOSTS[c.host];
  const skip = realHostSkipReason() ?? c.skipReason?.();

  describe.skipIf(skip !== undefined)(`spillway audit on a ${host.label} session without spillway${skip === undefined ? '' : ` (skipped: ${skip})`}`, () => {
    let dir: string;
    let layout: RealHostLayout;
    let record: SessionRecord;
    let report: AuditReport;
    let summary: string;
    /** Each command's whole output, in bytes, as the shell gives it. */
    let whole: number[];

    beforeAll(async () => {
      ensureBuilt();
      dir = mkdtempSync(join(tmpdir(), `audit-${c.host}-`));
      layout = c.prepare(dir);
      writeProject(layout.cwd);
      whole = COMMANDS.map((command) => {
        try {
          return execFileSync('sh', ['-c', command], { cwd: layout.cwd, maxBuffer: 64 << 20 }).length;
        } catch (error) {
          return (error as { stdout: Buffer }).stdout.length;
        }
      });
      const opening = c.before(dir);
      record = c.session(dir, layout, [...opening, ...COMMANDS.map((command) => c.shell(command))]);
      expect(record.results, `${record.stderr}\n${record.stdout}`).toHaveLength(opening.length + COMMANDS.length);
      // The host's own transcript, where the host keeps it; at the cap setup gives it.
      const args = layout.audit.args.filter((a, i, all) => a !== '--cap' && all[i - 1] !== '--cap');
      const json = testIO({ homedir: layout.home, env: layout.audit.env });
      expect(await main(['audit', '--json', '--examples', ...args], json.io), json.stderr.text()).toBe(0);
      report = JSON.parse(json.stdout.text()) as AuditReport;
      const text = testIO({ homedir: layout.home, env: { ...layout.audit.env, NO_COLOR: '1' } });
      expect(await main(['audit', ...args], text.io), text.stderr.text()).toBe(0);
      summary = text.stdout.text();
      console.log(`${c.host}, audit of a session without spillway:\n${summary}\nneeded later: ${report.calls.flatMap((call) => call.caps.filter((o) => o.example !== undefined).map((o) => `${String(call.bytes)} B at ${String(o.cap)}: ${o.example ?? ''} (${o.neededHeadTail ? 'head+tail' : ''} ${o.neededSpillway ? 'spillway' : ''})`)).join('; ')}\nbytes: ${report.calls.map((call) => `${String(call.bytes)}${call.hostView === 'cut' ? (call.neededHost === true ? ' (host cut, needed)' : ' (host cut)') : ''}`).join(', ')} (whole: ${whole.join(', ')})\ncandidates: ${JSON.stringify(report.recommendations[0]?.candidates.map((f) => [f.cap, f.spilled, f.tokensKeptOut, f.neededLater]))}`);
    }, 360_000);
    afterAll(() => {
      rmSync(dir, { recursive: true, force: true });
    });

    it('sees every call of the session, and reads every line', () => {
      expect(report.skippedLines).toBe(0);
      expect(report.callsWithoutOutput).toBe(0);
      expect(report.total.calls).toBeGreaterThanOrEqual(COMMANDS.length);
      expect(report.cap).toBe(host.cap);
    });

    it('spills the large outputs at the smallest candidate cap, keeping most of their tokens out', () => {
      const smallest = report.recommendations[0]?.candidates.find((f) => f.cap === CANDIDATE_CAPS[0]);
      // The file list, the grep, the build log and the test run are each over 2 KiB as any host keeps them.
      expect(smallest?.spilled).toBeGreaterThanOrEqual(4);
      expect((smallest?.tokensKeptOut ?? 0) / report.total.tokens).toBeGreaterThan(0.5);
    });

    it('finds the later calls that used what only the middle held, and where spillway keeps it', () => {
      // The calls in the order of COMMANDS, after the host's opening steps.
      const calls = report.calls.slice(report.calls.length - COMMANDS.length);
      const at = (i: number, cap: number) => calls[i]?.caps.find((o) => o.cap === cap);
      const [list, , grep, , log, , tests] = [0, 1, 2, 3, 4, 5, 6].map((i) => calls[i]);
      // The file list (about 9 KB, whole in every host's transcript) is cut at 2 KiB, and a later call opened a file from its middle.
      expect(list?.bytes).toBeGreaterThan(8192);
      expect(at(0, 2048)?.neededHeadTail).toBe(true);
      // The build log's error line is what spillway's preview keeps, at every cap.
      expect(log?.caps.length).toBeGreaterThan(0);
      expect(log?.caps.every((o) => !o.neededSpillway)).toBe(true);
      // Where the host's transcript holds the whole grep (it stored it in a file), a line picked from its middle is needed at every
      // cap. A host may keep only part of an output it read as the command exited (OpenCode, under load), so only whole ones count.
      if (grep?.bytes === whole[2]) expect(grep?.caps.every((o) => o.neededHeadTail && o.example === 'reports_0352_step4')).toBe(true);
      // Where it holds the whole failing run, the failure line is lost by head+tail and kept by spillway, at every cap.
      if (tests?.bytes === whole[6]) {
        expect(tests?.caps.every((o) => o.neededHeadTail && !o.neededSpillway && o.example === 'tests/shipping_0247.test.ts')).toBe(true);
      }
    });

    it('judges the host\'s own preview where the host stored an output whole in a file and showed a part', () => {
      const calls = report.calls.slice(report.calls.length - COMMANDS.length);
      // Claude Code stores any Bash output over 30,000 characters: the grep (about 177 KB) and the build log.
      if (c.host === 'claude-code') expect([calls[2]?.hostView, calls[4]?.hostView]).toEqual(['cut', 'cut']);
      // Claude Code's note shows the first 2 KB: the grep's picked line (past 120 KB) is needed with its preview.
      if (c.host === 'claude-code') expect(calls[2]?.neededHost).toBe(true);
      // The test run's failure is line 40,001 of 80,001: no host's part of 2 KB or 2,000 lines holds it.
      if (calls[6]?.hostView === 'cut' && calls[6].bytes === whole[6]) expect(calls[6].neededHost).toBe(true);
      expect(report.total.hostCut).toBe(report.calls.filter((call) => call.hostView === 'cut').length);
      expect(report.total.neededLaterHost).toBe(report.calls.filter((call) => call.neededHost === true).length);
      if (report.total.hostCut > 0) expect(summary).toContain(`with the host's own preview (the part it showed of ${String(report.total.hostCut)} output`);
    });

    it('the summary names a cap, or says why none, with the setup command for a cap', () => {
      expect(summary).toMatch(/recommended cap: \d+ bytes|no cap keeps the needed-later rate|too few outputs spilled/);
      if (summary.includes('recommended cap:')) expect(summary).toContain(`spillway setup ${c.host} --max-inline-bytes`);
    });
  });
}
