import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sessionId } from '@spillway/core';
import type { SpillEntry } from '@spillway/core';
import { createLocalBackend } from './index.js';
import { sessionDirName } from './names.js';
import { DIST_INDEX, makeRoot } from './test-helpers.js';

let base: string;
let root: string;
let cleanup: () => void;
beforeEach(() => {
  ({ root: base, cleanup } = makeRoot('spill-crash-test-'));
  root = path.join(fs.realpathSync(base), 'root');
  fs.mkdirSync(root, { mode: 0o700 });
});
afterEach(() => {
  cleanup();
});

/** Starts a child running `body` with `backend` in scope; resolves once it prints "ready". */
function startChild(body: string): Promise<ReturnType<typeof spawn>> {
  const source = `
    const { createLocalBackend } = await import(${JSON.stringify(DIST_INDEX)});
    const backend = createLocalBackend({ root: ${JSON.stringify(root)} });
    const req = (content, name) => ({ owner: { sessionId: 'crash' }, source: { toolName: 't', callId: 'c' }, suggestedName: name, content });
    process.stdout.write('ready\\n');
    ${body}
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.stdout.once('data', () => { resolve(child); });
  });
}

function kill(child: ReturnType<typeof spawn>): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => { resolve(); });
    child.kill('SIGKILL');
  });
}

const sessionDir = (): string => path.join(root, sessionDirName(sessionId('crash')));

async function listAll(): Promise<SpillEntry[]> {
  const out: SpillEntry[] = [];
  for await (const e of createLocalBackend({ root }).catalog.list()) out.push(e);
  return out;
}

describe('a process killed (SIGKILL) mid-save', () => {
  it('leaves no final name, only a temp file that sweepTemp removes', async () => {
    const child = await startChild(`
      async function* endless() {
        for (let i = 0; ; i++) {
          yield 'line ' + i + ' ' + 'x'.repeat(100) + '\\n';
          if (i % 500 === 0) await new Promise((r) => setImmediate(r));
        }
      }
      await backend.saveTextStream({ ...req('', 'endless.log'), content: endless() });
    `);
    // Kill it once the temp file holds a few MiB, in the middle of the stream (or after 20 s
    // with less, but never before some bytes landed: a slow machine only waits longer).
    const deadline = Date.now() + 20_000;
    let tempSize = 0;
    while ((Date.now() < deadline || tempSize === 0) && tempSize < 4 * 1024 * 1024) {
      await new Promise((r) => setTimeout(r, 20));
      const temps = fs.existsSync(sessionDir()) ? fs.readdirSync(sessionDir()).filter((n) => n.startsWith('.tmp-')) : [];
      tempSize = temps.reduce((sum, n) => sum + fs.statSync(path.join(sessionDir(), n)).size, 0);
    }
    await kill(child);
    expect(tempSize).toBeGreaterThan(0);
    const names = fs.readdirSync(sessionDir());
    expect(names.every((n) => /^\.tmp-[0-9a-f]{32}$/.test(n))).toBe(true);
    expect(await listAll()).toEqual([]);

    const backend = createLocalBackend({ root });
    // A sweep with a cutoff in the future keeps the (recent) leftover…
    expect(await backend.catalog.sweepTemp({ olderThanMs: 3_600_000 })).toEqual({ removed: 0, bytes: 0 });
    // …and one with no grace removes it.
    const swept = await backend.catalog.sweepTemp({ olderThanMs: 0 });
    expect(swept.removed).toBe(names.length);
    expect(swept.bytes).toBeGreaterThan(0);
    expect(fs.readdirSync(sessionDir())).toEqual([]);
  });

  it('never leaves a partial file under a final name, whenever the kill lands (repeated)', async () => {
    const content = Array.from({ length: 4000 }, (_, i) => `complete line ${i} ${'y'.repeat(40)}\n`).join('');
    for (let round = 0; round < 6; round++) {
      const child = await startChild(`
        const content = Array.from({ length: 4000 }, (_, i) => 'complete line ' + i + ' ' + 'y'.repeat(40) + '\\n').join('');
        for (let i = 0; ; i++) await backend.saveText(req(content, 'whole-' + i + '.txt'));
      `);
      await new Promise((r) => setTimeout(r, 40 + round * 45));
      // The last kill waits for a published artifact, so that there is always one to check,
      // however slow the machine is; the earlier ones land wherever the delay put them.
      while (round === 5 && !fs.readdirSync(sessionDir()).some((n) => !n.startsWith('.tmp-'))) await new Promise((r) => setTimeout(r, 10));
      await kill(child);
    }
    const published = fs.readdirSync(sessionDir()).filter((n) => !n.startsWith('.tmp-'));
    expect(published.length).toBeGreaterThan(0);
    for (const name of published) expect(fs.readFileSync(path.join(sessionDir(), name), 'utf8')).toBe(content);
    // A kill between the publishing link and the temp unlink leaves a complete final name
    // that still has two links; the catalog and reader hide it until sweepTemp removes the
    // temp name, so compare the listing only after the sweep.
    const hidden = published.filter((name) => fs.statSync(path.join(sessionDir(), name)).nlink > 1);
    expect((await listAll()).length).toBe(published.length - hidden.length);
    await createLocalBackend({ root }).catalog.sweepTemp({ olderThanMs: 0 });
    expect(fs.readdirSync(sessionDir()).filter((n) => n.startsWith('.tmp-'))).toEqual([]);
    const listed = await listAll();
    expect(listed.length).toBe(published.length);
    for (const e of listed) expect(e.bytes).toBe(Buffer.byteLength(content));
  }, 60_000);
});
