import { execFile } from 'node:child_process';
import { chmod, mkdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { callId, sessionId, spillLocator, type SpillEntry, type SpillLocator } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { formatSpillNotice } from '@spillway/policy/notice';
import type { RetentionReport, SweepProgress } from '@spillway/retention';
import { localBackendFactory, type BackendFactory, type CliBackend } from '../context.js';
import { main } from '../main.js';
import { BIN, ensureBuilt, spillway } from '../test-bin.js';
import { capture, testIO } from '../test-io.js';
import { echoLimit, formatGcSummary, gcJson, ProgressBar, renderProgress } from './gc.js';
import { makePrivateDir, tempBasePerFile } from '../test-temp-dirs.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let base: string;
let counter = 0;

tempBasePerFile('spillway-cli-gc-', (dir) => {
  base = dir;
});

/** A fresh private root holding `count` artifacts of 100 bytes, aged 1..count days. */
async function rootWithArtifacts(count: number): Promise<{ root: string; locators: SpillLocator[] }> {
  counter++;
  const root = join(base, `root-${String(counter)}`);
  await makePrivateDir(root);
  const backend = createLocalBackend({ root });
  const locators: SpillLocator[] = [];
  const now = Date.now();
  for (let i = 1; i <= count; i++) {
    const ref = await backend.saveText({
      owner: { sessionId: sessionId(`s${String(i % 2)}`) },
      source: { toolName: 'test', callId: callId(`c${String(i)}`) },
      suggestedName: `out-${String(i)}.txt`,
      content: 'x'.repeat(100),
    });
    const when = new Date(now - i * DAY);
    await utimes(ref.locator, when, when);
    locators.push(ref.locator);
  }
  return { root, locators };
}

async function remaining(root: string): Promise<string[]> {
  const out: string[] = [];
  // Skipped (refused) session directories are the tests' business, not this helper's.
  for await (const e of createLocalBackend({ root }).catalog.list({ onProblem: () => undefined })) out.push(e.locator);
  return out.sort();
}

async function cli(args: string[], backend: BackendFactory, stderrTTY = false) {
  const { io, stdout, stderr: plainErr } = testIO({ env: { SPILLWAY_ROOT: join(base, 'never-used') }, homedir: join(base, 'home') });
  const stderr = stderrTTY ? capture(true) : plainErr;
  const code = await main(args, { ...io, stderr: stderr.stream }, { backend });
  return { code, stdout: stdout.text(), stderr: stderr.text() };
}

function factoryFor(root: string): BackendFactory {
  return () => localBackendFactory({ path: root, source: 'option' });
}

describe('spillway ls and gc with an unusable session directory', () => {
  async function withRefusedSession(): Promise<{ root: string; bad: string; locators: SpillLocator[] }> {
    const { root, locators } = await rootWithArtifacts(4);
    const bad = join(root, `session-${'c'.repeat(32)}`);
    await mkdir(bad, { mode: 0o700 });
    await chmod(bad, 0o755);
    return { root, bad, locators };
  }

  it('ls lists everything else, warns naming the refused directory, and exits 9', async () => {
    const { root, bad } = await withRefusedSession();
    const result = await cli(['ls'], factoryFor(root));
    expect(result.code).toBe(9);
    expect(result.stdout).toContain('4 artifacts');
    expect(result.stderr).toContain(`spillway: warning: skipped ${bad}:`);
    expect(result.stderr).toContain('[SPILL_UNSAFE_ROOT]');
  });

  it('ls --json names it in "skipped", keeps stderr quiet, and exits 9', async () => {
    const { root, bad } = await withRefusedSession();
    const result = await cli(['ls', '--json'], factoryFor(root));
    expect(result.code).toBe(9);
    const json = JSON.parse(result.stdout) as { count: number; complete: boolean; skipped: { where: string; code: string }[] };
    expect(json.count).toBe(4);
    expect(json.complete).toBe(true);
    expect(json.skipped.map((s) => [s.where, s.code])).toEqual([[bad, 'SPILL_UNSAFE_ROOT']]);
    expect(result.stderr).toBe('');
  });

  it('ls exits 0 with no warning when nothing is skipped', async () => {
    const { root } = await rootWithArtifacts(2);
    const result = await cli(['ls', '--json'], factoryFor(root));
    expect(result.code).toBe(0);
    expect((JSON.parse(result.stdout) as { skipped: unknown[] }).skipped).toEqual([]);
  });

  it('gc sweeps every other session, warns naming the refused one, and exits 9', async () => {
    const { root, bad } = await withRefusedSession();
    const result = await cli(['gc', '--older-than', '2d12h'], factoryFor(root));
    expect(result.code).toBe(9);
    expect(await remaining(root)).toHaveLength(2);
    expect(result.stdout).toContain('Deleted 2 artifacts');
    expect(result.stdout).toContain('Skipped 1 unusable session directory');
    expect(result.stderr).toContain(`spillway: warning: skipped ${bad}:`);
    const json = await cli(['gc', '--older-than', '1d12h', '--json'], factoryFor(root));
    expect(json.code).toBe(9);
    expect((JSON.parse(json.stdout) as { skipped: { where: string }[] }).skipped.map((s) => s.where)).toEqual([bad]);
  });
});

describe('spillway gc (in process, real root)', () => {
  it('deletes nothing with --dry-run, and reports what it would delete', async () => {
    const { root, locators } = await rootWithArtifacts(6);
    const result = await cli(['gc', '--older-than', '3d12h', '--dry-run', '--json'], factoryFor(root));
    expect(result.code).toBe(0);
    const json = JSON.parse(result.stdout) as ReturnType<typeof gcJson> & { deleted: { count: number }; entries: { deleted: { locator: string }[] } };
    expect(json.dryRun).toBe(true);
    expect(json.deleted.count).toBe(3);
    expect(json.entries.deleted.map((e) => e.locator).sort()).toEqual(locators.slice(3).sort());
    expect(await remaining(root)).toEqual([...locators].sort());
  });

  it('deletes by age and by total size, oldest first, and summarises', async () => {
    const { root, locators } = await rootWithArtifacts(6);
    const result = await cli(['gc', '--older-than', '5d12h', '--max-bytes', '300'], factoryFor(root));
    expect(result.code).toBe(0);
    // out-6 is too old; then the two oldest of the rest go to get down to 300 bytes.
    expect(await remaining(root)).toEqual(locators.slice(0, 3).sort());
    expect(result.stdout).toContain('Deleted 3 artifacts (300 B): 1 older than 5d 12h, 2 over --max-bytes.');
    expect(result.stdout).toContain('Left 3 artifacts (300 B); --max-bytes 300 bytes is met.');
  });

  it('keeps artifacts referenced by a transcript file given with --keep-referenced', async () => {
    const { root, locators } = await rootWithArtifacts(4);
    const oldest = locators[3] as SpillLocator;
    const transcript = join(base, `transcript-${String(counter)}.jsonl`);
    const notice = formatSpillNotice({ omittedBytes: 5000, locator: oldest, retrievalHint: 'Use read with offset/limit, or grep this path to search within it.' });
    await writeFile(transcript, `${JSON.stringify({ role: 'tool', content: `preview\n\n${notice}` })}\n`);
    const result = await cli(['gc', '--max-bytes', '0', '--keep-referenced', transcript], factoryFor(root));
    expect(result.code).toBe(0);
    expect(await remaining(root)).toEqual([oldest]);
    expect(result.stdout).toContain('Kept 1 artifact (100 B) that a limit would have deleted: 1 referenced.');
    expect(result.stdout).toContain('is NOT met (kept and fresh artifacts alone exceed it)');
  });

  it('takes several transcript files after one --keep-referenced, as a shell glob gives them, and repeated options too', async () => {
    const { root, locators } = await rootWithArtifacts(5);
    const hint = 'Use read with offset/limit, or grep this path to search within it.';
    const files: string[] = [];
    for (const [i, locator] of [locators[1], locators[3], undefined].entries()) {
      const file = join(base, `glob-${String(counter)}-${String(i)}.jsonl`);
      const body = locator === undefined ? 'no notice here' : formatSpillNotice({ omittedBytes: 10, locator, retrievalHint: hint });
      await writeFile(file, `${JSON.stringify({ content: body })}\n`);
      files.push(file);
    }
    const several = await cli(['gc', '--max-bytes', '0', '--dry-run', '--keep-referenced', ...files, '--json'], factoryFor(root));
    expect(several.code).toBe(0);
    const report = JSON.parse(several.stdout) as { kept: { count: number }; entries: { kept: { locator: string }[] } };
    expect(report.entries.kept.map((e) => e.locator).sort()).toEqual([locators[1], locators[3]].sort());
    const repeated = await cli(['gc', '--max-bytes', '0', '--keep-referenced', files[0] ?? '', '--keep-referenced', files[1] ?? ''], factoryFor(root));
    expect(repeated.code).toBe(0);
    expect(await remaining(root)).toEqual([locators[1], locators[3]].sort());
  });

  it('accepts a bare 0 for durations and sizes, and --grace 0 lets fresh artifacts go', async () => {
    const { root } = await rootWithArtifacts(0);
    const backend = createLocalBackend({ root });
    const fresh = await backend.saveText({ owner: { sessionId: sessionId('s') }, source: { toolName: 't', callId: callId('c') }, suggestedName: 'fresh.txt', content: 'fresh' });
    // Ten seconds old: inside the default grace, outside the sweep's one-second clock slack.
    const tenSecondsAgo = new Date(Date.now() - 10_000);
    await utimes(fresh.locator, tenSecondsAgo, tenSecondsAgo);
    const protectedByGrace = await cli(['gc', '--max-bytes', '0', '--older-than', '0'], factoryFor(root));
    expect(protectedByGrace.code).toBe(0);
    expect(protectedByGrace.stdout).toContain('younger than the 5m grace period');
    expect(await remaining(root)).toHaveLength(1);
    const noGrace = await cli(['gc', '--max-bytes', '0', '--grace', '0'], factoryFor(root));
    expect(noGrace.code).toBe(0);
    expect(await remaining(root)).toEqual([]);
  });

  it('shows the default grace as a duration in --help', async () => {
    const help = await cli(['gc', '--help'], factoryFor(join(base, 'unused')));
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/--grace <duration>[^()]*\([^()]*\)\s+\(default: 5m\)/);
    expect(help.stdout).not.toContain('300000');
    expect(help.stdout).toMatch(/--keep-referenced <files\.\.\.>/);
  });

  it('limits the sweep to one session with --session', async () => {
    const { root, locators } = await rootWithArtifacts(4);
    const result = await cli(['gc', '--older-than', '0s', '--session', 's1', '--json'], factoryFor(root));
    expect(result.code).toBe(0);
    // Artifacts 1 and 3 belong to session s1.
    expect(await remaining(root)).toEqual([locators[1], locators[3]].sort());
  });

  it('refuses malformed durations and sizes as usage errors', async () => {
    const { root } = await rootWithArtifacts(0);
    for (const args of [['--older-than', '7'], ['--older-than', '7 days'], ['--max-bytes', 'lots'], ['--grace', '-1m'], ['--grace', '300'], ['--grace', '0.5']]) {
      const result = await cli(['gc', ...args], factoryFor(root));
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/Expected a (duration|size)/);
    }
  });

  it('fails a missing transcript file as a usage error before deleting anything', async () => {
    const { root, locators } = await rootWithArtifacts(2);
    const result = await cli(['gc', '--max-bytes', '0', '--keep-referenced', join(base, 'nope.jsonl')], factoryFor(root));
    expect(result.code).toBe(2);
    expect(await remaining(root)).toEqual([...locators].sort());
  });

  it('refuses an unsafe root with its exit code', async () => {
    const root = join(base, 'world-writable');
    await mkdir(root, { mode: 0o777 });
    await chmod(root, 0o777);
    const result = await cli(['gc', '--older-than', '1d'], factoryFor(root));
    expect(result.code).toBe(6);
    expect(result.stderr).toContain('SPILL_UNSAFE_ROOT');
  });
});

