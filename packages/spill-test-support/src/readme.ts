// What a package's README test needs: the README's ```ts blocks, type-checked as standalone
// ES modules, and the package packed and installed alone in a temporary project.
import { execFileSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';

/** One ```ts block of a README, with the line it starts on. */
export interface ReadmeBlock {
  /** The README line of the block's first line of code (1-based). */
  readonly line: number;
  /** The block's code, without its fences. */
  readonly code: string;
}

/** The ```ts blocks of a Markdown file. */
export function readmeBlocks(readmePath: string): ReadmeBlock[] {
  const blocks: ReadmeBlock[] = [];
  const lines = readFileSync(readmePath, 'utf8').split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]?.trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end]?.trim() !== '```') end++;
    blocks.push({ line: start + 1, code: lines.slice(start, end).join('\n') });
    i = end;
  }
  return blocks;
}

/**
 * Type-checks each block as its own ES module placed in the package's `src` (never written
 * to disk), with the package's own name mapped to its source, together with `alsoCheck`
 * (files of the package, such as a type-level test). Answers the diagnostics.
 */
export function typecheckBlocks(
  packageDir: string,
  packageName: string,
  blocks: readonly ReadmeBlock[],
  alsoCheck: readonly string[] = [],
): string[] {
  const files = new Map(blocks.map((b) => [join(packageDir, 'src', `readme-block-${String(b.line)}.ts`), b.code]));
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2023,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noEmit: true,
    skipLibCheck: true,
    types: ['node'],
    paths: { [packageName]: [join(packageDir, 'src', 'index.ts')] },
  };
  const disk = ts.createCompilerHost(options);
  const host: ts.CompilerHost = {
    ...disk,
    fileExists: (f) => files.has(f) || disk.fileExists(f),
    readFile: (f) => files.get(f) ?? disk.readFile(f),
    getSourceFile: (f, language, ...rest) => {
      const code = files.get(f);
      return code === undefined ? disk.getSourceFile(f, language, ...rest) : ts.createSourceFile(f, code, language);
    },
  };
  const program = ts.createProgram([...files.keys(), ...alsoCheck], options, host);
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.has(d.file.fileName) || alsoCheck.includes(d.file.fileName))
    .map((d) => {
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
      // A block's file is named after the README line the block starts on.
      const file = d.file ? d.file.fileName.replace(/.*readme-block-(\d+)\.ts$/, 'README block at line $1') : 'README';
      return `${file}${where ? `, line ${String(where.line + 1)} of it` : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
}

/** A block as JavaScript, its types removed, to run with node. */
export function transpile(code: string): string {
  return ts.transpileModule(code, { compilerOptions: { target: ts.ScriptTarget.ES2023, module: ts.ModuleKind.ESNext } }).outputText;
}

/**
 * Why an offline install cannot run for this user (its pnpm store is missing or not
 * writable, as for `nobody` on a machine set up as root), or `undefined` when it can.
 */
export function offlineInstallBlocker(): string | undefined {
  let store: string;
  try {
    store = execFileSync('pnpm', ['store', 'path'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch (error) {
    return `pnpm store path failed (${String(error)})`;
  }
  try {
    accessSync(join(store, 'index'), constants.R_OK | constants.W_OK);
    return undefined;
  } catch {
    return `this user's pnpm store (${store}) is missing or not writable, so an offline install has nothing to install from`;
  }
}

/**
 * `pnpm install --offline` found no cached metadata or tarball for a package. A workspace
 * installed from its lockfile alone (`--frozen-lockfile`, as CI does) has the tarballs in
 * the store but not the registry metadata that resolving a new project needs; any
 * `pnpm add` or non-frozen `pnpm install` on the host caches it.
 */
export class OfflineCacheMissing extends Error {
  /** @param detail - pnpm's `ERR_PNPM_NO_OFFLINE_*` line. */
  constructor(detail: string) {
    super(`pnpm cannot resolve the frameworks offline here (${detail.trim()}); a non-frozen pnpm install caches what it needs`);
    this.name = 'OfflineCacheMissing';
  }
}

/**
 * Packs the given workspace packages (name → folder under `packages/`) with `pnpm pack`
 * into a new temporary project that depends on those tarballs (and pins every spillway
 * dependency to them) and on `extra` registry packages at exact versions, and installs it
 * with `pnpm install --offline`, from the pnpm store, with no network and no workspace.
 * Answers the project's directory.
 */
