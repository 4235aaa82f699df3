// The usage log under hostile and damaged files: a FIFO at the log's path never blocks a
// writer or a reader, and lines that are not events are counted and skipped, so that one
// bad line cannot crash `spillway stats` or turn its totals into text.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createUsageLog, summarizeUsage, USAGE_FILE, USAGE_OLD_FILE } from './index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function logDir(): string {
  const base = mkdtempSync(join(tmpdir(), 'usage-hostile-'));
  dirs.push(base);
  const dir = join(base, 'usage');
  mkdirSync(dir, { mode: 0o700 });
  return dir;
}

describe('a hostile usage log', () => {
  it('a FIFO at either file blocks neither recording nor reading', { timeout: 5_000 }, () => {
    for (const name of [USAGE_FILE, USAGE_OLD_FILE]) {
      const dir = logDir();
      expect(spawnSync('mkfifo', [join(dir, name)]).status).toBe(0);
      const log = createUsageLog({ dir, env: {} });
      const started = Date.now();
      log.record({ kind: 'spilled', surface: 'hook', bytes: 10 });
      // The event goes to the current file when only the older generation is a FIFO.
      expect(log.scan()).toEqual({ events: name === USAGE_FILE ? [] : [expect.objectContaining({ kind: 'spilled', bytes: 10 })], skipped: 0 });
      expect(Date.now() - started).toBeLessThan(1_000);
    }
  });

  it('counts and skips lines that are not events (an infinite time, a count stored as text, junk)', () => {
    const dir = logDir();
    const good = { v: 1, t: 1_700_000_000_000, kind: 'spilled', surface: 'hook', tool: 'Bash', bytes: 5000, shownBytes: 400 };
    writeFileSync(
      join(dir, USAGE_FILE),
      [JSON.stringify(good), '{"v":1,"t":1e400,"kind":"passed","surface":"run","bytes":3}', JSON.stringify({ ...good, bytes: '100' }), JSON.stringify({ ...good, tool: 7 }), 'not json', ''].join('\n'),
      { mode: 0o600 },
    );
    const log = createUsageLog({ dir, env: {} });
    const { events, skipped } = log.scan();
    expect(skipped).toBe(4);
    expect(events).toEqual([good]);
    const stats = summarizeUsage(events);
    expect(stats.total.bytesSeen).toBe(5000);
    expect(typeof stats.total.bytesKeptOut).toBe('number');
    expect(stats.to).toBe(good.t);
  });
});

describe('several processes writing across a rotation', () => {
  it('loses no event: one rotation, whoever gets there first', { timeout: 120_000 }, async () => {
    const dir = logDir();
    const entry = join(fileURLToPath(new URL('.', import.meta.url)), '..', 'dist', 'index.js');
    // The current file is filled to just under the limit, then writers started together
    // each add a few events: every one of them finds the file due for rotation at once.
    const maxFileBytes = 100_000;
    const filler = createUsageLog({ dir, env: {}, maxFileBytes: 10 * maxFileBytes });
    let prefilled = 0;
    while ((statSync(join(dir, USAGE_FILE), { throwIfNoEntry: false })?.size ?? 0) < maxFileBytes - 200) {
      filler.record({ kind: 'passed', surface: 'hook', tool: 'filler', bytes: prefilled });
      prefilled++;
    }
    const writers = 16;
    const each = 3;
    const startAt = Date.now() + 1500;
    const script = `const { createUsageLog } = await import(${JSON.stringify(entry)});
const log = createUsageLog({ dir: ${JSON.stringify(dir)}, env: {}, maxFileBytes: ${String(maxFileBytes)} });
while (Date.now() < ${String(startAt)}) {}
for (let i = 0; i < ${String(each)}; i++) log.record({ kind: 'passed', surface: 'hook', tool: 'w' + process.argv[1], bytes: i });`;
    await Promise.all(
      Array.from({ length: writers }, (_, w) =>
        new Promise<void>((resolve, reject) => {
          const child = spawn(process.execPath, ['--input-type=module', '-e', script, String(w)], { stdio: 'ignore' });
          child.on('error', reject);
          child.on('close', (code) => {
            if (code === 0) resolve();
            else reject(new Error(`writer ${String(w)} exited ${String(code)}`));
          });
        }),
      ),
    );
    const { events, skipped } = createUsageLog({ dir, env: {} }).scan();
    expect(skipped).toBe(0);
    expect(events.filter((e) => e.tool === 'filler')).toHaveLength(prefilled);
    expect(events).toHaveLength(prefilled + writers * each);
  });
});