/** A backend whose catalog holds `n` synthetic old artifacts and deletes nothing for real. */
function syntheticBackend(n: number): BackendFactory {
  const now = Date.now();
  const entries = function* (): Generator<SpillEntry> {
    for (let i = 0; i < n; i++) {
      yield { locator: spillLocator(`/synthetic/${String(i)}`), bytes: 10, createdAt: new Date(now - (i + 1) * DAY), session: 'session-x' };
    }
  };
  const unused = (): Promise<never> => Promise.reject(new Error('unused'));
  const backend: CliBackend = {
    specificationVersion: 'v1',
    name: 'synthetic',
    saveText: unused,
    saveTextStream: unused,
    reader: { read: unused, grep: unused },
    catalog: {
      // eslint-disable-next-line @typescript-eslint/require-await
      list: async function* () {
        yield* entries();
      },
      delete: () => Promise.resolve(true),
    },
  };
  return () => backend;
}

describe('the progress bar', () => {
  it('appears on a terminal for a sweep of more than 10,000 artifacts, and is cleared at the end', async () => {
    const result = await cli(['gc', '--max-bytes', '50000', '--dry-run'], syntheticBackend(12_000), true);
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/gc pass \d \((counting|sizing quotas|planning)\)/);
    expect(result.stderr).toMatch(/\[#*-*\]\s+\d+% [\d,]+\/12,000/);
    expect(result.stderr.endsWith('\r\u001b[K')).toBe(true);
    expect(result.stdout).toContain('Would delete 7,000 artifacts');
  });

  it('stays away from small sweeps, from pipes and from --json', async () => {
    const small = await cli(['gc', '--max-bytes', '0', '--dry-run'], syntheticBackend(9_000), true);
    expect(small.stderr).toBe('');
    const piped = await cli(['gc', '--max-bytes', '0', '--dry-run'], syntheticBackend(12_000), false);
    expect(piped.stderr).toBe('');
    const json = await cli(['gc', '--max-bytes', '0', '--dry-run', '--json'], syntheticBackend(12_000), true);
    expect(json.stderr).toBe('');
  });

  it('redraws at most every 100 ms, and when a new pass starts', () => {
    const out = capture(true);
    let t = 0;
    const bar = new ProgressBar(out.stream, false, () => t);
    const p = (seen: number): SweepProgress => ({ phase: 'delete', pass: 1, seen, total: 20_000, deleted: 5 });
    bar.update(p(11_000));
    t = 50;
    bar.update(p(12_000));
    t = 150;
    bar.update(p(13_000));
    t = 160;
    const next: SweepProgress = { ...p(1000), pass: 2 };
    bar.update(next);
    bar.done();
    expect(out.text().split('\r\u001b[K').filter((s) => s !== '')).toEqual([
      renderProgress(p(11_000), false),
      renderProgress(p(13_000), false),
      renderProgress(next, false),
    ]);
  });

  it('renders a counter while the total is unknown', () => {
    expect(renderProgress({ phase: 'scan', pass: 1, seen: 12_345, total: undefined, deleted: 0 }, false)).toBe('gc pass 1 (counting) 12,345 artifacts');
    expect(renderProgress({ phase: 'delete', pass: 3, seen: 5_000, total: 20_000, deleted: 10 }, true)).toBe(
      'gc pass 3 (planning) [######------------------]  25% 5,000/20,000, 10 to delete',
    );
  });
});

describe('the summary', () => {
  const base: RetentionReport = {
    kind: 'sweep',
    dryRun: false,
    complete: true,
    startedAt: new Date(0),
    durationMs: 1500,
    passes: 1,
    scanned: { count: 0, bytes: 0 },
    deleted: { count: 0, bytes: 0, byReason: { age: { count: 0, bytes: 0 }, 'session-quota': { count: 0, bytes: 0 }, 'total-quota': { count: 0, bytes: 0 }, purge: { count: 0, bytes: 0 } } },
    vanished: { count: 0, bytes: 0 },
    kept: { count: 0, bytes: 0, byReason: { grace: { count: 0, bytes: 0 }, keep: { count: 0, bytes: 0 } } },
    remaining: { count: 0, bytes: 0 },
    limits: {},
    entries: { deleted: [], kept: [], omitted: 0 },
    temp: null,
    errors: [],
    errorCount: 0,
    skipped: [],
  };

  it('says when no limit was given, and how long it took', () => {
    const text = formatGcSummary(base, { grace: 300_000 });
    expect(text).toBe(
      'Deleted nothing.\nLeft 0 artifacts (0 B).\nNo limit given (--older-than, --max-bytes, --max-session-bytes): only leftover temp files were cleaned.\nDone in 2s (1 pass over the catalog).\n',
    );
  });

  it('echoes a size limit in the units typed, with its exact bytes: 100MB stays 100MB, 100MiB stays 100MiB', async () => {
    const { root } = await rootWithArtifacts(2);
    for (const [typed, bytes] of [['100MB', '100,000,000'], ['100MiB', '104,857,600'], ['1.5G', '1,610,612,736'], ['64k', '65,536']] as const) {
      const r = await cli(['gc', '--max-bytes', typed, '--max-session-bytes', typed, '--dry-run'], factoryFor(root));
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`--max-bytes ${typed} (${bytes} bytes) is met.`);
      expect(r.stdout).not.toMatch(/95\.4 MiB/);
    }
    expect(echoLimit(4096, ' 4096 ')).toBe('4096 bytes');
    expect(echoLimit(2048, undefined)).toBe('2.0 KiB');
  });

  it('names the first error, temp files and an early stop', () => {
    const text = formatGcSummary(
      {
        ...base,
        complete: false,
        temp: { removed: 2, bytes: 2048 },
        errors: [{ phase: 'delete', locator: spillLocator('/r/x'), code: 'SPILL_STORAGE_FAILED', message: 'EIO\nboom' }],
        errorCount: 3,
      },
      { grace: 300_000, olderThan: DAY },
    );
    expect(text).toContain('Removed 2 leftover temp files (2.0 KiB).');
    expect(text).toContain('3 errors; first: /r/x: EIO\\nboom [SPILL_STORAGE_FAILED]');
    expect(text).toContain('The sweep stopped early');
  });
});

