// Shared fixtures for this package's tests (excluded from the build by its name).
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import { callId, sessionId } from '@spillway/core';
import type { SaveTextSpill, SaveTextStreamSpill } from '@spillway/core';

/** A fresh private (0700) directory to use as a spill root, and a cleanup. */
export function makeRoot(prefix = 'spill-local-test-'): { root: string; cleanup: () => void } {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(base, 0o700);
  return { root: base, cleanup: () => { fs.rmSync(base, { recursive: true, force: true }); } };
}

/**
 * Gives each test of the calling file a fresh root from makeRoot, removed after the test;
 * `use` receives it (resolved through realpath when asked, for comparing with paths the
 * backend reports).
 */
export function freshRootEachTest(prefix: string, use: (root: string) => void, options: { realpath?: boolean } = {}): void {
  let cleanup: (() => void) | undefined;
  beforeEach(() => {
    const r = makeRoot(prefix);
    cleanup = r.cleanup;
    use(options.realpath === true ? fs.realpathSync(r.root) : r.root);
  });
  afterEach(() => {
    cleanup?.();
    cleanup = undefined;
  });
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

/** The built package entry, for child processes (see test-global-setup.ts). */
export const DIST_INDEX = new URL('../dist/index.js', import.meta.url).href;
/** The built naming module, for a child that needs the session directory's name. */
export const DIST_NAMES = new URL('../dist/names.js', import.meta.url).href;
/** The built internal factory with test seams, for child processes. */
export const DIST_BACKEND = new URL('../dist/backend.js', import.meta.url).href;

let nobodyIndex: string | undefined;

/**
 * A copy of the built package (and the built packages it imports) that any user
 * can read, for child processes run as `nobody`: the checkout itself may sit under a
 * private directory (a CI clone in a 0700 temp dir) that `nobody` cannot traverse.
 * Made once per test process under the OS temp dir; returns the copy's entry URL.
 */
export function nobodyReadableDistIndex(): string {
  if (nobodyIndex !== undefined) return nobodyIndex;
  const top = fs.mkdtempSync(path.join(os.tmpdir(), 'spill-local-nobody-'));
  process.once('exit', () => {
    fs.rmSync(top, { recursive: true, force: true });
  });
  const copy = (from: string, to: string): void => {
    fs.cpSync(from, to, { recursive: true, dereference: true });
  };
  const localDist = fileURLToPath(new URL('../dist', import.meta.url));
  const corePkg = path.dirname(createRequire(import.meta.url).resolve('@spillway/core/package.json'));
  copy(localDist, path.join(top, 'local', 'dist'));
  fs.writeFileSync(path.join(top, 'local', 'package.json'), JSON.stringify({ type: 'module' }));
  const coreTo = path.join(top, 'node_modules', '@spillway', 'core');
  copy(path.join(corePkg, 'dist'), path.join(coreTo, 'dist'));
  copy(path.join(corePkg, 'package.json'), path.join(coreTo, 'package.json'));
  const utilsPkg = path.dirname(createRequire(import.meta.url).resolve('@spillway/backend-utils/package.json'));
  const utilsTo = path.join(top, 'node_modules', '@spillway', 'backend-utils');
  copy(path.join(utilsPkg, 'dist'), path.join(utilsTo, 'dist'));
  copy(path.join(utilsPkg, 'package.json'), path.join(utilsTo, 'package.json'));
  // The naming rule's sha256, as installed (its exports name no package.json).
  const hashesPkg = path.dirname(createRequire(path.join(utilsPkg, 'package.json')).resolve('@noble/hashes/sha2.js'));
  copy(hashesPkg, path.join(top, 'node_modules', '@noble', 'hashes'));
  // The retrieval engine and its one dependency (the RE2 engine), as installed.
  const retrievalPkg = path.dirname(createRequire(import.meta.url).resolve('@spillway/retrieval/package.json'));
  const retrievalTo = path.join(top, 'node_modules', '@spillway', 'retrieval');
  copy(path.join(retrievalPkg, 'dist'), path.join(retrievalTo, 'dist'));
  copy(path.join(retrievalPkg, 'package.json'), path.join(retrievalTo, 'package.json'));
  // re2js exports no package.json: its entry is <package>/build/index.cjs.
  const re2Pkg = path.dirname(path.dirname(createRequire(path.join(retrievalPkg, 'package.json')).resolve('re2js')));
  copy(re2Pkg, path.join(top, 'node_modules', 're2js'));
  // Readable and traversable by everyone, whatever the umask was.
  const open = (p: string): void => {
    const st = fs.statSync(p);
    fs.chmodSync(p, st.isDirectory() ? 0o755 : 0o644);
    if (st.isDirectory()) for (const name of fs.readdirSync(p)) open(path.join(p, name));
  };
  open(top);
  nobodyIndex = pathToFileURL(path.join(top, 'local', 'dist', 'index.js')).href;
  return nobodyIndex;
}

/** What a child process produced. */
export interface ChildResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs ESM source in a child `node` (optionally through a wrapper such as `setpriv …` or
 * `sh -c 'ulimit -n 64; exec "$@"' sh`) and collects its output. The source can import
 * {@link DIST_INDEX}.
 */
export function runChild(
  source: string,
  options: {
    wrapper?: readonly string[];
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
    args?: readonly string[];
    /** Flags for `node` itself, such as `--max-old-space-size=32`. */
    nodeArgs?: readonly string[];
  } = {},
): Promise<ChildResult> {
  const argv = [...(options.wrapper ?? []), process.execPath, ...(options.nodeArgs ?? []), '--input-type=module', '-e', source, ...(options.args ?? [])];
  const [cmd, ...rest] = argv;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd ?? process.execPath, rest, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => { stdout += d; });
    child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d; });
    // Under the 60 s test timeout, yet far above what a child needs on a loaded machine.
    const timer = setTimeout(() => { child.kill('SIGKILL'); }, options.timeoutMs ?? 50_000);
    child.on('error', (e) => { clearTimeout(timer); reject(e); });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Whether a shell command succeeds (used to probe what the host allows). */
export function commandWorks(cmd: string, args: readonly string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}
