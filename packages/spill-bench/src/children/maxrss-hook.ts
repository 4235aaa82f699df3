/**
 * Preloaded with `node --import` into a process under measurement. At exit it writes
 * the process's peak resident set size in bytes (see {@link peakRssBytes}) to the file
 * named by `SPILLWAY_BENCH_MAXRSS_FILE`. The variable is removed from the environment
 * first so that Node processes this one starts do not overwrite the answer.
 */
import { writeFileSync } from 'node:fs';
import { peakRssBytes } from '../peak-rss.js';

const target = process.env.SPILLWAY_BENCH_MAXRSS_FILE;
delete process.env.SPILLWAY_BENCH_MAXRSS_FILE;
if (target !== undefined && target !== '') {
  process.on('exit', () => {
    writeFileSync(target, String(peakRssBytes()));
  });
}
