import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSpillError, sessionId } from '@spillway/core';
import { createLocalBackendWith } from './backend.js';
import { sessionDirName } from './names.js';
import { filesUnder, makeRoot, request } from './test-helpers.js';

let base: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root: base, cleanup } = makeRoot('spill-race-test-'));
  base = fs.realpathSync(base);
});
afterEach(() => {
  cleanup();
});

/**
 * A separate process that swaps the session directory for a symlink to `outside` and
 * back, as fast as it can, until killed. Two styles alternate: rename-away + symlink,
 * and the reverse, so every window between check and use is hit.
 */
const ATTACKER = `
const fs = require('node:fs');
const [session, outside] = process.argv.slice(1);
const away = session + '.away';
let swaps = 0;
process.stdout.write('ready\\n');
const burst = () => {
  for (let i = 0; i < 500; i++) {
    try { fs.renameSync(session, away); } catch {}
    try { fs.symlinkSync(outside, session); swaps++; } catch {}
    try { fs.unlinkSync(session); } catch {}
    try { fs.renameSync(away, session); } catch {
      // The backend recreated the directory in the gap: throw that one away.
      try { fs.rmSync(session, { recursive: true, force: true }); fs.renameSync(away, session); } catch {}
    }
  }
  process.stdout.write(' ' + swaps);
  setImmediate(burst); // lets SIGTERM in
};
burst();
`;

interface RaceOutcome {
  attempts: number;
  saved: number;
  refused: number;
  swaps: number;
  /** Files that appeared outside the root (the decoy excluded). */
  outsideFiles: string[];
  /** Reads that returned the decoy planted outside. */
  decoyReads: number;
  /** Successful saves whose locator, checked right after the race, leads outside the root or to other bytes. */
  misplaced: number;
}

/** Far more than the race needs even on a loaded 2-core machine; the tests' timeouts leave room for the checks after it. */
const RACE_SAFETY_MS = 150_000;
const RACE_TEST_TIMEOUT_MS = RACE_SAFETY_MS + 60_000;

/**
 * Races saves and reads against the attacker until both sides have done enough (at least
 * `minAttempts` saves and `minSwaps` swaps), not for a fixed time, so a loaded machine
 * makes the test slower rather than weaker. `safetyMs` only stops a run that cannot make
 * progress; the callers' assertions then fail.
 */
async function raceFor(minAttempts: number, minSwaps: number, procFd: boolean | undefined, safetyMs = RACE_SAFETY_MS): Promise<RaceOutcome> {
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root, { mode: 0o700 });
  fs.mkdirSync(outside, { mode: 0o700 });
  const backend = createLocalBackendWith({ root }, procFd === undefined ? {} : { procFd });
  // Create the session directory once, legitimately.
  const warm = await backend.saveText(request('warm-up'));
  const session = path.join(root, sessionDirName(sessionId('session-a')));
  // A decoy with the same leaf name where the symlink points: a read must never see it.
  const decoy = path.join(outside, path.basename(warm.locator));
  fs.writeFileSync(decoy, 'SECRET OUTSIDE THE ROOT', { mode: 0o600 });

  const attacker = spawn(process.execPath, ['-e', ATTACKER, session, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  attacker.stdout.setEncoding('utf8').on('data', (d: string) => { out += d; });
  await new Promise<void>((resolve) => {
    attacker.stdout.once('data', () => { resolve(); });
  });

  let attempts = 0;
  let saved = 0;
  let refused = 0;
  let readsOk = 0;
  let decoyReads = 0;
  const results: { locator: string; content: string }[] = [];
  const swapsSoFar = (): number => Number(out.trim().split(/\s+/).pop()) || 0;
  const deadline = Date.now() + safetyMs;
  try {
    while (Date.now() < deadline && (attempts < minAttempts || swapsSoFar() < minSwaps)) {
      const batch = Array.from({ length: 32 }, (_, i) => `race ${attempts + i} ${'z'.repeat(i * 10)}\n`);
      attempts += batch.length;
      const [settled, reads] = await Promise.all([
        Promise.allSettled(batch.map((c) => backend.saveText(request(c)))),
        Promise.allSettled(Array.from({ length: 8 }, () => backend.reader.read(warm.locator))),
      ]);
      for (const r of reads) {
        if (r.status === 'fulfilled') {
          readsOk++;
          if (r.value.text !== 'warm-up') decoyReads++;
        } else {
          expect(isSpillError(r.reason), String(r.reason)).toBe(true);
        }
      }
      settled.forEach((s, i) => {
        if (s.status === 'fulfilled') {
          saved++;
          results.push({ locator: s.value.locator, content: batch[i] ?? '' });
        } else {
          refused++;
          expect(isSpillError(s.reason), String((s.reason as Error | undefined)?.stack ?? s.reason)).toBe(true);
        }
      });
    }
  } finally {
    const exited = new Promise<void>((resolve) => attacker.once('exit', () => { resolve(); }));
    attacker.kill('SIGTERM');
    const force = setTimeout(() => attacker.kill('SIGKILL'), 2000);
    await exited;
    clearTimeout(force);
  }
  // Every save that succeeded named its file inside the root, and the file holds exactly
  // its content. (A file can be missing afterwards only because the attacker, not the
  // backend, threw a directory away: it renames a second session directory over another.)
  let misplaced = 0;
  for (const r of results) {
    expect(path.dirname(path.dirname(r.locator))).toBe(root);
    if (!fs.existsSync(r.locator)) continue;
    const real = fs.realpathSync(r.locator);
    if (!real.startsWith(`${root}/`) || fs.readFileSync(r.locator, 'utf8') !== r.content) misplaced++;
  }
  const swaps = swapsSoFar();
  const outsideFiles = filesUnder(outside).filter((f) => f !== decoy);
  expect(fs.readFileSync(decoy, 'utf8')).toBe('SECRET OUTSIDE THE ROOT');
  if (process.env.SPILL_RACE_STATS) console.log({ procFd, attempts, saved, refused, readsOk, decoyReads, misplaced, swaps, outside: outsideFiles.length });
  return { attempts, saved, refused, swaps, outsideFiles, decoyReads, misplaced };
}

describe('a directory swapped for a symlink between the check and the use (real race, separate process)', () => {
  it('with /proc descriptor anchoring: zero files outside the root over thousands of attempts, and no read of the decoy', async () => {
    const r = await raceFor(3000, 500, undefined);
    expect(r.attempts).toBeGreaterThanOrEqual(3000);
    expect(r.swaps).toBeGreaterThanOrEqual(500);
    expect(r.refused).toBeGreaterThan(0); // the attacker did get in the way
    expect(r.outsideFiles).toEqual([]);
    expect(r.decoyReads).toBe(0);
    expect(r.misplaced).toBe(0);
  }, RACE_TEST_TIMEOUT_MS);

  // Without /proc (not Linux) paths are all there is, and a same-user process that swaps
  // the session directory at exactly the right instants can beat any sequence of path
  // checks (see docs/security.md). This measures the fallback's behaviour under the same
  // attack and asserts only what it can promise: every call answers, with a result or a
  // SpillError, most redirections are refused, and the backend works afterwards.
  it('with the path fallback (no /proc): every call answers with a result or a SpillError, and redirections are refused', async () => {
    const r = await raceFor(2000, 100, false);
    expect(r.attempts).toBeGreaterThanOrEqual(2000);
    expect(r.swaps).toBeGreaterThanOrEqual(100);
    expect(r.refused).toBeGreaterThan(0);
  }, RACE_TEST_TIMEOUT_MS);
});
