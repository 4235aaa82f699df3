// The soak, bounded for the test suite: about half a minute of everything at once on one
// local backend, with injected faults and slow calls. Nothing here is timed: the
// assertions are on what settled, what was deleted, and what was left open.
import { describe, expect, it } from 'vitest';
import { runSoak } from './soak.js';

const SOAK_MS = Number(process.env.SPILLWAY_SOAK_TEST_MS ?? 30_000);
/**
 * A call pending this long counts as stalled. Generous: on a loaded machine a sweep with a
 * byte quota makes several passes over forty sessions while a dozen workers queue for the
 * same descriptors, and a sweep started on the timer may wait for one already running.
 */
const STALL_MS = 90_000;

describe('soak: one local backend under concurrent apply, stream, read, grep, purge and sweeps, with faults', () => {
  it('settles every call, deletes nothing saved after a sweep began, leaks no descriptor, and keeps the heap bounded', { timeout: SOAK_MS + 2 * STALL_MS + 60_000 }, async () => {
    // A save that outlives the stall budget is a stall too; a shorter save timeout would
    // count a slow machine's save as a failure.
    const result = await runSoak({ durationMs: SOAK_MS, stallMs: STALL_MS, saveTimeoutMs: STALL_MS });
    const summary = JSON.stringify({ ...result, samples: result.samples.length }, null, 1);
    // It really ran, with everything in the mix, and faults really hit.
    expect(result.calls.apply, summary).toBeGreaterThan(50);
    expect(result.calls.stream, summary).toBeGreaterThan(5);
    expect(result.calls.read + result.calls.grep, summary).toBeGreaterThan(10);
    expect(result.calls.sweep, summary).toBeGreaterThan(10);
    expect(result.spilled, summary).toBeGreaterThan(10);
    expect(result.faults, summary).toBeGreaterThan(0);
    // Nothing stalled, nothing broke the contract.
    expect(result.stalled, summary).toBe(0);
    expect(result.timeouts, summary).toBe(0);
    expect(result.unexpected, summary).toEqual([]);
    expect(result.deletedTooYoung, summary).toEqual([]);
    expect(result.incompleteReports, summary).toBe(0);
    // No descriptor leaked: the same count before the first call and after the last.
    if (result.fdsBefore >= 0) expect(result.fdsAfter, summary).toBeLessThanOrEqual(result.fdsBefore);
    // The heap after a full collection grew by less than 32 MiB over the run.
    expect(result.heapAfter - result.heapBefore, summary).toBeLessThan(32 * 1024 * 1024);
  });
});
