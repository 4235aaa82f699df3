import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';

/**
 * Reads each JSONL file line by line (`node:readline`) and parses every non-empty line: the
 * least any reader of a host's transcripts does, the audit figures' baseline. Answers the
 * number of objects parsed.
 */
export async function parseEveryLine(files: readonly string[]): Promise<number> {
  let objects = 0;
  for (const file of files) {
    for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Number.POSITIVE_INFINITY })) {
      if (line !== '' && typeof JSON.parse(line) === 'object') objects++;
    }
  }
  return objects;
}
