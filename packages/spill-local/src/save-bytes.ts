import { assertSaveBytesStreamRequest, byteChunks } from '@spillway/core';
import type { SaveBytesStreamSpill, SpillCallOptions, SpillRef } from '@spillway/core';
import type { SpillFileSink } from '@spillway/core/file-sink';

/**
 * `saveBytesStream` on top of the file sink: each chunk is written at its position in the
 * private temporary file as it arrives (memory bounded by one chunk), and the file is
 * published with every check a save makes. Any failure removes the temporary file.
 */
export async function saveBytesThroughSink(fileSink: SpillFileSink, input: SaveBytesStreamSpill, options: SpillCallOptions | undefined): Promise<SpillRef> {
  assertSaveBytesStreamRequest(input);
  const signal = options?.signal;
  const call = signal === undefined ? undefined : { signal };
  const sink = await fileSink.open({ owner: input.owner, source: input.source, suggestedName: input.suggestedName }, call);
  try {
    let position = 0;
    for await (const chunk of byteChunks(input.content, signal)) {
      if (chunk.length === 0) continue;
      await sink.write(chunk, position);
      position += chunk.length;
    }
    return await sink.publish(call);
  } finally {
    await sink.close();
  }
}
