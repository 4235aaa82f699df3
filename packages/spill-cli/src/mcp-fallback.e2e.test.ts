// No flood when the configured store fails: `spillway mcp` stores an oversized result in the
// private per-user root instead, as `spillway run` and the hooks do, and the locator in its
// notice can be followed; only when no store at all can be written does the result pass whole.
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';
import { host, INIT, text } from './test-mcp-host.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const mcpDir = dirname(createRequire(import.meta.url).resolve('@spillway/mcp/package.json'));
const fsServer = join(dirname(createRequire(join(mcpDir, 'package.json')).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');
const tmp = tempDirsPerTest('mcp-fallback-');
beforeAll(() => {
  ensureBuilt();
});

/** A 200 KB file for the filesystem server to read, and the environment of a proxy whose root is missing. */
function setUp(): { home: string; data: string; env: NodeJS.ProcessEnv; whole: string } {
  const home = tmp();
  const data = join(home, 'data');
  mkdirSync(data);
  const whole = Array.from({ length: 5000 }, (_, i) => `row ${String(i)}: the report goes on`).join('\n');
  writeFileSync(join(data, 'report.txt'), whole);
  const env = { PATH: process.env.PATH ?? '', HOME: home, XDG_STATE_HOME: join(home, 'state'), SPILLWAY_ROOT: join(home, 'rd-missing'), SPILLWAY_AUTO_GC: 'off', SPILLWAY_USAGE: 'off' };
  return { home, data, env, whole };
}

async function readThroughProxy(env: NodeJS.ProcessEnv, data: string): Promise<string> {
  return (await readWithStderr(env, data)).shown;
}

/** The result as the proxy passed it on, and what the proxy said on stderr. */
async function readWithStderr(env: NodeJS.ProcessEnv, data: string): Promise<{ shown: string; stderr: string }> {
  const rpc = host(['--max-inline-bytes', '2000', '--', process.execPath, fsServer, data], env);
  let shown: string;
  try {
    await rpc.call('initialize', INIT);
    shown = text(await rpc.call('tools/call', { name: 'read_text_file', arguments: { path: join(data, 'report.txt') } }));
  } finally {
    await rpc.end();
  }
  return { shown, stderr: rpc.stderr() };
}

describe('spillway mcp when the store cannot take the result', () => {
  it('a missing root: the result goes to the fallback root, and its locator can be read back', async () => {
    const { home, data, env, whole } = setUp();
    const shown = await readThroughProxy(env, data);
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(2000);
    const locator = /stored at: (\S+?)\. /.exec(shown)?.[1] ?? '';
    expect(locator.startsWith(join(home, 'state', 'spillway'))).toBe(true);
    const cat = await spillway(['cat', locator], { env });
    expect(cat.out).toBe(whole);
  });

  it('passes the result whole only when no store at all can be written, with one warning that names each root tried and why it was refused', async () => {
    const { home, data, env, whole } = setUp();
    writeFileSync(join(home, 'state'), 'a file where the state directory would be\n');
    const temp = join(home, 'tmp');
    const tempRoot = join(temp, `spillway-${String(process.getuid?.() ?? 'user')}`);
    mkdirSync(tempRoot, { recursive: true });
    chmodSync(tempRoot, 0o777);
    const { shown, stderr } = await readWithStderr({ ...env, TMPDIR: temp }, data);
    expect(shown).toBe(whole);
    const warnings = stderr.split('\n').filter((line) => line.startsWith('spillway: warning:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain(`The spill root ${join(home, 'rd-missing')} does not exist`);
    expect(warnings[0]).toContain(`the fallback root ${join(home, 'state', 'spillway')} was refused too: Storage failed (ENOTDIR)`);
    expect(warnings[0]).toContain(`the fallback root ${tempRoot} was refused too: The spill root ${tempRoot} has mode 0777`);
    expect(warnings[0]).toMatch(/: results are passed on in full, without spilling\.$/);
  });
});
