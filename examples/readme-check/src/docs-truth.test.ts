import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { markdownFiles, workspacePackages } from './readme-blocks.js';

// The project speaks about itself: its docs, READMEs, changesets and code never describe
// how the work on it was organised, and every link they hold leads somewhere that exists.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
// A corpus holds recorded tool outputs and the questions a model would ask of them: their
// words are the tools' and the model's, not the project's.
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', '.turbo', 'bench-results', 'coverage', 'corpus']);
const TEXT = /\.(md|ts|js|mjs|json|ya?ml)$/;

function textFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (SKIP_DIRS.has(e.name)) continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) textFiles(p, out);
    else if (TEXT.test(e.name) && e.name !== 'pnpm-lock.yaml') out.push(p);
  }
  return out;
}

/** Wording about the work rather than the project. */
const ORGANISATION = [/\bissues? \d+(?: and \d+)?\b/i, /\bthis machine\b/i, /\bas here\b/i, /\bthe lead\b/i, /\bindependent review\b/i, /\bTHREATS\.md\b/];

describe('the project speaks about itself', () => {
  it('no file says which issue, machine or review a change came from', () => {
    const self = fileURLToPath(import.meta.url);
    const found: string[] = [];
    for (const file of textFiles(REPO)) {
      if (file === self) continue;
      fs.readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          for (const re of ORGANISATION) if (re.test(line)) found.push(`${path.relative(REPO, file)}:${String(i + 1)}: ${line.trim()}`);
        });
    }
    expect(found).toEqual([]);
  });
});

/** The relative link targets of a Markdown text (not URLs, not in-page anchors). */
function relativeLinks(markdown: string): string[] {
  const out: string[] = [];
  const withoutCode = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  for (const m of withoutCode.matchAll(/\]\(([^)\s]+)\)/g)) {
    const target = m[1] ?? '';
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#')) continue;
    out.push(target.split('#')[0] ?? '');
  }
  return out;
}

describe('links', () => {
  it('every relative link in the READMEs and docs leads to a file or folder of the repository', () => {
    const broken: string[] = [];
    for (const file of markdownFiles(REPO)) {
      for (const target of relativeLinks(fs.readFileSync(path.join(REPO, file), 'utf8'))) {
        if (!fs.existsSync(path.join(REPO, path.dirname(file), target))) broken.push(`${file} -> ${target}`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('a published package README stands alone once installed: no relative link leaves the package', () => {
    const leaving: string[] = [];
    for (const [name, dir] of workspacePackages(REPO)) {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { private?: boolean; files?: string[] };
      const readme = path.join(dir, 'README.md');
      if (pkg.private === true || !fs.existsSync(readme)) continue;
      for (const target of relativeLinks(fs.readFileSync(readme, 'utf8'))) {
        const resolved = path.resolve(dir, target);
        if (resolved !== dir && !resolved.startsWith(`${dir}${path.sep}`)) leaving.push(`${name}: ${target}`);
      }
    }
    expect(leaving).toEqual([]);
  });
});
