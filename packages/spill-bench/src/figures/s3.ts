import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ratioAtLeast, ratioAtMost, valueAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import { microPair, type MicroTask } from '../micro.js';
import { assertSucceeded, childScript, runProcess } from '../process.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { LINE_BYTES, numberedChunks, textOfSize } from '../text.js';
import { saveRequest, streamRequest } from './common.js';

const BUCKET = 'spillway-bench';
const PART_BYTES = 8 * 1024 * 1024;
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function specs(profile: Profile): FigureSpec[] {
  const { sizes, stream, readLines, readAt } = profile.s3;
  const streamSize = `${formatBytes(stream.bytes)} in ${formatBytes(stream.chunk)} chunks`;
  const save = (id: string, bytes: number): FigureSpec => ({
    id,
    title: `s3 saveText ${formatBytes(bytes)}`,
    baseline: 'PutObject of the same text',
    unit: 'ms',
    target: ratioAtMost(1.2),
  });
  return [
    save('s3.save.small', sizes.small),
    save('s3.save.medium', sizes.medium),
    save('s3.save.large', sizes.large),
    {
      id: 's3.stream.throughput',
      title: `s3 saveTextStream ${streamSize}: throughput`,
      baseline: 'multipart upload, same 8 MiB parts',
      unit: 'bytes/s',
      target: ratioAtLeast(0.8),
    },
    {
      id: 's3.stream.rss',
      title: `s3 saveTextStream ${streamSize}: peak RSS growth`,
      baseline: 'multipart upload, same 8 MiB parts',
      unit: 'bytes',
      target: valueAtMost(64 * 1024 * 1024),
    },
    {
      id: 's3.read',
      title: `s3 read 100 lines at line ${readAt.toLocaleString('en-US')} of ${formatBytes(readLines * LINE_BYTES)}`,
      baseline: `GetObject | sed -n '${readAt},+99p'`,
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
  ];
}

/** Pipes a GetObject body into `sed -n 'N,+99p'` and collects what sed prints. */
async function sedOver(body: Readable, from: number): Promise<string> {
  const sed = spawn('sed', ['-n', `${from},+99p`], { env: { ...process.env, LC_ALL: 'C' }, stdio: ['pipe', 'pipe', 'inherit'] });
  const out: Buffer[] = [];
  sed.stdout.on('data', (b: Buffer) => out.push(b));
  body.pipe(sed.stdin);
  const [code] = (await once(sed, 'close')) as [number | null];
  if (code !== 0) throw new Error(`sed exited with ${String(code)}`);
  return Buffer.concat(out).toString('utf8');
}

/**
 * The S3 figures, against an s3rver this group starts on 127.0.0.1 (a random port, a
 * directory in the scratch space), both sides through the same kind of client:
 * `saveText` against one plain PutObject of the same text; `saveTextStream` against a
 * hand-written multipart upload with the same part size, each in a fresh child process
 * (throughput and peak RSS); a deep `read` with a cold line index against a GetObject of
 * the whole object piped through `sed`.
 */
export const s3Group: FigureGroup = {
  name: 's3',
  specs,
  async run(ctx) {
    const [{ default: S3rver }, sdk, { createS3Backend }] = await Promise.all([import('s3rver'), import('@aws-sdk/client-s3'), import('@spillway/s3')]);
    const { S3Client, PutObjectCommand, DeleteObjectCommand, GetObjectCommand } = sdk;
    const directory = path.join(ctx.scratch, 's3rver');
    await mkdir(directory);
    const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: BUCKET }] });
    const { port } = (await server.run()) as { port: number };
    const endpoint = `http://127.0.0.1:${String(port)}`;
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: CREDENTIALS, maxAttempts: 1 });
    try {
      const p = ctx.profile.s3;
      const backend = createS3Backend({ client, bucket: BUCKET, prefix: 'bench' });
      const deleteAfter = (make: () => Promise<string>): MicroTask => {
        const made: string[] = [];
        return {
          run: async () => {
            made.push(await make());
          },
          afterEach: async () => {
            for (const Key of made.splice(0)) await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key }));
          },
        };
      };
      const keyOf = (locator: string): string => locator.slice(`s3://${BUCKET}/`.length);
      let n = 0;
      for (const [id, bytes] of [
        ['s3.save.small', p.sizes.small],
        ['s3.save.medium', p.sizes.medium],
        ['s3.save.large', p.sizes.large],
      ] as const) {
        const content = textOfSize(bytes);
        const heavy = bytes >= 8 * 1024 * 1024;
        ctx.log(`${id}: ${formatBytes(bytes)}`);
        const samples = await microPair(
          p.saveRounds,
          {
            spillway: deleteAfter(async () => keyOf((await backend.saveText(saveRequest(content, 'bench.txt', ++n))).locator)),
            baseline: deleteAfter(async () => {
              const Key = `bench-raw/${String(++n)}.txt`;
              await client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: content, ContentType: 'text/plain; charset=utf-8' }));
              return Key;
            }),
          },
          heavy ? { timeMs: 0, minIterations: p.largeSavesPerRound, warmup: false } : { timeMs: ctx.profile.microTimeMs * 2, minIterations: 4 },
        );
        ctx.record(id, samples);
      }

      // Streams, each in its own child.
      const child = childScript('s3-stream-child.js');
      const problems = new Set<string>();
      interface StreamRun {
        readonly ms: number;
        readonly bytes: number;
        readonly stored: number;
        readonly rssBefore: number;
        readonly maxRss: number;
      }
      const stream = await runInterleaved(p.stream.rounds, {
        spillway: (round) => streamOnce('spillway', round),
        baseline: (round) => streamOnce('baseline', round),
      });
      async function streamOnce(mode: 'spillway' | 'baseline', round: number): Promise<StreamRun> {
        const run = await runProcess(process.execPath, [child, mode, String(p.stream.bytes), String(p.stream.chunk), String(PART_BYTES), endpoint, BUCKET], {
          captureStdout: true,
        });
        assertSucceeded(run, `The ${mode} S3 stream child`);
        const result = JSON.parse(run.stdout) as StreamRun;
        if (result.bytes !== p.stream.bytes || result.stored !== p.stream.bytes) {
          problems.add(`${mode} stored ${String(result.stored)} bytes (reported ${String(result.bytes)}), expected ${String(p.stream.bytes)}`);
        }
        ctx.log(`stream round ${String(round)} ${mode}: ${(result.ms / 1000).toFixed(2)} s, RSS +${formatBytes(result.maxRss - result.rssBefore)}`);
        return result;
      }
      const notes = problems.size === 0 ? [`every run stored exactly ${String(p.stream.bytes)} bytes`] : [...problems];
      ctx.record('s3.stream.throughput', {
        spillway: stream.spillway.map((r) => (r.bytes / r.ms) * 1000),
        baseline: stream.baseline.map((r) => (r.bytes / r.ms) * 1000),
        notes,
      });
      ctx.record('s3.stream.rss', {
        spillway: stream.spillway.map((r) => r.maxRss - r.rssBefore),
        baseline: stream.baseline.map((r) => r.maxRss - r.rssBefore),
        notes: ['peak RSS (VmHWM) minus the RSS just before the stream, of the child process'],
      });

      // A deep read with a cold line index (a fresh backend each round) against GetObject | sed.
      const logRef = await backend.saveTextStream(streamRequest(numberedChunks(1, p.readLines, 64 * 1024), 'log.txt'));
      ctx.log(`stored a ${formatBytes(logRef.bytes)} log`);
      let ours = '';
      let theirs = '';
      const read = await runInterleaved(p.readRounds, {
        spillway: async () => {
          const fresh = createS3Backend({ client, bucket: BUCKET, prefix: 'bench' });
          const started = performance.now();
          ours = (await fresh.reader.read(logRef.locator, { offset: p.readAt, limit: 100 })).text;
          return performance.now() - started;
        },
        baseline: async () => {
          const started = performance.now();
          const answer = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: keyOf(logRef.locator) }));
          theirs = await sedOver(answer.Body as Readable, p.readAt);
          return performance.now() - started;
        },
      });
      const same = ours === theirs && theirs.split('\n').length === 101;
      ctx.record('s3.read', { ...read, notes: [same ? 'read returned exactly what sed printed' : 'read and sed DISAGREE'] });
      await backend.catalog.delete(logRef.locator);
    } finally {
      client.destroy();
      await server.close();
    }
  },
};
