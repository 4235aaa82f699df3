// A refused search index cache as the built CLI reports it: `spillway search` fails with
// SPILL_UNSAFE_ROOT and the advice, run as nobody against a directory root owns; `spillway
// mcp` keeps serving, and only spill_search answers an error naming the code.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, ensureBuilt } from './test-bin.js';
import { host, INIT, text } from './test-mcp-host.js';
import { tempDirsPerTest } from './test-temp-dirs.js';

const isRoot = process.geteuid?.() === 0;
const NOBODY = 65534;
const tempDir = tempDirsPerTest('spill-cli-cache-e2e-');
const mcpDir = dirname(createRequire(import.meta.url).resolve('@spillway/mcp/package.json'));
const fsServer = join(dirname(createRequire(join(mcpDir, 'package.json')).resolve('@modelcontextprotocol/server-filesystem/package.json')), 'dist', 'index.js');

beforeAll(() => {
  ensureBuilt();
});

describe('spillway mcp --store with a refused cache', () => {
  it('forwards upstream calls as ever; spill_search answers isError with SPILL_UNSAFE_ROOT, again on a second call', async () => {
    const base = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, join(base, 'spillway'));
    const served = tempDir();
    const rpc = host(['--store', 's3://bkt/p', '--', process.execPath, fsServer, served], { PATH: process.env.PATH, HOME: base, XDG_CACHE_HOME: base, NO_COLOR: '1' });
    try {
      await rpc.call('initialize', INIT);
      const listed = await rpc.call('tools/call', { name: 'list_allowed_directories', arguments: {} });
      expect((listed.result as { isError?: boolean }).isError).not.toBe(true);
      expect(text(listed)).toContain(served.split('/').pop());
      for (let i = 0; i < 2; i += 1) {
        const searched = await rpc.call('tools/call', { name: 'spill_search', arguments: { query: 'anything' } });
        expect((searched.result as { isError?: boolean }).isError).toBe(true);
        expect(text(searched)).toContain('SPILL_UNSAFE_ROOT');
        expect(text(searched)).toContain(`${join(base, 'spillway')} is a symbolic link`);
      }
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      await rpc.end();
    }
  });
});

// As an unprivileged user for real: setpriv drops to nobody, who meets a root-owned
// spillway/ directory in its own cache base. Needs root to set it up and to drop.
const canDrop = isRoot && spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'true']).status === 0;

describe.skipIf(!canDrop)('as nobody (needs root and setpriv)', () => {
  it('a spillway/ directory owned by another user (root) is refused, with the code and the advice', (context) => {
    const reachable = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(BIN)})`]);
    if (reachable.status !== 0) {
      // The checkout sits where nobody cannot read it (a private CI clone).
      context.skip('nobody cannot read the built CLI in this checkout');
      return;
    }
    const top = tempDir();
    chmodSync(top, 0o755);
    const base = join(top, 'nobody-cache');
    mkdirSync(base, { mode: 0o700 });
    chownSync(base, NOBODY, NOBODY);
    const planted = join(base, 'spillway');
    mkdirSync(planted, { mode: 0o700 });
    chmodSync(planted, 0o700);
    const ran = spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, BIN, 'search', '--store', 's3://bkt/p', '--json', 'anything'], {
      env: { PATH: process.env.PATH, HOME: base, XDG_CACHE_HOME: base, NO_COLOR: '1' },
      encoding: 'utf8',
    });
    expect(ran.status, ran.stderr).toBe(6);
    const error = (JSON.parse(ran.stderr) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('SPILL_UNSAFE_ROOT');
    expect(error.message).toContain(`${planted} belongs to another user (uid 0)`);
    expect(error.message).toContain('--no-index-cache');
    expect(readdirSync(planted)).toEqual([]);
  });
});
