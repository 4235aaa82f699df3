import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractTsBlocks, linkWorkspace, markdownFiles } from './readme-blocks.js';

// The root README's harness program runs as written, and the output the README shows
// (twice: at the top and after the program) is what it really prints.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const README = fs.readFileSync(path.join(REPO, 'README.md'), 'utf8');
const SECTION = README.indexOf('## Use it in a harness');

/** The first ```text block after `from` in the README. */
function textBlockAfter(from: number): string {
  const start = README.indexOf('```text\n', from);
  const end = README.indexOf('\n```', start + 8);
  return README.slice(start + 8, end);
}

/** The artifact's random part differs on every run; everything else must match. */
function stable(text: string): string {
  return text.replace(/(\/session-[0-9a-f]{32}\/)[0-9a-f]{20}-/g, '$1<random>-');
}

const README_HOME = '/home/alice';
const homes: string[] = [];
let work: string;
let run: { status: number | null; stdout: string; stderr: string };
beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'spillway-readme-harness-'));
  linkWorkspace(REPO, work);
  fs.writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const block = extractTsBlocks(README.slice(SECTION), 'README.md')[0];
  const js = ts.transpileModule(block?.code ?? '', { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
  fs.writeFileSync(path.join(work, 'harness.mjs'), js);
  // The preview's size depends on the locator's length, so HOME must be exactly as long
  // as the README's /home/alice: a fresh /tmp/XXXXXX is.
  const home = fs.mkdtempSync('/tmp/');
  homes.push(home);
  if (home.length !== README_HOME.length) throw new Error(`${home} is not ${String(README_HOME.length)} characters long`);
  // XDG_STATE_HOME unset, so the default root is under HOME, as the README says.
  const env = { PATH: process.env.PATH ?? '', HOME: home };
  run = spawnSync(process.execPath, [path.join(work, 'harness.mjs')], { cwd: work, env, encoding: 'utf8' });
  run = { status: run.status, stdout: run.stdout.replaceAll(home, README_HOME), stderr: run.stderr };
});
afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
  for (const home of homes) fs.rmSync(home, { recursive: true, force: true });
});

describe("the root README's harness program", () => {
  it('runs as written and spills into the per-user root', () => {
    expect(run.stderr).toBe('[spill] spilled web_fetch\n');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/Full formatted result stored at: \/home\/alice\/\.local\/state\/spillway\/session-[0-9a-f]{32}\/[0-9a-f]{20}-web_fetch\.txt\./);
  });

  it('prints exactly the output the README shows after it', () => {
    expect(stable(textBlockAfter(SECTION))).toBe(stable(run.stdout.trimEnd()));
  });

  it('prints exactly the output the README opens with', () => {
    expect(stable(textBlockAfter(0))).toBe(stable(run.stdout.trimEnd()));
  });
});

describe('example locators in the docs', () => {
  it('have the shape the local backend produces: session-<32 hex>/<20 hex>-<name>', () => {
    const files = markdownFiles(REPO);
    let seen = 0;
    for (const file of files) {
      const text = fs.readFileSync(path.join(REPO, file), 'utf8');
      for (const m of text.matchAll(/session-([0-9a-f]+)\/([0-9a-f]+)-/g)) {
        seen++;
        expect({ file, session: m[1]?.length, leaf: m[2]?.length }).toEqual({ file, session: 32, leaf: 20 });
      }
    }
    expect(seen).toBeGreaterThan(0);
  });
});
