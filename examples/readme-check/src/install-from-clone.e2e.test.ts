import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The README's way to use a package from the clone in another project before anything is
// published: `pnpm pack:into`, then `pnpm install` in that project, run exactly as the
// README's block shows them (read from the README, so the two cannot drift), in a fresh
// project under a fresh HOME. The install runs from the pnpm store with no network; only
// where the user's pnpm metadata cache lacks a dependency's metadata (a workspace
// installed from its lockfile alone) does it fetch that metadata from the registry.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const readme = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').filter((b) => b.includes('pnpm pack:into'));
const { packageManager } = JSON.parse(fs.readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { packageManager: string };

/** The pnpm store of the user running the suite, or why an install from it cannot run. */
function store(): { readonly dir: string } | { readonly blocker: string } {
  const r = spawnSync('pnpm', ['store', 'path'], { cwd: REPO, encoding: 'utf8' });
  const dir = r.status === 0 ? r.stdout.trim() : '';
  if (dir === '') return { blocker: `pnpm store path failed (${r.stderr.trim().slice(0, 200)})` };
  try {
    fs.accessSync(path.join(dir, 'index'), fs.constants.R_OK | fs.constants.W_OK);
  } catch {
    return { blocker: `this user's pnpm store (${dir}) is missing or not writable, so there is nothing to install from` };
  }
  // pnpm adds the store's layout version (v10) to store-dir itself.
  return { dir: /^v\d+$/.test(path.basename(dir)) ? path.dirname(dir) : dir };
}

const found = store();
const blocker = 'blocker' in found ? found.blocker : undefined;

describe('the README block that uses a package from the clone in another project', () => {
  it('is there, once', () => {
    expect(blocks).toHaveLength(1);
  });

  describe.skipIf(blocker !== undefined)(`typed as shown, in a fresh project${blocker === undefined ? '' : ` (skipped: ${blocker})`}`, () => {
    let work: string;
    let project: string;
    let output = '';
    beforeAll(() => {
      work = fs.mkdtempSync(path.join(os.tmpdir(), 'spillway-pack-into-'));
      const home = path.join(work, 'home');
      project = path.join(home, 'my-agent');
      fs.mkdirSync(project, { recursive: true });
      // An existing pnpm project, as the README assumes: a package.json naming its pnpm.
      fs.writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'my-agent', private: true, type: 'module', packageManager }, null, 2)}\n`);
      const env = (network: 'offline' | 'prefer-offline'): NodeJS.ProcessEnv => ({
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: home,
        // This user's caches, which a real HOME would point at: corepack's copy of pnpm,
        // the pnpm store and pnpm's metadata cache.
        COREPACK_HOME: process.env.COREPACK_HOME ?? path.join(os.homedir(), '.cache', 'node', 'corepack'),
        COREPACK_ENABLE_DOWNLOAD_PROMPT: '0',
        npm_config_store_dir: 'dir' in found ? found.dir : '',
        npm_config_cache_dir: path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'pnpm'),
        npm_config_update_notifier: 'false',
        [`npm_config_${network.replace('-', '_')}`]: 'true',
        NO_COLOR: '1',
      });
      const typed = (network: 'offline' | 'prefer-offline') => spawnSync('sh', ['-ec', blocks[0] ?? 'false'], { cwd: REPO, encoding: 'utf8', env: env(network), timeout: 300_000 });
      let r = typed('offline');
      if (r.status !== 0 && /ERR_PNPM_NO_OFFLINE_(META|TARBALL)/.test(`${r.stdout}${r.stderr}`)) r = typed('prefer-offline');
      output = `${r.stdout}${r.stderr}`;
      if (r.status !== 0) throw new Error(`the README block failed (status ${String(r.status)}):\n${output.slice(-3000)}`);
    }, 600_000);
    afterAll(() => {
      fs.rmSync(work, { recursive: true, force: true });
    });

    it('installs the named packages and the spillway packages they need, from the packed tarballs', () => {
      expect(output).toContain('Peer dependencies to add there: ai@^6.0.0');
      const installed = fs.readdirSync(path.join(project, 'node_modules', '@spillway')).sort();
      expect(installed).toEqual(['ai-sdk', 'backend-utils', 'core', 'memory', 'policy', 'retrieval', 'tools']);
      // The adapter's own dependency on core is the packed one, not a registry copy.
      const adapter = fs.realpathSync(path.join(project, 'node_modules', '@spillway', 'ai-sdk'));
      const coreOfAdapter = fs.realpathSync(path.join(adapter, '..', 'core'));
      expect(coreOfAdapter).toBe(fs.realpathSync(path.join(project, 'node_modules', '@spillway', 'core')));
      const lock = fs.readFileSync(path.join(project, 'pnpm-lock.yaml'), 'utf8');
      expect(lock).toContain('spillway-packs/spillway-ai-sdk-0.0.0.tgz');
      expect(lock).not.toMatch(/'?@spillway\/core@0\.0\.0'?:\n\s+resolution: \{integrity/);
    });

    it("runs the adapter README's offline example in that project", () => {
      const adapterReadme = fs.readFileSync(path.join(REPO, 'packages', 'spill-ai-sdk', 'README.md'), 'utf8');
      const example = [...adapterReadme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((code) => code.includes("from 'ai/test'"));
      expect(example).toBeDefined();
      const js = ts.transpileModule(example ?? '', { compilerOptions: { target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.ESNext } }).outputText;
      fs.writeFileSync(path.join(project, 'main.mjs'), js);
      const r = spawnSync(process.execPath, ['main.mjs'], { cwd: project, encoding: 'utf8' });
      expect(r.stderr).toBe('');
      expect(r.status).toBe(0);
      expect(r.stdout).toContain('3211: ERROR disk full on /var\n(1 matching line for "ERROR".)');
    });
  });
});
