/**
 * The hostile-pattern figure, in its own process so that a grep that never returns can
 * be killed without taking the harness with it:
 * `node grep-child.js <root> <lineBytes> <timeoutMs> <rounds> <pattern>`.
 *
 * It stores an artifact with one long line that the pattern backtracks on, runs
 * `grep` on it `rounds` times with the given time budget, and prints one JSON line:
 * each run's elapsed ms and outcome (an error code, or the number of matches).
 */
import { callId, isSpillError, sessionId } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';

const [root, lineArg, timeoutArg, roundsArg, pattern] = process.argv.slice(2);
const lineBytes = Number(lineArg);
const timeoutMs = Number(timeoutArg);
const rounds = Number(roundsArg);
if (root === undefined || pattern === undefined || !(lineBytes > 0) || !(timeoutMs > 0) || !(rounds > 0)) {
  throw new TypeError('usage: grep-child.js <root> <lineBytes> <timeoutMs> <rounds> <pattern>');
}

const backend = createLocalBackend({ root });
const reader = backend.reader;
const ref = await backend.saveText({
  owner: { sessionId: sessionId('bench-session') },
  source: { toolName: 'bench_tool', callId: callId('call-regex') },
  suggestedName: 'long-line.txt',
  content: `first line\n${'a'.repeat(lineBytes)}!\nlast line\n`,
});

const runs: { ms: number; outcome: string }[] = [];
for (let i = 0; i < rounds; i++) {
  const t0 = performance.now();
  let outcome: string;
  try {
    const result = await reader.grep(ref.locator, pattern, { timeoutMs });
    outcome = `${result.matches.length} match(es)`;
  } catch (error) {
    outcome = isSpillError(error) ? error.code : `threw ${String(error)}`;
  }
  runs.push({ ms: performance.now() - t0, outcome });
}
process.stdout.write(`${JSON.stringify(runs)}\n`);
