// spill_search through `spillway mcp` as a host drives it (the real filesystem server
// upstream, the built binary, newline-delimited JSON-RPC), and `spillway search` on the
// same store.
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseSpillNotice } from '@spillway/policy/notice';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND, ensureBuilt, spillway } from './test-bin.js';
import { host, INIT, text } from './test-mcp-host.js';

const mcpDir = dirname(createRequire(import.meta.url).resolve('@spillway/mcp/package.json'));
const fsServer = join(dirname(createRequire(join(mcpDir, 'package.json')).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
const NEEDLE = 'FATAL: disk quota exceeded on shard 17 (ENOSPC)';

describe('spill_search through spillway mcp, and spillway search', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    ensureBuilt();
    dir = await mkdtemp(join(tmpdir(), 'spillway-search-e2e-'));
    await chmod(dir, 0o700);
    await mkdir(join(dir, 'root'), { mode: 0o700 });
    await mkdir(join(dir, 'data'));
    const lines = Array.from({ length: 6000 }, (_, i) => (i === 4321 ? NEEDLE : `2026-12-01T10:00:${String(i % 60).padStart(2, '0')} worker ${String(i)} ok`));
    await writeFile(join(dir, 'data', 'service.log'), `${lines.join('\n')}\n`);
    await writeFile(join(dir, 'data', 'other.log'), 'nothing happened here\n'.repeat(4000));
    env = { ...process.env, SPILLWAY_ROOT: join(dir, 'root'), SPILLWAY_SESSION: 'conversation-s', NO_COLOR: '1' };
  });

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('offers spill_search, finds a line across the spills without a locator, and spill_read follows it', async () => {
    const rpc = host(['--max-inline-bytes', '4096', '--', process.execPath, fsServer, join(dir, 'data')], env);
    try {
      await rpc.call('initialize', INIT);
      const listed = await rpc.call('tools/list');
      const names = ((listed.result as { tools: { name: string }[] }).tools).map((t) => t.name);
      expect(names).toEqual(expect.arrayContaining(['spill_read', 'spill_grep', 'spill_search']));
      for (const file of ['service.log', 'other.log']) {
        const read = await rpc.call('tools/call', { name: 'read_text_file', arguments: { path: join(dir, 'data', file) } });
        expect(parseSpillNotice(text(read))).toBeDefined();
      }
      const found = await rpc.call('tools/call', { name: 'spill_search', arguments: { query: 'disk quota exceeded' } });
      const answer = text(found);
      expect(Buffer.byteLength(answer)).toBeLessThanOrEqual(4096);
      expect(answer).toContain(NEEDLE);
      const m = /^\[1\] (\S+) lines? (\d+)/m.exec(answer);
      expect(m).not.toBeNull();
      const back = await rpc.call('tools/call', { name: 'spill_read', arguments: { locator: m?.[1], offset: Number(m?.[2]), limit: 20 } });
      expect(text(back)).toContain(NEEDLE);
      const bad = await rpc.call('tools/call', { name: 'spill_search', arguments: { query: 42 } });
      expect((bad.result as { isError?: boolean }).isError).toBe(true);
    } finally {
      await rpc.end();
    }
  });

  it('leaves spill_search out with --no-search', async () => {
    const rpc = host(['--no-search', '--', process.execPath, fsServer, join(dir, 'data')], env);
    try {
      await rpc.call('initialize', INIT);
      const listed = await rpc.call('tools/list');
      expect(((listed.result as { tools: { name: string }[] }).tools).map((t) => t.name)).not.toContain('spill_search');
    } finally {
      await rpc.end();
    }
  });

  it('spillway search --json lists locator, startLine, endLine and text; scoped to the session unless --all-sessions', async () => {
    const ran = await spillway(['search', '--json', 'disk', 'quota'], { env });
    expect(ran.code).toBe(0);
    const json = JSON.parse(ran.out) as { session: string; results: { locator: string; startLine: number; endLine: number; text: string }[] };
    expect(json.session).toBe('conversation-s');
    expect(json.results[0]?.text).toContain(NEEDLE);
    expect(json.results[0]?.startLine).toBeLessThanOrEqual(4322);
    expect(json.results[0]?.endLine).toBeGreaterThanOrEqual(4322);
    const elsewhere = await spillway(['search', '--json', '--session', 'someone-else', 'disk quota'], { env });
    expect((JSON.parse(elsewhere.out) as { results: unknown[] }).results).toEqual([]);
    const all = await spillway(['search', '--json', '--all-sessions', 'disk quota'], { env: { ...env, SPILLWAY_SESSION: 'someone-else' } });
    expect((JSON.parse(all.out) as { results: { text: string }[] }).results[0]?.text).toContain(NEEDLE);
    const human = await spillway(['search', 'NEAR(', '"disk', 'quota*'], { env });
    expect(human.code).toBe(0);
    expect(human.out).toContain(NEEDLE);
    const both = await spillway(['search', '--session', 'x', '--all-sessions', 'q'], { env });
    expect(both.code).toBe(2);
  });

  it('refuses an empty query as a usage error worded for the shell, ending in its own code', async () => {
    const empty = await spillway(['search', ''], { env, entry: COMMAND });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toBe('spillway: error: `query` is missing: give a few words or "quoted phrases" to look for. [USAGE]\n');
  });

  it('refuses a query over the length limit as a usage error that gives the limit', async () => {
    const long = await spillway(['search', 'a'.repeat(2500)], { env, entry: COMMAND });
    expect(long.code).toBe(2);
    expect(long.stderr).toBe('spillway: error: The query is 2500 characters long; the limit is 2000. Search for a few distinctive words or a short "quoted phrase". [USAGE]\n');
    const json = await spillway(['search', '--json', 'a'.repeat(2001)], { env, entry: COMMAND });
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: { code: 'USAGE', exitCode: 2 } });
    const atLimit = await spillway(['search', 'a'.repeat(2000)], { env, entry: COMMAND });
    expect(atLimit.code).toBe(0);
  });

  it('says that snippets matched when the search itself had no room for one (a long section line)', async () => {
    const doc = `# ${'Section heading that is quite long indeed '.repeat(4)}\n${Array.from({ length: 50 }, (_, i) => `line ${String(i)} filler`).join('\n')}\nthe zebrafish quota exceeded here\n`;
    const own = { ...env, SPILLWAY_SESSION: 'conversation-long-section' };
    expect((await spillway(['save', '--name', 'a.md'], { env: own, entry: COMMAND, input: doc })).code).toBe(0);
    const json = await spillway(['search', '--json', '--max-bytes', '1000', 'zebrafish'], { env: own, entry: COMMAND });
    expect(JSON.parse(json.out)).toMatchObject({ results: [], more: true });
    const human = await spillway(['search', '--max-bytes', '1000', 'zebrafish'], { env: own, entry: COMMAND });
    expect(human.out).toMatch(/^Snippets match "zebrafish" but none fits in --max-bytes 1000/);
    const roomy = await spillway(['search', '--json', '--max-bytes', '4096', 'zebrafish'], { env: own, entry: COMMAND });
    expect((JSON.parse(roomy.out) as { results: { text: string }[] }).results[0]?.text).toContain('zebrafish quota exceeded');
  });

  it('says that snippets matched when none fits in --max-bytes, in text as in JSON', async () => {
    const json = await spillway(['search', '--json', '--max-bytes', '100', 'disk', 'quota'], { env, entry: COMMAND });
    expect(JSON.parse(json.out)).toMatchObject({ results: [], more: true });
    const human = await spillway(['search', '--max-bytes', '100', 'disk', 'quota'], { env, entry: COMMAND });
    expect(human.code).toBe(0);
    expect(human.out).toBe('Snippets match "disk quota" but none fits in --max-bytes 100: raise it (e.g. --max-bytes 4096) to see them.\n');
    const none = await spillway(['search', '--max-bytes', '100', 'zebra'], { env, entry: COMMAND });
    expect(none.out).toBe('No spilled artifact matches "zebra".\n');
  });
});
