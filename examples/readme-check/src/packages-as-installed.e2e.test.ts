import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ts from 'typescript';
import { linkWorkspace, workspacePackages } from './readme-blocks.js';

// What a user gets from the registry: the files `npm pack` puts in each publishable
// package. Source maps must resolve inside it, no build or test leftovers go in, its
// README links nowhere outside it, and it says it is ESM-only.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const run = promisify(execFile);

interface Packed {
  readonly name: string;
  readonly dir: string;
  readonly files: readonly string[];
}

let cache: string;
const packed: Packed[] = [];
const publishable = [...workspacePackages(REPO)].filter(([, dir]) => (JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { private?: boolean }).private !== true);

beforeAll(async () => {
  cache = fs.mkdtempSync(path.join(os.tmpdir(), 'spillway-pack-'));
  const env = { ...process.env, npm_config_cache: cache, npm_config_update_notifier: 'false' };
  const lists = await Promise.all(
    publishable.map(async ([name, dir]) => {
      const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
      const [report] = JSON.parse(stdout) as [{ files: { path: string }[] }];
      return { name, dir, files: report.files.map((f) => f.path) };
    }),
  );
  packed.push(...lists);
}, 300_000); // an npm pack per publishable package, all at once: minutes on a loaded machine
afterAll(() => {
  fs.rmSync(cache, { recursive: true, force: true });
});

describe('the publishable packages, as packed', () => {
  it('are exactly the ones scripts/pack.mjs packs (no private package)', async () => {
    const { stdout } = await run(process.execPath, [path.join(REPO, 'scripts/pack.mjs'), '--list']);
    expect(stdout.trim().split('\n').map((d) => path.join(REPO, d)).sort()).toEqual(publishable.map(([, dir]) => dir).sort());
    expect(publishable.length).toBeGreaterThan(0);
  });

  it('hold no build logs, build info or tests', () => {
    for (const { name, files } of packed) {
      expect(files.filter((f) => /(^|\/)\.turbo\/|tsbuildinfo|\.test\.|(^|\/)__tests__\/|(^|\/)test-[^/]*$/.test(f)), name).toEqual([]);
      expect(files, name).toContain('README.md');
      expect(files, name).toContain('dist/index.js');
    }
  });

  it('have no file named like a README besides their own (pnpm pack ships those whatever `files` says)', () => {
    for (const [name, dir] of publishable) {
      const named: string[] = [];
      const walk = (d: string): void => {
        for (const entry of fs.readdirSync(d, { withFileTypes: true })) {
          if (entry.name === 'node_modules' || entry.name === 'dist') continue;
          const p = path.join(d, entry.name);
          if (entry.isDirectory()) walk(p);
          else if (/^readme(\.|$)/i.test(entry.name) && p !== path.join(dir, 'README.md')) named.push(path.relative(dir, p));
        }
      };
      walk(dir);
      expect(named, name).toEqual([]);
    }
  });

  it('ship every source a source map or declaration map points at', () => {
    const missing: string[] = [];
    let maps = 0;
    for (const { name, dir, files } of packed) {
      const shipped = new Set(files);
      for (const map of files.filter((f) => f.endsWith('.map'))) {
        maps++;
        const { sources, sourcesContent } = JSON.parse(fs.readFileSync(path.join(dir, map), 'utf8')) as { sources: string[]; sourcesContent?: (string | null)[] };
        sources.forEach((source, i) => {
          if (typeof sourcesContent?.[i] === 'string') return;
          const target = path.posix.normalize(path.posix.join(path.posix.dirname(map), source));
          if (!shipped.has(target)) missing.push(`${name}: ${map} -> ${target}`);
        });
      }
    }
    expect(maps).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('have READMEs whose relative links lead to packed files', () => {
    const dangling: string[] = [];
    for (const { name, dir, files } of packed) {
      const text = fs.readFileSync(path.join(dir, 'README.md'), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = (m[1] ?? '').split('#')[0] ?? '';
        if (target === '' || /^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
        const rel = path.posix.normalize(target);
        if (!files.some((f) => f === rel || f.startsWith(`${rel}/`))) dangling.push(`${name}: ${target}`);
      }
    }
    expect(dangling).toEqual([]);
  });

  it('are ES modules only, and say so in their READMEs', () => {
    for (const { name, dir } of packed) {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { type?: string; exports?: Record<string, unknown> };
      expect(pkg.type, name).toBe('module');
      expect(JSON.stringify(pkg.exports), name).not.toMatch(/"require"/);
      expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'), name).toMatch(/ES modules only/);
    }
  });

  it("say which @types/node a package's declarations need, where they use Node's types", () => {
    for (const { name, dir, files } of packed) {
      const usesNode = files.filter((f) => f.endsWith('.d.ts')).some((f) => /from 'node:|NodeJS\./.test(fs.readFileSync(path.join(dir, f), 'utf8')));
      if (usesNode) expect(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'), name).toMatch(/@types\/node/);
    }
  });

  it('need @types/node exactly where their READMEs say so: with the DOM lib alone a consumer compiles only when the README does not ask for it', () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'spillway-consumer-'));
    try {
      linkWorkspace(REPO, work);
      fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
      // Every package's types use AbortSignal, which the DOM lib or @types/node declares;
      // the ones that also use Node's own modules, or bring dependencies whose types do,
      // need @types/node.
      const files = packed.map(({ name }) => {
        const file = path.join(work, `${name.replace(/\W+/g, '_')}.ts`);
        fs.writeFileSync(file, `import * as pkg from '${name}';\nexport const loaded = Object.keys(pkg).length;\n`);
        return file;
      });
      // One program per package: a consumer installs one package (and what it brings), so
      // every error in that program, in its own files or in its dependencies' types, is
      // what that package's user meets.
      const errorsOf = (file: string, types: string[]): string[] => {
        const program = ts.createProgram([file], {
          module: ts.ModuleKind.NodeNext,
          moduleResolution: ts.ModuleResolutionKind.NodeNext,
          target: ts.ScriptTarget.ES2023,
          lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.esnext.disposable.d.ts'],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types,
        });
        return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, ' '));
      };
      packed.forEach(({ name, dir }, i) => {
        const file = files[i] ?? '';
        const says = /@types\/node/.test(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'));
        const errors = errorsOf(file, []);
        expect(errors.length > 0, `${name} without @types/node: ${errors.slice(0, 2).join(' | ')}`).toBe(says);
        expect(errorsOf(file, ['node']), `${name} with @types/node`).toEqual([]);
      });
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
    // Two full type-checks per package, libraries included: many minutes on a loaded machine.
  }, 1_800_000);
});
