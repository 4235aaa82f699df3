// A stream save holds descriptor permits while it waits for the caller's next chunk, so
// streams may only ever hold about half of them: a producer that itself saves, reads or
// deletes on the same backend always gets through.
import { describe, expect, it } from 'vitest';
import { createLocalBackend } from './index.js';
import { streamSlotCount } from './save.js';
import { freshRootEachTest, request, streamRequest } from './test-helpers.js';

let root: string;
freshRootEachTest('spill-local-stream-progress-', (dir) => {
  root = dir;
});

describe('stream saves never starve the rest of the backend', () => {
  it.each([4, 8, 64])('at maxOpenFiles %i, more streams than permits whose producers save between chunks all finish', { timeout: 60_000 }, async (maxOpenFiles) => {
    const backend = createLocalBackend({ root, maxOpenFiles });
    const streams = maxOpenFiles; // twice what the permits could hold at two each
    async function* producer(i: number): AsyncGenerator<string> {
      for (let c = 0; c < 3; c++) {
        // The producer needs the backend too, as a harness streaming one tool's output
        // while another tool's result is spilled would.
        await backend.saveText(request(`side ${String(i)}-${String(c)}`, 'side.txt', `p${String(i)}`));
        yield `chunk ${String(c)} of ${String(i)}\n`;
      }
    }
    const refs = await Promise.all(Array.from({ length: streams }, (_, i) => backend.saveTextStream(streamRequest(producer(i), 'out.log', `s${String(i)}`))));
    expect(refs).toHaveLength(streams);
    expect(refs.every((r) => r.bytes > 0)).toBe(true);
    const page = await backend.reader.read(refs[0]?.locator ?? ('' as never));
    expect(page.text).toBe('chunk 0 of 0\nchunk 1 of 0\nchunk 2 of 0\n');
  });

  it('streams get at most a quarter of maxOpenFiles as slots (at least one), so they hold at most half the descriptors', () => {
    expect([2, 3, 4, 8, 63, 64].map(streamSlotCount)).toEqual([1, 1, 1, 2, 15, 16]);
  });
});
