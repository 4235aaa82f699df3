#!/usr/bin/env node
/**
 * The long soak: `node dist/soak-main.js --duration 30m`. Prints a sample line on stderr
 * every `--every` (calls per second over the interval, open descriptors, RSS, heap), then
 * a Markdown table of the samples and a verdict on stdout. Exits 1 when a call stalled,
 * broke the contract, a sweep deleted something saved after it began, or descriptors
 * leaked.
 */
import { parseArgs } from 'node:util';
import { parseDuration } from '@spillway/retention';
import { runSoak, type SoakSample } from './soak.js';

const HELP = `Usage: node dist/soak-main.js [--duration 30m] [--every 10s] [--workers 12] [--max-open-files 16]

  --duration D        how long to run (default 30m; e.g. 2m, 1h)
  --every D           sample interval (default 10s)
  --workers N         concurrent workers (default 12)
  --max-open-files N  the backend's maxOpenFiles (default 16)
  --fault-rate R      share of file-system calls that fail (default 0.01)
  --help              this text`;

function mib(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    // `pnpm soak -- --duration 2m` hands the script a literal `--` or two: skip them.
    args: process.argv.slice(2).filter((a) => a !== '--'),
    options: {
      duration: { type: 'string', default: '30m' },
      every: { type: 'string', default: '10s' },
      workers: { type: 'string', default: '12' },
      'max-open-files': { type: 'string', default: '16' },
      'fault-rate': { type: 'string', default: '0.01' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const durationMs = parseDuration(values.duration);
  const sampleEveryMs = parseDuration(values.every);
  let last: SoakSample | undefined;
  const rows: string[] = [];
  const row = (s: SoakSample): string => {
    const since = last === undefined ? s.atMs : s.atMs - last.atMs;
    const rate = ((s.calls - (last?.calls ?? 0)) / (since / 1000)).toFixed(0);
    return `| ${(s.atMs / 1000).toFixed(0)} s | ${rate} | ${String(s.fds)} | ${mib(s.rss)} | ${mib(s.heapUsed)} |`;
  };
  process.stderr.write(`soak: running for ${values.duration}, a sample every ${values.every}\n`);
  const result = await runSoak({
    durationMs,
    sampleEveryMs,
    workers: Number(values.workers),
    maxOpenFiles: Number(values['max-open-files']),
    faultRate: Number(values['fault-rate']),
    stallMs: 120_000,
    onSample: (s) => {
      const line = row(s);
      rows.push(line);
      last = s;
      process.stderr.write(`soak: ${line}\n`);
    },
  });
  const total = Object.values(result.calls).reduce((a, b) => a + b, 0);
  const out = [
    `Soak: ${(result.durationMs / 1000).toFixed(0)} s, ${String(total)} calls (${result.callsPerSecond.toFixed(0)}/s): ${JSON.stringify(result.calls)}`,
    `slowest call by kind (ms): ${JSON.stringify(Object.fromEntries(Object.entries(result.maxLatencyMs).map(([k, v]) => [k, Math.round(v)])))}`,
    `spilled ${String(result.spilled)}, kept inline ${JSON.stringify(result.kept)}, faults injected ${String(result.faults)}`,
    `stalled ${String(result.stalled)}, save timeouts ${String(result.timeouts)}, deleted too young ${String(result.deletedTooYoung.length)}, unexpected ${String(result.unexpected.length)}, sweeps/purges stopped early ${String(result.stoppedEarly)}`,
    `stopped early by: ${JSON.stringify(result.stoppedEarlyBy)}`,
    `fds ${String(result.fdsBefore)} → ${String(result.fdsAfter)}, heap ${mib(result.heapBefore)} → ${mib(result.heapAfter)} MiB`,
    '',
    '| time | calls/s | open fds | RSS MiB | heap MiB |',
    '|---:|---:|---:|---:|---:|',
    ...rows,
    '',
  ];
  process.stdout.write(out.join('\n'));
  for (const u of [...result.unexpected, ...result.deletedTooYoung]) process.stderr.write(`soak: ${u}\n`);
  const leaked = result.fdsBefore >= 0 && result.fdsAfter > result.fdsBefore;
  const failed = result.stalled > 0 || result.timeouts > 0 || result.unexpected.length > 0 || result.deletedTooYoung.length > 0 || leaked;
  process.stdout.write(failed ? 'Verdict: FAILED\n' : 'Verdict: held\n');
  return failed ? 1 : 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`soak: crashed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  },
);
