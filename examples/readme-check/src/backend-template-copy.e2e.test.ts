import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The backend template's README says: copy the folder, rename the package in
// package.json. A vitest run over the original and the copy together must then work,
// which needs each project's name to follow its package.json.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const TEMPLATE = path.join(REPO, 'examples', 'backend-template');
const VITEST = path.join(REPO, 'node_modules', 'vitest', 'vitest.mjs');

let work: string;
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'spillway-template-copy-'));
  const copy = path.join(work, 'spill-mine');
  // Step 1 of the README: copy the folder (sources and configs) and rename the package.
  fs.cpSync(TEMPLATE, copy, { recursive: true, filter: (src) => !/\/(node_modules|dist|\.turbo)$/.test(src) });
  fs.symlinkSync(fs.realpathSync(path.join(TEMPLATE, 'node_modules')), path.join(copy, 'node_modules'), 'dir');
  const pkgFile = path.join(copy, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8')) as Record<string, unknown>;
  fs.writeFileSync(pkgFile, JSON.stringify({ ...pkg, name: '@spillway/mine' }, null, 2));
  // A workspace root whose vitest run sees the original and the copy, as the repository's does.
  fs.symlinkSync(fs.realpathSync(path.join(REPO, 'node_modules')), path.join(work, 'node_modules'), 'dir');
  fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  fs.writeFileSync(
    path.join(work, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config';\nexport default defineConfig({ test: { projects: [${JSON.stringify(TEMPLATE)}, './spill-mine'] } });\n`,
  );
});
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

describe('a renamed copy of examples/backend-template', () => {
  it('runs next to the original: its vitest project is named after its package.json', () => {
    const listed = spawnSync(process.execPath, [VITEST, 'list', '--root', work, '--filesOnly', '--json'], { cwd: work, encoding: 'utf8', env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' } });
    expect(listed.stderr).not.toMatch(/not unique/);
    expect(listed.status, listed.stderr).toBe(0);
    const files = JSON.parse(listed.stdout) as { file: string; projectName: string }[];
    expect(new Set(files.map((f) => f.projectName))).toEqual(new Set(['@spillway/example-backend-template', '@spillway/mine']));
    expect(files.filter((f) => f.projectName === '@spillway/mine').map((f) => path.basename(f.file))).toContain('template-backend.test.ts');
  });

  it('needs no other rename: no file of the template names the template package, except package.json and the README', () => {
    const named: string[] = [];
    const walk = (dir: string): void => {
      for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
        if (e.name === 'node_modules' || e.name === 'dist' || e.name === '.turbo') continue;
        const p = path.join(dir, e.name);
        if (e.isDirectory()) walk(p);
        else if (fs.readFileSync(p, 'utf8').includes('example-backend-template')) named.push(path.relative(TEMPLATE, p));
      }
    };
    walk(TEMPLATE);
    expect(named.sort()).toEqual(['README.md', 'package.json']);
    const pkg = JSON.parse(fs.readFileSync(path.join(TEMPLATE, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.test).not.toContain('example-backend-template');
  });
});
