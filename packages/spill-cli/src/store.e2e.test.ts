// `spillway` against an object store: a real s3rver on 127.0.0.1 started by this file, the
// built binary in child processes, credentials and endpoint from the AWS environment.
import { CLOCK_SLACK_MS } from '@spillway/retention';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadStoreSupport, resolveStore } from './store.js';
import { ensureBuilt, spillway, type BinResult } from './test-bin.js';
import { s3rverPerFile } from './test-s3rver.js';

const BUCKET = 'cli-spill';
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  ensureBuilt();
  await loadStoreSupport([], {}, true);
});
s3rverPerFile('spill-cli-s3-', BUCKET, (made, awsEnv) => {
  dir = made;
  env = { PATH: process.env.PATH, ...awsEnv, NO_COLOR: '1' };
});

function run(args: readonly string[], extra: NodeJS.ProcessEnv = {}, input?: string): Promise<BinResult> {
  return spillway(args, { env: { ...env, ...extra }, ...(input === undefined ? {} : { input }), timeoutMs: 30_000 });
}

describe('spillway --store s3://bucket/prefix', () => {
  it('runs a command, spills its output to the bucket, and reads and greps it back', async () => {
    const store = `s3://${BUCKET}/run`;
    const script = 'for (let i = 1; i <= 3000; i++) console.log(`line ${i}${i % 1000 === 0 ? " MARK" : ""}`)';
    const ran = await run(['run', '--store', store, '--max-inline-bytes', '2000', '--', process.execPath, '-e', script]);
    expect(ran.code).toBe(0);
    const locator = /stored at: (s3:\/\/\S+\.txt)\. /.exec(ran.out)?.[1];
    expect(locator).toMatch(new RegExp(`^s3://${BUCKET}/run/session-[0-9a-f]{32}/[0-9a-f]{20}-`));

    const read = await run(['read', locator ?? '', '--offset', '1999', '--limit', '2', '--json'], { SPILLWAY_STORE: store });
    expect(read.code).toBe(0);
    expect((JSON.parse(read.out) as { text: string }).text).toBe('line 1999\nline 2000 MARK\n');

    const grep = await run(['grep', locator ?? '', 'MARK', '--json'], { SPILLWAY_STORE: store });
    expect((JSON.parse(grep.out) as { matches: { line: number }[] }).matches.map((m) => m.line)).toEqual([1000, 2000, 3000]);
  });

  it('follows a printed s3:// locator with nothing else given: read, grep, cat and rm', async () => {
    const store = `s3://${BUCKET}/follow/deep`;
    const saved = await run(['save', '--name', 'log.txt', '--json'], { SPILLWAY_STORE: store }, 'alpha\nbeta NEEDLE\ngamma\n');
    const { locator } = JSON.parse(saved.out) as { locator: string };
    expect(locator.startsWith(`${store}/session-`)).toBe(true);
    const read = await run(['read', locator, '--offset', '2', '--limit', '1', '--json']);
    expect(read.code).toBe(0);
    expect((JSON.parse(read.out) as { text: string }).text).toBe('beta NEEDLE\n');
    expect((await run(['grep', locator, 'NEEDLE'])).out).toContain('2:beta NEEDLE');
    expect((await run(['cat', locator])).out).toBe('alpha\nbeta NEEDLE\ngamma\n');
    expect((await run(['rm', locator])).code).toBe(0);
    expect((await run(['read', locator])).code).toBe(3);
  });

  it('saves stdin, lists, removes, and collects garbage', async () => {
    const extra = { SPILLWAY_STORE: `s3://${BUCKET}/team-a` };
    const saved = await run(['save', '--name', 'notes.md', '--session', 'cli', '--json'], extra, 'hello ✓\n'.repeat(10));
    expect(saved.code).toBe(0);
    const ref = JSON.parse(saved.out) as { locator: string; bytes: number };
    expect(ref.bytes).toBe(Buffer.byteLength('hello ✓\n') * 10);
    await run(['save', '--session', 'cli'], extra, 'second\n');

    const listed = JSON.parse((await run(['ls', '--json'], extra)).out) as { entries: { locator: string }[] };
    expect(listed.entries).toHaveLength(2);
    expect(listed.entries.map((e) => e.locator)).toContain(ref.locator);

    expect(await run(['rm', ref.locator], extra)).toMatchObject({ code: 0, out: `removed ${ref.locator}\n` });
    expect((await run(['rm', ref.locator], extra)).code).toBe(3);

    // gc never deletes an artifact younger than retention's one-second clock slack, whatever
    // --grace says; on a fast host the commands above can take less.
    await new Promise((resolve) => setTimeout(resolve, CLOCK_SLACK_MS + 100));
    const gc = await run(['gc', '--max-bytes', '0', '--grace', '0'], extra);
    expect(gc.code).toBe(0);
    expect(JSON.parse((await run(['ls', '--json'], extra)).out)).toMatchObject({ entries: [] });
  });

  it('refuses a locator of another prefix with exit code 4', async () => {
    const saved = await run(['save', '--json'], { SPILLWAY_STORE: `s3://${BUCKET}/one` }, 'x\n');
    const { locator } = JSON.parse(saved.out) as { locator: string };
    const read = await run(['read', locator], { SPILLWAY_STORE: `s3://${BUCKET}/two` });
    expect(read.code).toBe(4);
  });

  it('names a missing bucket clearly, with the storage exit code', async () => {
    const listed = await run(['ls', '--store', 's3://no-such-bucket/x']);
    expect(listed.code).toBe(7);
    expect(listed.stderr).toMatch(/bucket "no-such-bucket" does not exist/);
  });

  it('treats a bad store URL and --store with --root as usage errors', async () => {
    expect((await run(['ls', '--store', '/var/spill'])).code).toBe(2);
    expect((await run(['ls', '--store', 's3://Bad_Bucket'])).code).toBe(2);
    expect((await run(['ls', '--store', `s3://${BUCKET}`, '--root', dir])).code).toBe(2);
  });
});

describe('resolveStore', () => {
  it('takes --store over SPILLWAY_STORE, and --root over SPILLWAY_STORE', () => {
    expect(resolveStore('s3://a-b/c', undefined, { SPILLWAY_STORE: 's3://x-y/z' })).toEqual({ url: 's3://a-b/c', bucket: 'a-b', prefix: 'c', source: 'option' });
    expect(resolveStore(undefined, undefined, { SPILLWAY_STORE: 's3://x-y/z' })).toMatchObject({ bucket: 'x-y', source: 'env' });
    expect(resolveStore(undefined, '/root', { SPILLWAY_STORE: 's3://x-y/z' })).toBeUndefined();
    expect(resolveStore(undefined, undefined, { SPILLWAY_STORE: '' })).toBeUndefined();
  });
});
