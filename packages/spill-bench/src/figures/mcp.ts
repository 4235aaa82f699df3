import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { runInterleaved } from '../interleave.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { quantile } from '../stats.js';
import { cliBin } from './cli.js';
import { privateDir, treeSize } from './common.js';

const MiB = 1024 * 1024;

/**
 * A process that only relays bytes between its stdio and a child's: the floor of any
 * stdio proxy, measured alongside so the proxy's own work can be told from the hop.
 */
const RELAY = [
  "const { spawn } = require('node:child_process');",
  "const child = spawn(process.argv[1], process.argv.slice(2), { stdio: ['pipe', 'pipe', 'ignore'] });",
  'process.stdin.pipe(child.stdin);',
  'child.stdout.pipe(process.stdout);',
  "child.on('exit', (code) => process.exit(code ?? 1));",
].join('\n');

function specs(profile: Profile): FigureSpec[] {
  const size = formatBytes(profile.mcp.bigBytes);
  return [
    {
      id: 'mcp.small',
      title: 'spillway mcp: small tools/call, p50 latency',
      baseline: 'the same call, client straight to the server',
      unit: 'ms',
      target: ratioAtMost(1.2),
    },
    {
      id: 'mcp.small.relay',
      title: 'spillway mcp: small tools/call, p50 latency, against a bare byte relay',
      baseline: 'the same call through a process that only copies bytes (the floor of any stdio proxy)',
      unit: 'ms',
      target: ratioAtMost(1.3),
    },
    {
      id: 'mcp.big.wall',
      title: `spillway mcp: a ${size} result (spilled), wall time`,
      baseline: 'the same call, client straight to the server',
      unit: 'ms',
      target: ratioAtMost(1.5),
    },
    {
      id: 'mcp.big.rss',
      title: `spillway mcp: a ${size} result, proxy peak RSS`,
      baseline: 'peak RSS of the server that produced it',
      unit: 'bytes',
      target: ratioAtMost(1.5),
    },
  ];
}

/** The kernel's peak RSS (`VmHWM`) of a running process, in bytes. */
async function peakRss(pid: number): Promise<number> {
  const status = await readFile(`/proc/${String(pid)}/status`, 'utf8');
  const kib = /^VmHWM:\s+(\d+) kB$/m.exec(status)?.[1];
  return kib === undefined ? Number.NaN : Number(kib) * 1024;
}

/** Lines of printable text, `bytes` long in all. */
function textOfSize(bytes: number): string {
  const line = `${'mcp bench line: the quick brown fox jumps over the lazy dog 0123456789 '.repeat(1)}\n`;
  return line.repeat(Math.ceil(bytes / line.length)).slice(0, bytes);
}

/**
 * The MCP proxy's costs: the added latency of a small `tools/call` (a 100-byte file read
 * through `@modelcontextprotocol/server-filesystem`) and the wall time and memory of a
 * large one, which the proxy spills. Both clients are SDK `Client`s in this process, over
 * the linear-time stdio transport of `@spillway/mcp` (the SDK's own stdio transport
 * re-copies its buffer on every chunk and needs minutes for a 100 MB message); one talks
 * to the server directly, the other to `spillway mcp` wrapping the same server.
 */
