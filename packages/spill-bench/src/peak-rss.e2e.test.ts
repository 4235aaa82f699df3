import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { measuredRun, parseVmHwm, peakRssBytes } from './peak-rss.js';

describe('parseVmHwm', () => {
  it('reads the peak resident set from /proc status text, in bytes', () => {
    const status = 'Name:\tnode\nVmPeak:\t 1130572 kB\nVmHWM:\t   40960 kB\nVmRSS:\t   39000 kB\n';
    expect(parseVmHwm(status)).toBe(40 * 1024 * 1024);
  });

  it('answers undefined when the line is missing', () => {
    expect(parseVmHwm('Name:\tnode\n')).toBeUndefined();
  });
});

describe('peakRssBytes', () => {
  it('is at least the resident set right now', () => {
    expect(peakRssBytes()).toBeGreaterThanOrEqual(process.memoryUsage().rss * 0.9);
  });

  it.runIf(process.platform === 'linux')('is not inflated by the parent, unlike getrusage in a fresh child', () => {
    // The parent holds 200 MiB; a child that inherits it through fork reports it as maxRSS.
    const ballast = Buffer.alloc(200 * 1024 * 1024, 1);
    const script = `
      const s = require('node:fs').readFileSync('/proc/self/status', 'utf8');
      const hwm = Number(/^VmHWM:\\s*(\\d+)/m.exec(s)[1]) * 1024;
      process.stdout.write(JSON.stringify({ hwm, maxRss: process.resourceUsage().maxRSS * 1024 }));`;
    const out = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8' });
    expect(ballast[0]).toBe(1);
    const { hwm, maxRss } = JSON.parse(out.stdout) as { hwm: number; maxRss: number };
    expect(maxRss).toBeGreaterThan(200 * 1024 * 1024);
    expect(hwm).toBeLessThan(150 * 1024 * 1024);
  });
});

describe('measuredRun', () => {
  it('answers the run\'s result with its time, the resident set before it and the peak, which is never below it', async () => {
    const measured = await measuredRun(() => Promise.resolve('done'));
    expect(measured.result).toBe('done');
    expect(measured.ms).toBeGreaterThanOrEqual(0);
    expect(measured.rssBefore).toBeGreaterThan(0);
    expect(measured.maxRss).toBeGreaterThanOrEqual(measured.rssBefore);
  });
});
