import { setFlagsFromString } from 'node:v8';

/**
 * Keeps V8's young generation at the size it has now, for the rest of this process.
 *
 * A long scan (the preview of a gigabyte of output) allocates a short-lived string per
 * piece. V8 grows each of the young generation's two semi-spaces, up to 8 MiB, once enough
 * bytes have survived its collections, however few survive each one, so such a run peaked
 * at about 78 MiB of RSS, where the same run with the young generation kept small peaked at
 * about 62 MiB in about the same time. V8 reads the growth factor each time it would grow,
 * so setting it after start-up takes effect. Setting it again changes nothing.
 *
 * Only the CLI calls this, and only once its code is loaded: a library must not change its
 * host's V8 flags, and V8 rejects a code cache made under other flags (a cache written after
 * this is made again by the next run).
 */
export function keepYoungGenerationSmall(): void {
  try {
    setFlagsFromString('--semi-space-growth-factor=1');
  } catch {
    // A runtime that refuses the flag grows as before: only memory is at stake.
  }
}
