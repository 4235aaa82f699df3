import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnoseHost, setupHost, undoHost, type SetupEnvironment } from './index.js';

// No Codex hook can keep a shell command's whole output, so setup asks the model, in a
// marked block of $CODEX_HOME/AGENTS.md, to run long commands through `spillway run`.

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function world(): { env: SetupEnvironment; agents: string; script: string } {
  const base = mkdtempSync(join(tmpdir(), 'codex-instructions-'));
  made.push(base);
  const home = join(base, 'home');
  mkdirSync(join(home, '.codex'), { recursive: true });
  mkdirSync(join(base, 'project'));
  const script = join(base, 'install', 'bin', 'spillway.js');
  mkdirSync(join(base, 'install', 'bin'), { recursive: true });
  writeFileSync(script, '');
  return { script, agents: join(home, '.codex', 'AGENTS.md'), env: { home, cwd: join(base, 'project'), env: {}, command: { node: process.execPath, spillway: script }, stateDir: join(base, 'state') } };
}

const MINE = '# My rules\n\nAlways run the linter.\n';

describe("Codex's AGENTS.md block", () => {
  it("is added after the person's own instructions, names spillway run with Codex's cap, and undo gives the bytes back", () => {
    const w = world();
    writeFileSync(w.agents, MINE);
    const report = setupHost('codex', w.env);
    expect(report.files.find((f) => f.path === w.agents)?.status).toBe('changed');
    const text = readFileSync(w.agents, 'utf8');
    expect(text.startsWith(`${MINE}\n<!-- spillway:begin -->\n`)).toBe(true);
    expect(text).toContain(`${process.execPath} ${w.script} run --max-inline-bytes 8192 -- <command>`);
    expect(setupHost('codex', w.env).files.find((f) => f.path === w.agents)?.status).toBe('unchanged');
    expect(undoHost('codex', w.env).files.find((f) => f.path === w.agents)?.status).toBe('restored');
    expect(readFileSync(w.agents, 'utf8')).toBe(MINE);
  });

  it('is created when Codex has no AGENTS.md yet, and undo removes the file it created', () => {
    const w = world();
    setupHost('codex', w.env);
    expect(readFileSync(w.agents, 'utf8')).toMatch(/^<!-- spillway:begin -->\n## Long command output\n/);
    undoHost('codex', w.env);
    expect(existsSync(w.agents)).toBe(false);
  });

  it('setup again with a new cap rewrites the block in place; after an edit by hand, undo takes out only the block', () => {
    const w = world();
    writeFileSync(w.agents, MINE);
    setupHost('codex', w.env);
    setupHost('codex', { ...w.env, maxInlineBytes: 4096 });
    const text = readFileSync(w.agents, 'utf8');
    expect(text.match(/spillway:begin/g)).toHaveLength(1);
    expect(text).toContain('run --max-inline-bytes 4096 --');
    writeFileSync(w.agents, `${text}\nA rule added later.\n`);
    expect(undoHost('codex', w.env).files.find((f) => f.path === w.agents)?.status).toBe('removed');
    expect(readFileSync(w.agents, 'utf8')).toBe(`${MINE}\nA rule added later.\n`);
  });

  it('doctor reports the block missing (no file, or a file without it), covered after setup, and broken once the spillway it names is gone', () => {
    const w = world();
    const block = (): unknown => diagnoseHost('codex', w.env).settings.find((s) => s.file === w.agents);
    expect(block()).toMatchObject({ status: 'not-covered', code: 'SETTING_MISSING' });
    writeFileSync(w.agents, MINE);
    expect(block()).toMatchObject({ status: 'not-covered', code: 'SETTING_MISSING' });
    setupHost('codex', w.env);
    const covered = diagnoseHost('codex', w.env).settings.find((s) => s.file === w.agents);
    expect(covered?.status).toBe('covered');
    rmSync(w.script);
    const broken = diagnoseHost('codex', w.env).settings.find((s) => s.file === w.agents);
    expect(broken).toMatchObject({ status: 'broken', code: 'SETTING_BROKEN' });
  });

  it('a file with an unpaired marker is refused and left as it is', () => {
    const w = world();
    writeFileSync(w.agents, '<!-- spillway:begin -->\nhalf a block\n');
    expect(setupHost('codex', w.env).files.find((f) => f.path === w.agents)?.status).toBe('refused');
    expect(readFileSync(w.agents, 'utf8')).toBe('<!-- spillway:begin -->\nhalf a block\n');
  });
});
