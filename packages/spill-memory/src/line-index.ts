import type { Artifact } from './artifact-store.js';

/**
 * Every `LINE_INDEX_STRIDE`-th line start is remembered per artifact, built lazily as far
 * as reads have needed, so paging through a large artifact does not rescan it from the
 * first byte on every call. The index costs 8 bytes per 1024 lines at most.
 */
export const LINE_INDEX_STRIDE = 1024;

const NEWLINE = 0x0a;

/**
 * The byte offset where 1-based `line` starts, or `undefined` when the artifact has
 * fewer lines. Lines are separated by `\n`; a final `\n` does not start a new line.
 */
export function lineStart(artifact: Artifact, bytes: Uint8Array, line: number): number | undefined {
  const total = bytes.length;
  const starts = (artifact.lineStarts ??= [0]); // starts[k] = start of line k*STRIDE + 1
  const wanted = Math.floor((line - 1) / LINE_INDEX_STRIDE);
  let k = Math.min(wanted, starts.length - 1);
  let pos = starts[k] ?? 0;
  let current = k * LINE_INDEX_STRIDE + 1;
  while (current < line) {
    const nl = bytes.indexOf(NEWLINE, pos);
    if (nl === -1) return undefined;
    pos = nl + 1;
    current += 1;
    if (pos >= total) return undefined; // the final newline starts no line
    if ((current - 1) % LINE_INDEX_STRIDE === 0) {
      k = (current - 1) / LINE_INDEX_STRIDE;
      if (k === starts.length) starts.push(pos);
    }
  }
  return pos < total ? pos : undefined;
}
