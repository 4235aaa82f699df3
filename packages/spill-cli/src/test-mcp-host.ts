// A hand-written MCP host for this package's end-to-end tests (excluded from the build by
// its name): it runs the built `spillway mcp`, speaks newline-delimited JSON-RPC to it and
// collects the answers by id.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { BIN } from './test-bin.js';

/** One JSON-RPC session with a running proxy. */
export interface Rpc {
  call(method: string, params?: unknown): Promise<Record<string, unknown>>;
  end(): Promise<void>;
  /** What the proxy wrote on stderr so far. */
  stderr(): string;
}

/** Starts `spillway mcp …args`. */
export function host(args: readonly string[], env: NodeJS.ProcessEnv): Rpc {
  const child = spawn(process.execPath, [BIN, 'mcp', ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  const waiting = new Map<number, (m: Record<string, unknown>) => void>();
  let id = 0;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const m = JSON.parse(line) as Record<string, unknown>;
    if (typeof m.id === 'number') waiting.get(m.id)?.(m);
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const closed = once(child, 'close');
  return {
    call: (method, params) =>
      new Promise((resolve) => {
        id += 1;
        waiting.set(id, resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
        if (method === 'initialize') child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
      }),
    end: async () => {
      child.stdin.end();
      await closed;
    },
    stderr: () => stderr,
  };
}

/** The text of a `tools/call` answer. */
export function text(result: Record<string, unknown>): string {
  const content = (result.result as { content?: { type: string; text?: string }[] } | undefined)?.content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

/** The `initialize` parameters of a 2025-era host. */
export const INIT = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'search-host', version: '1' } };
