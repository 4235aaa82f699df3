import { callId, sessionId, type SaveTextSpill, type SaveTextStreamSpill } from '@spillway/core';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';

/** The session every figure saves into. */
export const BENCH_SESSION = sessionId('bench-session');

/** A save request for `content`, with a distinct call id per call. */
export function saveRequest(content: string, suggestedName = 'bench.txt', n = 0): SaveTextSpill {
  return {
    owner: { sessionId: BENCH_SESSION },
    source: { toolName: 'bench_tool', callId: callId(`call-${n}`) },
    suggestedName,
    content,
  };
}

/** A streaming save request. */
export function streamRequest(content: SaveTextStreamSpill['content'], suggestedName = 'bench-stream.txt'): SaveTextStreamSpill {
  return {
    owner: { sessionId: BENCH_SESSION },
    source: { toolName: 'bench_tool', callId: callId('call-stream') },
    suggestedName,
    content,
  };
}

/** A fresh private (0700) directory under `parent`, usable as a local backend root. */
export function privateDir(parent: string, prefix: string): Promise<string> {
  return mkdtemp(path.join(parent, `${prefix}-`));
}

/** Total size and count of the regular files under `dir`, recursively. */
export async function treeSize(dir: string): Promise<{ readonly files: number; readonly bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}

/** Removes everything inside `dir` but keeps `dir` itself (a backend root stays valid). */
export async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(path.join(dir, name), { recursive: true, force: true });
}
