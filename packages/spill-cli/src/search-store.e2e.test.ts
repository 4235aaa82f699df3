// `spillway search` over an object store keeps its index in a private per-user cache: a
// second search over an unchanged bucket indexes nothing, an object deleted from the
// bucket behind the CLI's back is never answered, and the cache can be turned off. A real
// s3rver on 127.0.0.1, the built binary in child processes.
import { existsSync, statSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DeleteObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { CLOCK_SLACK_MS } from '@spillway/retention';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway, type BinResult } from './test-bin.js';
import { host, INIT, text } from './test-mcp-host.js';
import { s3rverPerFile } from './test-s3rver.js';

const mcpDir = dirname(createRequire(import.meta.url).resolve('@spillway/mcp/package.json'));
const fsServer = join(dirname(createRequire(join(mcpDir, 'package.json')).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');

const BUCKET = 'cli-search';
const STORE = `s3://${BUCKET}/agents`;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(() => {
  ensureBuilt();
});
s3rverPerFile('spill-cli-s3-search-', BUCKET, (made, awsEnv) => {
  dir = made;
  env = { PATH: process.env.PATH, ...awsEnv, NO_COLOR: '1', SPILLWAY_STORE: STORE, SPILLWAY_SESSION: 'fleet-1' };
});

function run(args: readonly string[], extra: NodeJS.ProcessEnv = {}, input?: string): Promise<BinResult> {
  return spillway(args, { env: { ...env, ...extra }, ...(input === undefined ? {} : { input }), timeoutMs: 30_000 });
}

function log(word: string): string {
  return Array.from({ length: 400 }, (_, i) => `${String(i)} ${i === 250 ? `${word} failure on node 7` : 'heartbeat ok'}`).join('\n');
}

interface Searched {
  readonly results: { locator: string; text: string }[];
  readonly indexed: number;
  readonly dropped: number;
}

async function search(words: string, extra: NodeJS.ProcessEnv = {}, flags: readonly string[] = []): Promise<Searched> {
  const ran = await run(['search', '--json', '--verbose', ...flags, words], extra);
  expect(ran.code, ran.stderr).toBe(0);
  const counts = /index \S+: (\d+) artifacts indexed, (\d+) dropped/.exec(ran.stderr);
  expect(counts, ran.stderr).not.toBeNull();
  return {
    results: (JSON.parse(ran.out) as { results: { locator: string; text: string }[] }).results,
    indexed: Number(counts?.[1]),
    dropped: Number(counts?.[2]),
  };
}

describe('spillway search --store s3://…', () => {
  it('keeps the index in a private cache: an unchanged bucket is not indexed again; a deleted object is never answered', async () => {
    const cacheHome = join(dir, 'cache-a');
    const extra = { XDG_CACHE_HOME: cacheHome };
    const saved: string[] = [];
    for (const word of ['quartzite', 'obsidian']) {
      const out = await run(['save', '--name', `${word}.log`, '--json'], {}, log(word));
      expect(out.code, out.stderr).toBe(0);
      saved.push((JSON.parse(out.out) as { locator: string }).locator);
    }

    const first = await search('obsidian failure', extra);
    expect(first.indexed).toBe(2);
    expect(first.results[0]?.locator).toBe(saved[1]);
    expect(first.results[0]?.text).toContain('obsidian failure on node 7');

    const cacheDir = join(cacheHome, 'spillway', 'search');
    const keys = await readdir(cacheDir);
    expect(keys).toHaveLength(1);
    const file = join(cacheDir, keys[0] ?? '', 'index.sqlite');
    expect(statSync(join(cacheDir, keys[0] ?? '')).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const second = await search('obsidian failure', extra);
    expect(second).toMatchObject({ indexed: 0, dropped: 0 });
    expect(second.results).toEqual(first.results);

    // Deleted behind the CLI's back, straight from the bucket.
    // The SDK's Node version notice is noise in a test's output.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
    const client = new S3Client({ endpoint: env.AWS_ENDPOINT_URL_S3 ?? '', region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const key = (saved[1] ?? '').slice(`s3://${BUCKET}/`.length);
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }));
    client.destroy();
    delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
    const after = await search('obsidian failure', extra);
    expect(after.dropped).toBe(1);
    expect(after.results.map((r) => r.locator)).not.toContain(saved[1]);
    expect(after.results.some((r) => r.text.includes('obsidian'))).toBe(false);
    expect((await search('quartzite', extra)).results[0]?.locator).toBe(saved[0]);
  });

  it('keeps the index in memory with SPILLWAY_SEARCH_CACHE=0 or --no-index-cache: nothing is written, each run indexes again', async () => {
    const cacheHome = join(dir, 'cache-b');
    await run(['save', '--name', 'basalt.log'], {}, log('basalt'));
    for (const [extra, flags] of [[{ XDG_CACHE_HOME: cacheHome, SPILLWAY_SEARCH_CACHE: '0' }, []], [{ XDG_CACHE_HOME: cacheHome }, ['--no-index-cache']]] as const) {
      const once = await search('basalt failure', extra, flags);
      const twice = await search('basalt failure', extra, flags);
      expect(once.results[0]?.text).toContain('basalt failure on node 7');
      expect(twice.indexed).toBe(once.indexed);
      expect(twice.indexed).toBeGreaterThan(0);
    }
    expect(existsSync(join(cacheHome, 'spillway'))).toBe(false);
  });

  it('spillway mcp over the store searches through the same cache, and keeps its index for its life', async () => {
    const cacheHome = join(dir, 'cache-d');
    const extra = { XDG_CACHE_HOME: cacheHome };
    await run(['save', '--name', 'gneiss.log'], {}, log('gneiss'));
    const rpc = host(['--', process.execPath, fsServer, dir], { ...env, ...extra });
    try {
      await rpc.call('initialize', INIT);
      const ask = async (query: string): Promise<string> => text(await rpc.call('tools/call', { name: 'spill_search', arguments: { query } }));
      expect(await ask('gneiss failure')).toContain('gneiss failure on node 7');
      // The proxy's index is the cache file spillway search uses: it finds it filled.
      expect(await readdir(join(cacheHome, 'spillway', 'search'))).toHaveLength(1);
      const after = await search('gneiss failure', extra);
      expect(after.indexed).toBe(0);
      expect(await ask('gneiss failure')).toContain('gneiss failure on node 7');
    } finally {
      await rpc.end();
    }
  });

  it('spillway gc over the store drops what it deleted from the cached index', async () => {
    const cacheHome = join(dir, 'cache-e');
    const extra = { XDG_CACHE_HOME: cacheHome, SPILLWAY_STORE: `s3://${BUCKET}/swept` };
    await run(['save', '--name', 'marble.log'], extra, log('marble'));
    expect((await search('marble failure', extra)).results).toHaveLength(1);
    // Retention never deletes anything younger than its one-second clock slack.
    await new Promise((resolve) => setTimeout(resolve, CLOCK_SLACK_MS + 100));
    const swept = await run(['gc', '--older-than', '0', '--grace', '0', '--json'], extra);
    expect(swept.code, swept.stderr).toBe(0);
    const index = (JSON.parse(swept.out) as { index: { location: string; removed: number; error: unknown } }).index;
    expect(index).toMatchObject({ removed: 1, error: null });
    expect(index.location.startsWith(join(cacheHome, 'spillway', 'search'))).toBe(true);
    expect((await search('marble failure', extra)).results).toEqual([]);
  });

  it('one cache per store: another prefix of the same bucket has its own index', async () => {
    const cacheHome = join(dir, 'cache-c');
    await search('heartbeat', { XDG_CACHE_HOME: cacheHome });
    await search('heartbeat', { XDG_CACHE_HOME: cacheHome, SPILLWAY_STORE: `s3://${BUCKET}/other` });
    expect(await readdir(join(cacheHome, 'spillway', 'search'))).toHaveLength(2);
  });
});
