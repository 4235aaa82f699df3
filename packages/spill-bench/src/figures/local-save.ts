import { closeSync, constants, linkSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { open, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { microPair, type MicroTask } from '../micro.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { median } from '../stats.js';
import { textOfSize } from '../text.js';
import { privateDir, saveRequest } from './common.js';

const RAW = "writeFile(path, text, { flag: 'wx', mode: 0o600 })";
/** Saves in flight at once in the concurrent figure. */
const CONCURRENT = 64;

function specs(profile: Profile): FigureSpec[] {
  const { small, medium, large } = profile.localSizes;
  return [
    { id: 'local.save.small', title: `local saveText ${formatBytes(small)}`, baseline: RAW, unit: 'ms', target: ratioAtMost(1.5) },
    { id: 'local.save.medium', title: `local saveText ${formatBytes(medium)}`, baseline: RAW, unit: 'ms', target: ratioAtMost(1.3) },
    { id: 'local.save.large', title: `local saveText ${formatBytes(large)}`, baseline: RAW, unit: 'ms', target: ratioAtMost(1.15) },
    {
      id: 'local.save.concurrent',
      title: `local saveText ${formatBytes(small)}, ${String(CONCURRENT)} in flight`,
      baseline: `${String(CONCURRENT)} concurrent ${RAW}`,
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
    {
      id: 'local.save.durable',
      title: `local saveText ${formatBytes(medium)}, durable`,
      baseline: `${RAW} + fsync`,
      unit: 'ms',
      target: ratioAtMost(1.2),
    },
  ];
}

/** A micro-task that makes one file per call and deletes it, untimed, after each call. */
function fileTask(make: () => Promise<string>): MicroTask {
  const created: string[] = [];
  return {
    run: async () => {
      created.push(await make());
    },
    afterEach: async () => {
      for (const file of created.splice(0)) await unlink(file);
    },
  };
}

/**
 * Figure 2: `saveText` of the local backend against writing the same text with one
 * `writeFile` into the same session directory. The baseline is the least any private
 * file store must do (create exclusively, owner-only, write every byte); the difference
 * is spillway's root and directory checks, the temp-then-link publish and the re-check
 * after open. Each file is deleted after it is timed, so the directory stays small.
 */
export const localSaveGroup: FigureGroup = {
  name: 'local',
  specs,
  async run(ctx) {
    const { createLocalBackend } = await import('@spillway/local');
    const root = await privateDir(ctx.scratch, 'root');
    const backend = createLocalBackend({ root });
    const durable = createLocalBackend({ root, durable: true });
    // Learn the session directory, so the baseline writes next to spillway's files.
    const probe = await backend.saveText(saveRequest('probe'));
    const sessionDir = path.dirname(probe.locator);
    await unlink(probe.locator);
    let n = 0;
    const rawPath = (): string => path.join(sessionDir, `raw-${n++}.txt`);

    const { small, medium, large } = ctx.profile.localSizes;
    const plain = [
      { id: 'local.save.small', bytes: small },
      { id: 'local.save.medium', bytes: medium },
      { id: 'local.save.large', bytes: large },
    ];
    for (const c of plain) {
      const content = textOfSize(c.bytes);
      const heavy = c.bytes >= 8 * 1024 * 1024;
      ctx.log(`${c.id}: ${formatBytes(c.bytes)}`);
      let calls = 0;
      const samples = await microPair(
        heavy ? ctx.profile.localLarge.rounds : ctx.profile.microRounds,
        {
          spillway: fileTask(async () => (await backend.saveText(saveRequest(content, 'bench.txt', ++calls))).locator),
          baseline: fileTask(async () => {
            const file = rawPath();
            await writeFile(file, content, { flag: 'wx', mode: 0o600 });
            return file;
          }),
        },
        heavy
          ? { timeMs: 0, minIterations: ctx.profile.localLarge.savesPerRound, warmup: false }
          : { timeMs: ctx.profile.microTimeMs },
      );
      ctx.record(c.id, samples);
    }

    // Throughput under concurrency: one timed call is a batch of 64 saves started together,
    // against 64 writeFiles started together (the time ratio is the inverse throughput ratio).
    const smallText = textOfSize(small);
    ctx.log(`local.save.concurrent: ${String(CONCURRENT)} × ${formatBytes(small)}`);
    let batches = 0;
    const batchTask = (one: () => Promise<string>): MicroTask => {
      const created: string[] = [];
      return {
        run: async () => {
          created.push(...(await Promise.all(Array.from({ length: CONCURRENT }, one))));
        },
        afterEach: async () => {
          for (const file of created.splice(0)) await unlink(file);
        },
      };
    };
    const concurrent = await microPair(
      ctx.profile.microRounds,
      {
        spillway: batchTask(async () => (await backend.saveText(saveRequest(smallText, 'bench.txt', ++batches))).locator),
        baseline: batchTask(async () => {
          const file = rawPath();
          await writeFile(file, smallText, { flag: 'wx', mode: 0o600 });
          return file;
        }),
      },
      { timeMs: ctx.profile.microTimeMs },
    );
    // The floor of the save protocol itself, against the same baseline: the temp file, its
    // write, the no-clobber link and the unlink as bare synchronous calls, with none of the
    // checks. What separates spillway from it is the checks and the JavaScript around them.
    const createFlags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
    let bare = 0;
    const floor = await microPair(
      ctx.profile.microRounds,
      {
        spillway: batchTask(() => {
          const n = bare++;
          const temp = path.join(sessionDir, `.tmp-floor-${String(n)}`);
          const file = path.join(sessionDir, `floor-${String(n)}.txt`);
          const fd = openSync(temp, createFlags, 0o600);
          try {
            writeSync(fd, smallText);
            linkSync(temp, file);
            unlinkSync(temp);
          } finally {
            closeSync(fd);
          }
          return Promise.resolve(file);
        }),
        baseline: batchTask(async () => {
          const file = rawPath();
          await writeFile(file, smallText, { flag: 'wx', mode: 0o600 });
          return file;
        }),
      },
      { timeMs: ctx.profile.microTimeMs },
    );
    const floorRatio = median(floor.spillway.map((v, i) => v / (floor.baseline[i] ?? Number.NaN)));
    ctx.record('local.save.concurrent', {
      ...concurrent,
      notes: [
        `each timed call starts ${String(CONCURRENT)} saves at once and waits for all`,
        `the protocol's floor (create the temp file, write, link, unlink, close, as bare synchronous calls without checks) took ${floorRatio.toFixed(2)}× the baseline`,
      ],
    });

    const content = textOfSize(medium);
    ctx.log(`local.save.durable: ${formatBytes(medium)}`);
    const samples = await microPair(
      ctx.profile.microRounds,
      {
        spillway: fileTask(async () => (await durable.saveText(saveRequest(content))).locator),
        baseline: fileTask(async () => {
          const file = rawPath();
          const handle = await open(file, 'wx', 0o600);
          try {
            await handle.writeFile(content);
            await handle.sync();
          } finally {
            await handle.close();
          }
          return file;
        }),
      },
      { timeMs: ctx.profile.microTimeMs, minIterations: 4 },
    );
    ctx.record('local.save.durable', { ...samples, notes: ['spillway also fsyncs the session directory after publishing; the baseline does not'] });
  },
};
