/**
 * One retention sweep, in its own process so that its memory is its own:
 * `node retention-child.js <spillway|baseline> <entries>`.
 *
 * It sweeps a generated catalog of `entries` artifacts down to half its bytes, with
 * `createRetention` or with the naive list-sort-delete, and prints one JSON line: the
 * sweep's result, the RSS just before it and the peak RSS (VmHWM) after it.
 */
import { createRetention } from '@spillway/retention';
import { peakRssBytes } from '../peak-rss.js';
import { sweepGenerated } from '../retention-catalog.js';

const [mode, countArg] = process.argv.slice(2);
const count = Number(countArg);
if ((mode !== 'spillway' && mode !== 'baseline') || !(count > 0)) {
  throw new TypeError('usage: retention-child.js <spillway|baseline> <entries>');
}

// Warm both code paths on a tiny catalog first, so that compiling them is not counted.
await sweepGenerated(mode, 1000, createRetention);
const rssBefore = process.memoryUsage().rss;
const result = await sweepGenerated(mode, count, createRetention);
const maxRss = peakRssBytes();
process.stdout.write(`${JSON.stringify({ ...result, rssBefore, maxRss })}\n`);
