/**
 * One S3 streaming run, in its own process so that its memory is its own:
 * `node s3-stream-child.js <spillway|baseline> <bytes> <chunkBytes> <partBytes> <endpoint> <bucket>`.
 *
 * It streams `bytes` bytes of text in `chunkBytes` chunks either through the S3 backend's
 * `saveTextStream` or through a hand-written multipart upload with the same part size
 * (one part buffer, parts uploaded one after another), then prints one JSON line:
 * elapsed ms, bytes stored, the RSS before the stream and the peak RSS after it. The
 * object is deleted after the measurement.
 */
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  HeadObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { CompletedPart } from '@aws-sdk/client-s3';
import { streamRequest } from '../figures/common.js';
import { measuredRun } from '../peak-rss.js';
import { streamedText } from '../text.js';

const [mode, bytesArg, chunkArg, partArg, endpoint, bucket] = process.argv.slice(2);
const total = Number(bytesArg);
const chunkBytes = Number(chunkArg);
const partBytes = Number(partArg);
if ((mode !== 'spillway' && mode !== 'baseline') || !(total > 0) || !(chunkBytes > 0) || !(partBytes > 0) || endpoint === undefined || bucket === undefined) {
  throw new TypeError('usage: s3-stream-child.js <spillway|baseline> <bytes> <chunkBytes> <partBytes> <endpoint> <bucket>');
}
const Bucket: string = bucket;

const client = new S3Client({
  endpoint,
  region: 'us-east-1',
  forcePathStyle: true,
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  maxAttempts: 1,
});

const chunks = streamedText(total, chunkBytes);

async function viaSpillway(): Promise<{ key: string; bytes: number }> {
  const { createS3Backend } = await import('@spillway/s3');
  const backend = createS3Backend({ client, bucket: Bucket, prefix: 'bench-stream', partBytes });
  const ref = await backend.saveTextStream(streamRequest(chunks(), 'stream.txt'));
  return { key: ref.locator.slice(`s3://${Bucket}/`.length), bytes: ref.bytes };
}

async function viaMultipart(): Promise<{ key: string; bytes: number }> {
  const Key = 'bench-raw/stream.txt';
  const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket, Key, ContentType: 'text/plain; charset=utf-8' }));
  const part = Buffer.allocUnsafe(partBytes);
  const parts: CompletedPart[] = [];
  let fill = 0;
  let bytes = 0;
  const upload = async (body: Buffer): Promise<void> => {
    const PartNumber = parts.length + 1;
    const { ETag } = await client.send(new UploadPartCommand({ Bucket, Key, UploadId, PartNumber, Body: body, ContentLength: body.length }));
    parts.push({ PartNumber, ETag });
  };
  for await (const chunk of chunks()) {
    const data = Buffer.from(chunk, 'utf8');
    bytes += data.length;
    for (let at = 0; at < data.length; ) {
      const n = Math.min(part.length - fill, data.length - at);
      data.copy(part, fill, at, at + n);
      fill += n;
      at += n;
      if (fill === part.length) {
        await upload(part);
        fill = 0;
      }
    }
  }
  if (fill > 0) await upload(part.subarray(0, fill));
  await client.send(new CompleteMultipartUploadCommand({ Bucket, Key, UploadId, MultipartUpload: { Parts: parts } }));
  return { key: Key, bytes };
}

// Load the modules before taking the starting RSS, so that loading is not counted.
if (mode === 'spillway') await import('@spillway/s3');
const { result, ms, rssBefore, maxRss } = await measuredRun(() => (mode === 'spillway' ? viaSpillway() : viaMultipart()));
const { key, bytes } = result;
const head = await client.send(new HeadObjectCommand({ Bucket, Key: key }));
await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
client.destroy();
process.stdout.write(`${JSON.stringify({ ms, bytes, stored: head.ContentLength ?? 0, rssBefore, maxRss })}\n`);
