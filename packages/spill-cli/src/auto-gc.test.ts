import { mkdirSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sessionId, callId } from '@spillway/core';
import { createLocalBackend } from '@spillway/local';
import { parseByteSize, parseDuration } from '@spillway/retention';
import { AUTO_GC_DEFAULTS, AUTO_GC_STAMP, autoGcDue, autoGcSettings, releaseAutoGcLock, takeAutoGcLock, touchAutoGcStamp } from './auto-gc.js';
import { main } from './main.js';
import { testIO } from './test-io.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const tmp = tempDirsPerTest('auto-gc-');
const settings = (env: Record<string, string>, home = '/nonexistent'): ReturnType<typeof autoGcSettings> => autoGcSettings(env, home, parseDuration, parseByteSize);

describe('automatic retention settings', () => {
  it('defaults to 7 days, 2 GiB, once an hour', () => {
    expect(settings({})).toEqual(AUTO_GC_DEFAULTS);
    expect(AUTO_GC_DEFAULTS).toMatchObject({ enabled: true, maxAgeMs: 7 * 86_400_000, maxTotalBytes: 2 * 1024 ** 3, intervalMs: 3_600_000 });
  });

  it('reads the config file, then the environment; off either way; a bad value keeps the one before', () => {
    const home = tmp();
    mkdirSync(join(home, '.config', 'spillway'), { recursive: true });
    writeFileSync(join(home, '.config', 'spillway', 'config.json'), JSON.stringify({ autoGc: { maxAge: '14d', maxBytes: '5GB', interval: '6h' } }));
    expect(settings({}, home)).toMatchObject({ enabled: true, maxAgeMs: 14 * 86_400_000, maxTotalBytes: 5e9, intervalMs: 6 * 3_600_000 });
    expect(settings({ SPILLWAY_AUTO_GC_MAX_AGE: '1d', SPILLWAY_AUTO_GC_INTERVAL: 'soon' }, home)).toMatchObject({ maxAgeMs: 86_400_000, intervalMs: 6 * 3_600_000 });
    expect(settings({ SPILLWAY_AUTO_GC: 'off' }, home).enabled).toBe(false);
    writeFileSync(join(home, '.config', 'spillway', 'config.json'), JSON.stringify({ autoGc: false }));
    expect(settings({}, home).enabled).toBe(false);
    expect(settings({ SPILLWAY_AUTO_GC: 'on' }, home).enabled).toBe(true);
  });
});

describe('the sweep schedule and lock', () => {
  it('is due without a stamp, not due within the interval, due again after it', () => {
    const root = tmp();
    const s = settings({});
    expect(autoGcDue(root, s)).toBe(true);
    touchAutoGcStamp(root, Date.now());
    expect(autoGcDue(root, s)).toBe(false);
    expect(autoGcDue(root, s, Date.now() + s.intervalMs + 1000)).toBe(true);
    expect(autoGcDue(root, { ...s, enabled: false })).toBe(false);
  });

  it('one holder at a time; a stale lock is taken over', () => {
    const root = tmp();
    expect(takeAutoGcLock(root)).toBe(true);
    expect(takeAutoGcLock(root)).toBe(false);
    const old = (Date.now() - 11 * 60_000) / 1000;
    utimesSync(join(root, '.auto-gc-lock'), old, old);
    expect(takeAutoGcLock(root)).toBe(true);
    releaseAutoGcLock(root);
    expect(takeAutoGcLock(root)).toBe(true);
  });

  it('gc-auto deletes what is older than the age limit, once per interval, and never while another holds the lock', async () => {
    const root = tmp();
    const home = tmp();
    const backend = createLocalBackend({ root });
    const save = (name: string) =>
      backend.saveText({ owner: { sessionId: sessionId('s') }, source: { toolName: 't', callId: callId(name), label: name }, suggestedName: `${name}.txt`, content: name.repeat(100) });
    const old = await save('old');
    const fresh = await save('fresh');
    const longAgo = (Date.now() - 8 * 86_400_000) / 1000;
    utimesSync(old.locator, longAgo, longAgo);
    const run = async (): Promise<number> => main(['gc-auto', '--root', root], testIO({ env: {}, homedir: home }).io);

    expect(takeAutoGcLock(root)).toBe(true);
    expect(await run()).toBe(0);
    expect(existsSync(old.locator)).toBe(true);
    releaseAutoGcLock(root);

    expect(await run()).toBe(0);
    expect(existsSync(old.locator)).toBe(false);
    expect(existsSync(fresh.locator)).toBe(true);
    expect(existsSync(join(root, AUTO_GC_STAMP))).toBe(true);
    expect(existsSync(join(root, '.auto-gc-lock'))).toBe(false);

    const again = await save('again');
    utimesSync(again.locator, longAgo, longAgo);
    expect(await run()).toBe(0);
    expect(existsSync(again.locator)).toBe(true); // within the interval: no second sweep
  });
});
