// Finds the TypeScript blocks of the repository's Markdown and type-checks them, each as
// a standalone module importing the workspace packages by their public names.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** One fenced ` ```ts ` block. */
export interface CodeBlock {
  /** The Markdown file, relative to the repository root. */
  readonly file: string;
  /** Its position among that file's TypeScript blocks, from 1. */
  readonly index: number;
  /** The file line of the block's first code line, from 1. */
  readonly line: number;
  /** The code, without the fences. */
  readonly code: string;
}

/** Folders whose direct subfolders hold a package with a README. */
const PACKAGE_FOLDERS = ['packages', 'examples'];

function isFile(p: string): boolean {
  try {
    return fs.statSync(p).isFile();
  } catch {
    return false;
  }
}

function subdirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== 'node_modules' && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
}

/**
 * Every Markdown file whose code blocks must compile, relative to `repoRoot`: the root
 * README, each `packages/*` and `examples/*` README, and every `docs/*.md`. Found by
 * walking, so a package added later is covered without changing this list.
 */
export function markdownFiles(repoRoot: string): string[] {
  const out: string[] = [];
  if (isFile(path.join(repoRoot, 'README.md'))) out.push('README.md');
  for (const folder of PACKAGE_FOLDERS) {
    for (const name of subdirs(path.join(repoRoot, folder))) {
      const readme = path.join(folder, name, 'README.md');
      if (isFile(path.join(repoRoot, readme))) out.push(readme);
    }
  }
  try {
    for (const name of fs.readdirSync(path.join(repoRoot, 'docs')).sort()) {
      if (name.endsWith('.md')) out.push(path.join('docs', name));
    }
  } catch {
    // no docs folder
  }
  return out;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/;

/** The ` ```ts ` / ` ```typescript ` blocks of one Markdown text. */
export function extractTsBlocks(markdown: string, file: string): CodeBlock[] {
  const lines = markdown.split('\n');
  const blocks: CodeBlock[] = [];
  let open: { fence: string; lang: string; start: number; body: string[] } | undefined;
  lines.forEach((line, i) => {
    const m = FENCE.exec(line);
    if (open === undefined) {
      if (m !== null) open = { fence: m[2] ?? '```', lang: (m[3] ?? '').toLowerCase(), start: i + 2, body: [] };
      return;
    }
    if (m !== null && (m[2] ?? '').startsWith(open.fence) && (m[3] ?? '') === '') {
      if (open.lang === 'ts' || open.lang === 'typescript') {
        blocks.push({ file, index: blocks.length + 1, line: open.start, code: open.body.join('\n') });
      }
      open = undefined;
      return;
    }
    open.body.push(line);
  });
  return blocks;
}

/** Every TypeScript block of every file {@link markdownFiles} finds. */
export function collectBlocks(repoRoot: string): CodeBlock[] {
  return markdownFiles(repoRoot).flatMap((file) => extractTsBlocks(fs.readFileSync(path.join(repoRoot, file), 'utf8'), file));
}

/** The workspace's packages: public name → folder. */
export function workspacePackages(repoRoot: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const folder of PACKAGE_FOLDERS) {
    for (const name of subdirs(path.join(repoRoot, folder))) {
      const dir = path.join(repoRoot, folder, name);
      try {
        const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown };
        if (typeof pkg.name === 'string') out.set(pkg.name, dir);
      } catch {
        // not a package
      }
    }
  }
  return out;
}

/** `name` or `@scope/name` entries of a node_modules folder, with their paths. */
function installed(nodeModules: string): [string, string][] {
  const out: [string, string][] = [];
  for (const name of subdirs(nodeModules).concat(symlinkedDirs(nodeModules))) {
    if (name.startsWith('@')) {
      for (const inner of subdirs(path.join(nodeModules, name)).concat(symlinkedDirs(path.join(nodeModules, name)))) {
        out.push([`${name}/${inner}`, path.join(nodeModules, name, inner)]);
      }
    } else {
      out.push([name, path.join(nodeModules, name)]);
    }
  }
  return out;
}

