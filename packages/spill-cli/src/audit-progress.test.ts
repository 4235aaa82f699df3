// `spillway audit` shows how far its reading is on a terminal, erases the line before the
// summary, and shows nothing on a pipe or for little to read.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderAuditProgress } from './commands/audit.js';
import { main } from './main.js';
import { testIO } from './test-io.js';

describe('spillway audit progress', () => {
  let dir: string;

  const transcript = async (name: string, calls: number): Promise<string> => {
    const lines = Array.from({ length: calls }, (_, c) => JSON.stringify({ session: name, tool: 'Bash', input: `cat part_${String(c)}.log`, output: `entry_${String(c)} ok\n`.repeat(9_000) }));
    const file = join(dir, `${name}.jsonl`);
    await writeFile(file, `${lines.join('\n')}\n`);
    return file;
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'spillway-audit-progress-'));
    await chmod(dir, 0o700);
    await mkdir(join(dir, 'big'));
    await mkdir(join(dir, 'small'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const audit = async (path: string, tty: boolean, json = false) => {
    const t = testIO({ env: { NO_COLOR: '1' }, homedir: dir });
    if (tty) t.stderr.stream.isTTY = true;
    const code = await main(['audit', '--host', 'generic', ...(json ? ['--json'] : []), path], t.io);
    return { code, out: t.stdout.text(), err: t.stderr.text() };
  };

  it('draws a progress line on a terminal, erases it, then prints the summary whole', async () => {
    // About 5 MiB over two files: over the 4 MiB from which a line is worth drawing.
    const big = join(dir, 'big');
    await transcript('big/one', 24);
    await transcript('big/two', 24);
    const shown = await audit(big, true);
    expect(shown.code, shown.err).toBe(0);
    expect(shown.err.startsWith(`\r\u001b[Kreading 1 of 2 transcript files [${'-'.repeat(24)}]   0% 0 B of `)).toBe(true);
    expect(shown.err).toContain(`reading 2 of 2 transcript files [${'#'.repeat(24)}] 100% `);
    expect(shown.err.endsWith('\r\u001b[K')).toBe(true);
    expect(shown.out).toMatch(/^generic: 2 transcript files, 2 sessions, 48 tool outputs/);
    // The same summary as on a pipe, where nothing is drawn.
    const piped = await audit(big, false);
    expect(piped.err).toBe('');
    expect(piped.out).toBe(shown.out);
    // --json on a terminal: the line goes to stderr, the document stays whole.
    const json = await audit(big, true, true);
    expect(json.err).toContain('reading 2 of 2');
    expect((JSON.parse(json.out) as { total: { calls: number } }).total.calls).toBe(48);
  });

  it('draws nothing for a little reading', async () => {
    await transcript('small/one', 2);
    const small = await audit(join(dir, 'small'), true);
    expect(small.code, small.err).toBe(0);
    expect(small.err).toBe('');
  });

  it('renders the file being read and the share of bytes done', () => {
    expect(renderAuditProgress({ files: 40, filesDone: 2, bytes: 400 * 1024 * 1024, bytesDone: 100 * 1024 * 1024 })).toBe('reading 3 of 40 transcript files [######------------------]  25% 100.0 MiB of 400.0 MiB');
    expect(renderAuditProgress({ files: 1, filesDone: 1, bytes: 0, bytesDone: 0 })).toBe('reading 1 of 1 transcript file [########################] 100% 0 B of 0 B');
    // A file that grew while it was read never takes the bar past its end.
    expect(renderAuditProgress({ files: 1, filesDone: 0, bytes: 1024, bytesDone: 4096 })).toBe('reading 1 of 1 transcript file [########################] 100% 1.0 KiB of 1.0 KiB');
  });
});