export const mcpGroup: FigureGroup = {
  name: 'mcp',
  specs,
  async run(ctx) {
    const bin = cliBin();
    if (!existsSync(bin)) throw new Error(`The CLI is not built (${bin}); run pnpm build first.`);
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { CallToolResultSchema } = await import('@modelcontextprotocol/sdk/types.js');
    const { UpstreamStdioTransport } = await import('@spillway/mcp');
    const require = createRequire(import.meta.url);
    const server = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
    const { calls, rounds, bigBytes, bigRounds } = ctx.profile.mcp;

    const data = await privateDir(ctx.scratch, 'mcp-data');
    const root = await privateDir(ctx.scratch, 'mcp-root');
    const small = path.join(data, 'small.txt');
    const big = path.join(data, 'big.txt');
    await writeFile(small, textOfSize(100));
    await writeFile(big, textOfSize(bigBytes));

    const connect = async (command: string, args: string[]): Promise<{ client: InstanceType<typeof Client>; pid: number }> => {
      const transport = new UpstreamStdioTransport({
        command,
        args,
        env: process.env,
        stderr: null,
        maxMessageBytes: 1024 * MiB,
        onMalformed: (error) => {
          ctx.log(`malformed message: ${error.message}`);
        },
      });
      const client = new Client({ name: 'spillway-bench', version: '0' });
      await client.connect(transport);
      return { client, pid: transport.pid ?? Number.NaN };
    };
    const direct = await connect(process.execPath, [server, data]);
    const proxied = await connect(process.execPath, [bin, 'mcp', '--root', root, '--session', 'bench', '--', process.execPath, server, data]);
    const relayed = await connect(process.execPath, ['-e', RELAY, process.execPath, server, data]);
    const problems = new Set<string>();
    try {
      const call = async (client: InstanceType<typeof Client>, file: string): Promise<{ ms: number; text: string }> => {
        const start = performance.now();
        const result = await client.request(
          { method: 'tools/call', params: { name: 'read_text_file', arguments: { path: file } } },
          CallToolResultSchema,
          { timeout: 600_000 },
        );
        const ms = performance.now() - start;
        const first = result.content[0];
        return { ms, text: first?.type === 'text' ? first.text : '' };
      };

      // Small calls: each round's value is the median latency of `calls` calls in a row.
      const smallRound = (client: InstanceType<typeof Client>, label: string) => async (round: number): Promise<number> => {
        const times: number[] = [];
        for (let i = 0; i < calls; i++) {
          const { ms, text } = await call(client, small);
          if (text.length !== 100) problems.add(`${label}: a small read returned ${String(text.length)} characters, expected 100`);
          times.push(ms);
        }
        const p50 = quantile(times, 0.5);
        ctx.log(`round ${String(round)} ${label}: small call p50 ${p50.toFixed(3)} ms`);
        return p50;
      };
      const relayRound = smallRound(relayed.client, 'relay');
      const relayP50: number[] = [];
      const relaySamples: number[] = [];
      const smallSamples = await runInterleaved(
        rounds,
        {
          spillway: smallRound(proxied.client, 'proxy'),
          baseline: async (round) => {
            // The relay runs right after the direct calls of the same round, untimed by the table.
            const p50 = await smallRound(direct.client, 'direct')(round);
            const relay = await relayRound(round);
            if (round >= 0) {
              relayP50.push(relay / p50);
              relaySamples.push(relay);
            }
            return p50;
          },
        },
        { warmup: true },
      );
      ctx.record('mcp.small', {
        spillway: smallSamples.spillway,
        baseline: smallSamples.baseline,
        notes: [
          `each round: the median of ${String(calls)} sequential read_text_file calls of a 100-byte file`,
          `a bare byte relay process in between (the floor of any stdio proxy) took ${quantile(relayP50, 0.5).toFixed(2)}× the direct call`,
        ],
      });

      ctx.record('mcp.small.relay', {
        spillway: smallSamples.spillway,
        baseline: relaySamples,
        notes: ['the relay runs in the same rounds as the direct and proxied calls, right after the direct ones'],
      });

      // Large calls: the proxy spills; the direct client receives the whole message.
      const bigSamples = await runInterleaved(bigRounds, {
        spillway: async (round) => {
          const { ms, text } = await call(proxied.client, big);
          if (!text.includes('Full formatted result stored at:')) problems.add('the proxy did not spill the large result');
          ctx.log(`round ${String(round)} proxy: ${(ms / 1000).toFixed(2)} s`);
          return ms;
        },
        baseline: async (round) => {
          const { ms, text } = await call(direct.client, big);
          if (text.length !== bigBytes) problems.add(`the direct call returned ${String(text.length)} characters, expected ${String(bigBytes)}`);
          ctx.log(`round ${String(round)} direct: ${(ms / 1000).toFixed(2)} s`);
          return ms;
        },
      });
      const stored = (await treeSize(root)).bytes;
      if (stored !== bigBytes * bigRounds) problems.add(`the proxy stored ${String(stored)} bytes, expected ${String(bigBytes * bigRounds)}`);
      const notes = problems.size === 0 ? [`every spilled copy holds exactly ${formatBytes(bigBytes)}`] : [...problems];
      notes.push('server-filesystem sends the text twice (content and structuredContent), so each message is about twice the size');
      ctx.record('mcp.big.wall', { spillway: bigSamples.spillway, baseline: bigSamples.baseline, notes });
      const proxyRss = await peakRss(proxied.pid);
      const serverRss = await peakRss(direct.pid);
      ctx.record('mcp.big.rss', {
        spillway: [proxyRss],
        baseline: [serverRss],
        notes: ['VmHWM of the spillway mcp process (which holds one message while it parses it) and of the directly connected server, after all rounds'],
      });
    } finally {
      await Promise.allSettled([direct.client.close(), proxied.client.close(), relayed.client.close()]);
    }
  },
};
