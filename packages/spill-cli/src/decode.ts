import { StringDecoder } from 'node:string_decoder';

/**
 * Decodes a byte stream as UTF-8, chunk by chunk, never splitting a code point between
 * chunks. A malformed sequence becomes U+FFFD, as everywhere in Node.
 */
export async function* decodeUtf8(stream: AsyncIterable<unknown> | Iterable<unknown>): AsyncGenerator<string, void, undefined> {
  const decoder = new StringDecoder('utf8');
  for await (const chunk of stream) {
    const text = typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer);
    if (text !== '') yield text;
  }
  const rest = decoder.end();
  if (rest !== '') yield rest;
}
