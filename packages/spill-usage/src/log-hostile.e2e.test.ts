// The usage log under hostile and damaged files: a FIFO at the log's path never blocks a
// writer or a reader, and lines that are not events are counted and skipped, so that one
// bad line cannot crash `spillway stats` or turn its totals into text.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