describe('the built binary', () => {
  it('expands the help example --keep-referenced ~/.agent/transcripts/*.jsonl through a real shell', async () => {
    ensureBuilt();
    const { root, locators } = await rootWithArtifacts(3);
    const dir = join(base, `transcripts-${String(counter)}`);
    await mkdir(dir);
    const hint = 'Use read with offset/limit, or grep this path to search within it.';
    for (const [i, locator] of [locators[0], locators[2]].entries()) {
      await writeFile(join(dir, `${String(i)}.jsonl`), `${formatSpillNotice({ omittedBytes: 1, locator: locator as SpillLocator, retrievalHint: hint })}\n`);
    }
    const script = `exec "$0" "$1" gc --max-bytes 0 --keep-referenced "$2"/*.jsonl`;
    const r = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      execFile('sh', ['-c', script, process.execPath, BIN, dir], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', SPILLWAY_ROOT: root, NO_COLOR: '1' } }, (error, _out, stderr) => {
        if (error === null) resolve({ code: 0, stderr });
        else if (typeof error.code === 'number') resolve({ code: error.code, stderr });
        else reject(new Error(`sh could not run spillway: ${error.message}`));
      });
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(await remaining(root)).toEqual([locators[0], locators[2]].sort());
  });

  it('runs gc --dry-run on a real root without deleting anything, then deletes for real', async () => {
    ensureBuilt();
    const { root, locators } = await rootWithArtifacts(5);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: join(base, 'home'), SPILLWAY_ROOT: root, NO_COLOR: '1' };
    const dry = await spillway(['gc', '--older-than', '2d12h', '--max-bytes', '0', '--dry-run'], { env });
    expect(dry.code).toBe(0);
    expect(dry.out).toContain('Would delete 5 artifacts (500 B): 3 older than 2d 12h, 2 over --max-bytes.');
    expect(await remaining(root)).toEqual([...locators].sort());
    const real = await spillway(['gc', '--older-than', '2d12h', '--json'], { env });
    expect(real.code).toBe(0);
    expect((JSON.parse(real.out) as { deleted: { count: number } }).deleted.count).toBe(3);
    expect(await remaining(root)).toEqual(locators.slice(0, 2).sort());
  });
});