export function installPacked(
  workspaceRoot: string,
  spillwayPackages: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>>,
): string {
  const dir = mkdtempSync(join(tmpdir(), 'spillway-pack-'));
  try {
    const tarballs: Record<string, string> = {};
    for (const [name, folder] of Object.entries(spillwayPackages)) {
      const pkgDir = join(workspaceRoot, 'packages', folder);
      if (!existsSync(join(pkgDir, 'dist', 'index.js'))) throw new Error(`${name} is not built: run pnpm build first.`);
      const before = new Set(readdirSync(dir));
      execFileSync('pnpm', ['pack', '--pack-destination', dir], { cwd: pkgDir, stdio: 'pipe' });
      const made = readdirSync(dir).find((f) => f.endsWith('.tgz') && !before.has(f));
      if (made === undefined) throw new Error(`pnpm pack made no tarball for ${name}`);
      tarballs[name] = `file:${join(dir, made)}`;
    }
    // The workspace's pnpm, so that corepack does not go looking for another one.
    const { packageManager } = JSON.parse(readFileSync(join(workspaceRoot, 'package.json'), 'utf8')) as { packageManager?: string };
    const manifest = {
      name: 'spillway-pack-check',
      private: true,
      type: 'module',
      packageManager,
      dependencies: { ...tarballs, ...extra },
      pnpm: { overrides: tarballs },
    };
    writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
    try {
      execFileSync('pnpm', ['install', '--offline', '--ignore-workspace', '--config.confirmModulesPurge=false'], {
        cwd: dir,
        stdio: 'pipe',
        env: { ...process.env, npm_config_ignore_workspace_root_check: 'true' },
      });
    } catch (error) {
      const output = `${String((error as { stdout?: unknown }).stdout)}${String((error as { stderr?: unknown }).stderr)}`;
      const missing = /ERR_PNPM_NO_OFFLINE_(META|TARBALL)[^\n]*/.exec(output);
      if (missing !== null) throw new OfflineCacheMissing(missing[0]);
      throw error;
    }
  } catch (error) {
    // Nothing is left behind when packing or installing fails.
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return dir;
}

/**
 * Packs and installs `spillwayPackages` with `extra` in a temporary project (see
 * {@link installPacked}), runs the README example `code` there, transpiled, as main.mjs,
 * removes the project and answers what the example printed. Where pnpm's metadata cache
 * lacks the frameworks, it calls `skip` (the test's) with the reason.
 */
export function runPackedExample(
  workspaceRoot: string,
  spillwayPackages: Readonly<Record<string, string>>,
  extra: Readonly<Record<string, string>>,
  code: string,
  skip: (note: string) => void,
): string {
  let dir: string;
  try {
    dir = installPacked(workspaceRoot, spillwayPackages, extra);
  } catch (error) {
    // Skipped with the reason, only where pnpm's metadata cache lacks the frameworks.
    if (error instanceof OfflineCacheMissing) skip(error.message);
    throw error;
  }
  try {
    writeFileSync(join(dir, 'main.mjs'), transpile(code));
    return execFileSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Runs the README example `code`, transpiled, as a module inside the package's own folder,
 * so that its imports resolve to the workspace's built packages and the package's
 * dependencies; answers what it printed. Needs no install, so it runs wherever the
 * workspace is built: the check that the README's shown output is still the output.
 */
export function runWorkspaceExample(packageDir: string, code: string): string {
  const dir = mkdtempSync(join(packageDir, '.readme-run-'));
  try {
    writeFileSync(join(dir, 'main.mjs'), transpile(code));
    return execFileSync(process.execPath, ['main.mjs'], { cwd: dir, encoding: 'utf8' });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The output a README shows its example printing: its ```text block that starts `--- the model saw`, or '' when it has none. */
export function readmeShownOutput(readmePath: string): string {
  return /```text\n(--- the model saw[^]*?)```/.exec(readFileSync(readmePath, 'utf8'))?.[1] ?? '';
}

/** A README's runnable example and the output the README shows it printing. */
export interface ShownExample {
  /** The example's code, as the README has it. */
  readonly code: string;
  /** The README's ```text block that starts `--- the model saw`. */
  readonly shown: string;
}

/**
 * The example in `packageDir`'s README whose code holds `marker`, with the output the
 * README shows for it.
 *
 * @throws Error when the README has no such block or shows no output, so a test cannot
 * pass by comparing nothing with nothing.
 */
export function readmeShownExample(packageDir: string, marker: string): ShownExample {
  const readme = join(packageDir, 'README.md');
  const block = readmeBlocks(readme).find((b) => b.code.includes(marker));
  if (block === undefined) throw new Error(`${readme} has no ts block holding ${JSON.stringify(marker)}`);
  const shown = readmeShownOutput(readme);
  if (shown === '') throw new Error(`${readme} shows no output: add a \`\`\`text block starting "--- the model saw"`);
  return { code: block.code, shown };
}

/**
 * `text` with the random id of every memory-backend locator replaced by one placeholder:
 * that id is all that differs from run to run (the session part is the naming rule's
 * `session-<h>` of the session id, the same on every run).
 */
export function anyMemoryLocator(text: string): string {
  return text.replace(/(spill\+memory:\/\/session-[0-9a-f]{32}\/)[0-9a-f]{32}/g, '$1…');
}
