// Two agent workers in a fleet, as separate processes sharing one bucket: worker A spills,
// worker B reads and greps A's locator, and retention in a third process removes A's
// artifacts. Each process builds its own client and backend from the built package.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { isSpillError, spillLocator } from '@spillway/core';
import { CLOCK_SLACK_MS } from '@spillway/retention';
import { describe, expect, it } from 'vitest';
import { BUCKET, freshPrefix, s3Endpoint, s3Fixture } from './test-helpers.js';

const run = promisify(execFile);
const packageDir = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where a package resolves from this package, as a file URL a script anywhere can import. */
function url(specifier: string): string {
  return pathToFileURL(createRequire(import.meta.url).resolve(specifier)).href;
}

/** Every worker opens the same store from the environment, as a deployment would. */
const OPEN = `
import { createS3Backend } from '${url('@spillway/s3')}';
import { sessionId } from '${url('@spillway/core')}';
import { createRetention } from '${url('@spillway/retention')}';
const backend = createS3Backend({
  bucket: process.env.STORE_BUCKET,
  prefix: process.env.STORE_PREFIX,
  endpoint: process.env.STORE_ENDPOINT,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
});
const out = (value) => process.stdout.write(JSON.stringify(value));
`;

/**
 * Runs `script` in a fresh `node`, from a file in a private temp directory (`node -e`
 * would pass `--input-type` on to the retrieval engine's worker threads, which refuse it).
 */
async function worker(script: string, env: Record<string, string>, argv: string[] = []): Promise<unknown> {
  const dir = await mkdtemp(path.join(tmpdir(), 'spill-fleet-'));
  const file = path.join(dir, 'worker.mjs');
  await writeFile(file, OPEN + script);
  try {
    const { stdout } = await run(process.execPath, ['--no-warnings', file, ...argv], {
      cwd: packageDir,
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return JSON.parse(stdout) as unknown;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('a fleet of workers on one bucket', () => {
  it('A spills, B reads and greps what A spilled, retention in a third process removes A’s artifacts', async () => {
    const prefix = freshPrefix('fleet');
    const env = { STORE_BUCKET: BUCKET, STORE_PREFIX: prefix, STORE_ENDPOINT: s3Endpoint() };

    const spilled = (await worker(
      `
      const source = { toolName: 'bash', callId: 'c1' };
      const lines = Array.from({ length: 5000 }, (_, i) => 'log line ' + (i + 1) + (i % 1000 === 999 ? ' ERROR disk full' : ''));
      const a1 = await backend.saveText({ owner: { sessionId: 'conversation-7' }, source, suggestedName: 'npm-test.txt', content: lines.join('\\n') + '\\n' });
      const a2 = await backend.saveTextStream({ owner: { sessionId: 'conversation-7' }, source, suggestedName: 'build.log', content: ['one\\n', 'two\\n'] });
      out([a1.locator, a2.locator]);
      `,
      env,
    )) as [string, string];
    expect(spilled[0]).toMatch(new RegExp(`^s3://${BUCKET}/${prefix}/session-[0-9a-f]{32}/[0-9a-f]{20}-npm-test\\.txt$`));

    const seen = (await worker(
      `
      const [locator] = process.argv.slice(2);
      const page = await backend.reader.read(locator, { offset: 999, limit: 2 });
      const hits = await backend.reader.grep(locator, 'ERROR');
      const own = await backend.saveText({ owner: { sessionId: 'conversation-8' }, source: { toolName: 'bash', callId: 'c9' }, suggestedName: 'b.txt', content: 'B\\n' });
      out({ text: page.text, lines: hits.matches.map((m) => m.line), own: own.locator });
      `,
      env,
      [spilled[0]],
    )) as { text: string; lines: number[]; own: string };
    expect(seen.text).toBe('log line 999\nlog line 1000 ERROR disk full\n');
    expect(seen.lines).toEqual([1000, 2000, 3000, 4000, 5000]);

    // Retention never deletes an artifact younger than its one-second clock slack
    // (CLOCK_SLACK_MS), whatever graceMs says; on a fast host B's turn can take less.
    await new Promise((resolve) => setTimeout(resolve, CLOCK_SLACK_MS + 100));
    const report = (await worker(
      `
      const retention = createRetention({ catalog: backend.catalog, maxAgeMs: 0, graceMs: 0 });
      const report = await retention.sweep({ sessionId: sessionId('conversation-7') });
      out({ deleted: report.deleted.count, complete: report.complete });
      `,
      env,
    )) as { deleted: number; complete: boolean };
    expect(report).toEqual({ deleted: 2, complete: true });

    const f = await s3Fixture({ prefix });
    try {
      for (const locator of spilled) {
        const error = await f.backend.reader.read(spillLocator(locator)).catch((e: unknown) => e);
        expect(isSpillError(error, 'SPILL_NOT_FOUND')).toBe(true);
      }
      expect((await f.backend.reader.read(spillLocator(seen.own))).text).toBe('B\n');
      const left = [];
      for await (const entry of f.backend.catalog.list()) left.push(entry.locator);
      expect(left).toEqual([seen.own]);
    } finally {
      await f.cleanup();
    }
  });
});
