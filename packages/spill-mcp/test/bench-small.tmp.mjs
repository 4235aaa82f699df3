import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { UpstreamStdioTransport } from '@spillway/mcp';
import { writeFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
const require = createRequire(import.meta.url);
const server = path.join(path.dirname(require.resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
const dir = mkdtempSync('/tmp/mcpb-'); const file = path.join(dir, 's.txt'); writeFileSync(file, 'x'.repeat(100));
const RELAY = "const { spawn } = require('node:child_process');const child = spawn(process.argv[1], process.argv.slice(2), { stdio: ['pipe', 'pipe', 'ignore'] });process.stdin.pipe(child.stdin);child.stdout.pipe(process.stdout);child.on('exit', (code) => process.exit(code ?? 1));";
const proxyMain = path.resolve('test/proxy-main.mjs');
const cfg = JSON.stringify({ upstream: { command: process.execPath, args: [server, dir] }, root: 'memory' });
const extra = process.env.PROXY_ARGS ? process.env.PROXY_ARGS.split(' ') : [];
const pids = {};
async function connect(command, args, name) {
  const t = new UpstreamStdioTransport({ command, args, env: process.env, stderr: null, maxMessageBytes: 1 << 30, onMalformed() {} });
  const c = new Client({ name: 'b', version: '0' }); await c.connect(t); pids[name] = t.pid; return c;
}
const cpu = (pid) => { const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' '); return (Number(f[11]) + Number(f[12])) * 10; };
const direct = await connect(process.execPath, [server, dir], 'direct');
const relay = await connect(process.execPath, ['-e', RELAY, process.execPath, server, dir], 'relay');
const proxy = await connect(process.execPath, [...extra, proxyMain, cfg], 'proxy');
const call = async (c) => { const s = performance.now(); await c.request({ method: 'tools/call', params: { name: 'read_text_file', arguments: { path: file } } }, CallToolResultSchema); return performance.now() - s; };
const p50 = (a) => a.sort((x, y) => x - y)[a.length >> 1];
const res = { direct: [], relay: [], proxy: [] };
const cpuStart = {}; const cpuSum = { relay: 0, proxy: 0 }; let calls = 0;
const N = Number(process.env.N ?? 200), R = Number(process.env.R ?? 5);
for (let r = 0; r <= R; r++) for (const [k, c] of [['direct', direct], ['relay', relay], ['proxy', proxy]]) { const before = k === 'direct' ? 0 : cpu(pids[k]); const t = []; for (let i = 0; i < N; i++) t.push(await call(c)); if (r > 0) { res[k].push(p50(t)); if (k !== 'direct') cpuSum[k] += cpu(pids[k]) - before; } }
console.log('cpu µs/call', 'relay', (1000 * cpuSum.relay / (N * R)).toFixed(1), 'proxy', (1000 * cpuSum.proxy / (N * R)).toFixed(1));
const m = Object.fromEntries(Object.entries(res).map(([k, v]) => [k, p50(v)]));
console.log(JSON.stringify(m), 'proxy/relay', (m.proxy / m.relay).toFixed(2), 'relay/direct', (m.relay / m.direct).toFixed(2), 'proxy/direct', (m.proxy / m.direct).toFixed(2));
await Promise.all([direct.close(), relay.close(), proxy.close()]);