function symlinkedDirs(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((e) => e.isSymbolicLink() && !e.name.startsWith('.'))
      .map((e) => e.name);
  } catch {
    return [];
  }
}

/**
 * Makes `node_modules` in `dir` resolve every workspace package by its public name, and
 * every dependency installed for the root or for any workspace package (first found wins),
 * so that a block can import what a user of those packages would have installed.
 */
export function linkWorkspace(repoRoot: string, dir: string): void {
  const nodeModules = path.join(dir, 'node_modules');
  const link = (name: string, target: string): void => {
    const at = path.join(nodeModules, name);
    if (fs.existsSync(at)) return;
    fs.mkdirSync(path.dirname(at), { recursive: true });
    fs.symlinkSync(fs.realpathSync(target), at, 'dir');
  };
  const packages = workspacePackages(repoRoot);
  for (const [name, pkgDir] of packages) link(name, pkgDir);
  for (const folder of [repoRoot, ...packages.values()]) {
    for (const [name, target] of installed(path.join(folder, 'node_modules'))) {
      if (!name.startsWith('.')) {
        try {
          link(name, target);
        } catch {
          // a dangling link in an install: skip it
        }
      }
    }
  }
}

/** What one type-check run found. */
export interface BlockCheck {
  /** Diagnostics per block, each `README.md:42:7 TS2304 Cannot find name 'x'.` */
  readonly byBlock: Map<CodeBlock, string[]>;
  /** Anything tsc printed that maps to no block (a broken setup). */
  readonly other: string[];
}

/** The file name a block is written to. */
function blockFileName(block: CodeBlock, n: number): string {
  return `b${String(n).padStart(3, '0')}-${block.file.replace(/[^A-Za-z0-9]+/g, '_')}-${String(block.index)}.ts`;
}

/**
 * Writes each block into `workDir` as its own module and type-checks them all in one
 * `tsc --noEmit` run under the repository's compiler options (`tsconfig.base.json`).
 */
export function checkBlocks(repoRoot: string, blocks: readonly CodeBlock[], workDir: string): BlockCheck {
  linkWorkspace(repoRoot, workDir);
  fs.writeFileSync(path.join(workDir, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  const names = new Map<string, CodeBlock>();
  blocks.forEach((block, n) => {
    const name = blockFileName(block, n);
    names.set(name, block);
    // `export {}` makes a block without imports a module too, so blocks never share scope.
    fs.writeFileSync(path.join(workDir, name), `${block.code}\nexport {};\n`);
  });
  const tsconfig = {
    extends: path.join(repoRoot, 'tsconfig.base.json'),
    compilerOptions: { noEmit: true, declaration: false, declarationMap: false, sourceMap: false, types: ['node'], skipLibCheck: true },
    files: [...names.keys()],
  };
  fs.writeFileSync(path.join(workDir, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  // The compiler API rather than the tsc binary: tsc stops at syntax errors and would
  // then say nothing about the other blocks' types.
  const configPath = path.join(workDir, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, workDir, undefined, configPath);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const byBlock = new Map<CodeBlock, string[]>(blocks.map((b) => [b, []]));
  const other = [...parsed.errors, ...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()].map(
    (d) => `TS${String(d.code)} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`,
  );
  for (const [name, block] of names) {
    const source = program.getSourceFile(path.join(workDir, name));
    if (source === undefined) {
      other.push(`${name} (${block.file} block ${String(block.index)}) was not part of the program.`);
      continue;
    }
    for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
      const at = source.getLineAndCharacterOfPosition(d.start ?? 0);
      byBlock
        .get(block)
        ?.push(`${block.file}:${String(block.line + at.line)}:${String(at.character + 1)} TS${String(d.code)} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
  }
  return { byBlock, other };
}
