// `spillway search` that must index first shows how far it has got on a terminal, and
// nothing once the index is up to date, nor when stderr is not a terminal.
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderIndexProgress } from './commands/search.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

const NEEDLE = 'FATAL: shard 17 ran out of inodes';

describe('spillway search progress', () => {
  let dir: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-search-progress-'));
    await chmod(dir, 0o700);
    await mkdir(join(dir, 'root'), { mode: 0o700 });
    env = { SPILLWAY_ROOT: join(dir, 'root'), SPILLWAY_SESSION: 'progress-s', NO_COLOR: '1' };
    const lines = Array.from({ length: 60_000 }, (_, i) => (i === 45_000 ? NEEDLE : `2026-12-03T09:00:00 worker ${String(i)} handled request ok`));
    const t = testIO({ env, stdin: `${lines.join('\n')}\n`, homedir: dir });
    expect(await main(['save', '--name', 'service.log'], t.io), t.stderr.text()).toBe(0);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const search = async (tty: boolean) => {
    const t = testIO({ env, homedir: dir });
    if (tty) t.stderr.stream.isTTY = true;
    const code = await main(['search', 'inodes', 'shard'], t.io);
    return { code, out: t.stdout.text(), err: t.stderr.text() };
  };

  it('draws a progress line while indexing on a terminal, erases it, then answers', async () => {
    const first = await search(true);
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain(NEEDLE);
    expect(first.err.startsWith(`\r\u001b[Kindexing 1 of 1 spilled output [${'-'.repeat(24)}]   0% 0 B of `)).toBe(true);
    expect(first.err).toContain(' MiB');
    expect(first.err.endsWith('\r\u001b[K')).toBe(true);
    // Indexed now: nothing to show.
    const second = await search(true);
    expect(second.out).toBe(first.out);
    expect(second.err).toBe('');
  });

  it('prints no progress when stderr is not a terminal', async () => {
    await rm(`${join(dir, 'root')}.search`, { recursive: true, force: true });
    const plain = await search(false);
    expect(plain.code, plain.err).toBe(0);
    expect(plain.out).toContain(NEEDLE);
    expect(plain.err).toBe('');
  });

  it('renders a line with the share of bytes done and the output being indexed', () => {
    expect(renderIndexProgress({ artifacts: 5, artifactsDone: 1, bytes: 4 * 1024 * 1024, bytesDone: 1024 * 1024 })).toBe(
      'indexing 2 of 5 spilled outputs [######------------------]  25% 1.0 MiB of 4.0 MiB',
    );
    expect(renderIndexProgress({ artifacts: 1, artifactsDone: 1, bytes: 0, bytesDone: 0 })).toBe('indexing 1 of 1 spilled output [########################] 100% 0 B of 0 B');
  });
});
