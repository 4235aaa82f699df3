import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { microPair } from '../micro.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { textOfSize } from '../text.js';
import { saveRequest } from './common.js';

/** Saves per timed call: one save is about a microsecond. */
const BATCH = 100;
/** Both sides hold at most this much, so neither grows without bound during the run. */
const HELD_BYTES = 16 * 1024 * 1024;

function specs(profile: Profile): FigureSpec[] {
  return [
    {
      id: 'memory.save',
      title: `memory saveText ${formatBytes(profile.memoryBytes)}`,
      baseline: 'map.set(key, Buffer.from(text))',
      unit: 'ms',
      target: ratioAtMost(3),
    },
  ];
}

/**
 * Figure 3: the memory backend's `saveText` against the bare minimum of keeping UTF-8
 * bytes in a map. Both sides are bounded to the same total (the backend evicts, the map
 * overwrites a ring of keys), so both pay for releasing old buffers.
 */
export const memorySaveGroup: FigureGroup = {
  name: 'memory',
  specs,
  async run(ctx) {
    const { createMemoryBackend } = await import('@spillway/memory');
    const bytes = ctx.profile.memoryBytes;
    const content = textOfSize(bytes);
    const backend = createMemoryBackend({ maxBytes: HELD_BYTES });
    const slots = Math.max(1, Math.floor(HELD_BYTES / bytes));
    const map = new Map<string, Buffer>();
    let n = 0;
    let i = 0;
    ctx.log(`memory.save: ${formatBytes(bytes)}`);
    const samples = await microPair(
      ctx.profile.microRounds,
      {
        spillway: { run: () => backend.saveText(saveRequest(content, 'bench.txt', ++n)) },
        baseline: {
          run: () => {
            map.set(`k${i++ % slots}`, Buffer.from(content));
          },
        },
      },
      { timeMs: ctx.profile.microTimeMs, batch: BATCH },
    );
    ctx.record('memory.save', samples);
  },
};
