// Shared fixtures for this package's tests (excluded from the build by its name).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callId, sessionId } from '@spillway/core';
import type { SaveTextSpill, SaveTextStreamSpill } from '@spillway/core';

/** A fresh private (0700) directory to use as a spill root, and a cleanup. */
export function makeRoot(prefix = 'spill-local-test-'): { root: string; cleanup: () => void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(base, 0o700);
  return { root: base, cleanup: () => { fs.rmSync(base, { recursive: true, force: true }); } };
}

/** A save request with sensible defaults. */
export function request(content: string, suggestedName = 'result.txt', session = 'session-a'): SaveTextSpill {
  return {
    owner: { sessionId: sessionId(session) },
    source: { toolName: 'test_tool', callId: callId('call-1') },
    suggestedName,
    content,
  };
}

/** A stream save request with sensible defaults. */
export function streamRequest(
  content: Iterable<string> | AsyncIterable<string>,
  suggestedName = 'stream.txt',
  session = 'session-a',
): SaveTextStreamSpill {
  return {
    owner: { sessionId: sessionId(session) },
    source: { toolName: 'test_tool', callId: callId('call-1') },
    suggestedName,
    content,
  };
}

/** Every regular file under `dir`, recursively (paths). */
export function filesUnder(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(dir);
  return out;
}

/** Runs `fn` with the process umask set to `mask`, restoring it afterwards. */
export async function withUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask);
  try {
    return await fn();
  } finally {
    process.umask(previous);
  }
}
