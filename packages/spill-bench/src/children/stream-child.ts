/**
 * One streaming run, in its own process so that its memory is its own:
 * `node stream-child.js <spillway|baseline> <bytes> <chunkBytes> <dir>`.
 *
 * It streams `bytes` bytes of text in `chunkBytes` chunks either through the local
 * backend's `saveTextStream` or through `fs.createWriteStream` (honouring backpressure),
 * then prints one JSON line: elapsed ms, bytes stored, the RSS before the stream and the
 * peak RSS after it. The file is deleted after the measurement.
 */
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { streamRequest } from '../figures/common.js';
import { measuredRun } from '../peak-rss.js';
import { streamedText } from '../text.js';

const [mode, bytesArg, chunkArg, dir] = process.argv.slice(2);
const total = Number(bytesArg);
const chunkBytes = Number(chunkArg);
if ((mode !== 'spillway' && mode !== 'baseline') || !(total > 0) || !(chunkBytes > 0) || dir === undefined) {
  throw new TypeError('usage: stream-child.js <spillway|baseline> <bytes> <chunkBytes> <dir>');
}
const root: string = dir;

const chunks = streamedText(total, chunkBytes);

async function viaSpillway(): Promise<{ file: string; bytes: number }> {
  const { createLocalBackend } = await import('@spillway/local');
  const backend = createLocalBackend({ root });
  const ref = await backend.saveTextStream(streamRequest(chunks(), 'stream.txt'));
  return { file: ref.locator, bytes: ref.bytes };
}

async function viaWriteStream(): Promise<{ file: string; bytes: number }> {
  const file = path.join(root, 'baseline-stream.txt');
  const out = createWriteStream(file, { flags: 'wx', mode: 0o600 });
  for await (const chunk of chunks()) {
    if (!out.write(chunk)) await once(out, 'drain');
  }
  out.end();
  await finished(out);
  return { file, bytes: out.bytesWritten };
}

// Load the modules before taking the starting RSS, so that loading is not counted.
if (mode === 'spillway') await import('@spillway/local');
const { result, ms, rssBefore, maxRss } = await measuredRun(() => (mode === 'spillway' ? viaSpillway() : viaWriteStream()));
const { file, bytes } = result;
const onDisk = (await stat(file)).size;
await unlink(file);
process.stdout.write(`${JSON.stringify({ ms, bytes, onDisk, rssBefore, maxRss })}\n`);
