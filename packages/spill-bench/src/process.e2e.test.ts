import { describe, expect, it } from 'vitest';
import { assertSucceeded, runProcess } from './process.js';

describe('runProcess', () => {
  it('times a process and captures its output and exit code', async () => {
    const run = await runProcess('sh', ['-c', 'printf hello; echo oops >&2; exit 3'], { captureStdout: true });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('hello');
    expect(run.stderr).toBe('oops\n');
    expect(run.wallMs).toBeGreaterThan(0);
    expect(() => { assertSucceeded(run, 'the script'); }).toThrow(/the script exited with 3: oops/);
  });

  it('kills a process that outlives its deadline and says so', async () => {
    // The process would outlive the test: only the kill can end it within the test's
    // timeout, however slow the machine is, so no bound on the wall time is needed.
    const run = await runProcess('sleep', ['600'], { deadlineMs: 100 });
    expect(run.timedOut).toBe(true);
    expect(run.signal).toBe('SIGKILL');
  });

  it('passes extra environment variables', async () => {
    const run = await runProcess('sh', ['-c', 'printf %s "$BENCH_TEST_VAR"'], { captureStdout: true, env: { BENCH_TEST_VAR: 'x1' } });
    expect(run.stdout).toBe('x1');
  });
});
