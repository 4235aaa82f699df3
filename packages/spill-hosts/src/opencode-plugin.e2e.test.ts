import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { diagnoseHost, setupHost, undoHost, type SetupEnvironment } from './index.js';
import { OPENCODE_PLUGIN_MARK, opencodePlugin } from './opencode-plugin.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function world(): { base: string; env: SetupEnvironment; plugin: string; script: string } {
  const base = mkdtempSync(join(tmpdir(), 'opencode-plugin-'));
  made.push(base);
  const home = join(base, 'home');
  mkdirSync(join(home, '.config', 'opencode'), { recursive: true });
  mkdirSync(join(base, 'project'));
  const script = join(base, 'install', 'bin', 'spillway.js');
  mkdirSync(join(base, 'install', 'bin'), { recursive: true });
  writeFileSync(script, '');
  return {
    base,
    script,
    plugin: join(home, '.config', 'opencode', 'plugin', 'spillway.js'),
    env: { home, cwd: join(base, 'project'), env: {}, command: { node: process.execPath, spillway: script }, stateDir: join(base, 'state') },
  };
}

describe("OpenCode's plugin", () => {
  it('setup writes it (and the plugin directory), again leaves it, a new cap rewrites it, and undo removes it', () => {
    const w = world();
    expect(setupHost('opencode', w.env).files.find((f) => f.path === w.plugin)?.status).toBe('changed');
    const text = readFileSync(w.plugin, 'utf8');
    expect(text.startsWith(OPENCODE_PLUGIN_MARK)).toBe(true);
    expect(text).toContain(`const SPILLWAY = ${JSON.stringify(w.script)};`);
    expect(text).toContain('const CAP = 16384;');
    expect(setupHost('opencode', w.env).files.find((f) => f.path === w.plugin)?.status).toBe('unchanged');
    setupHost('opencode', { ...w.env, maxInlineBytes: 4096 });
    expect(readFileSync(w.plugin, 'utf8')).toContain('const CAP = 4096;');
    expect(undoHost('opencode', w.env).files.find((f) => f.path === w.plugin)?.status).toBe('restored');
    expect(existsSync(w.plugin)).toBe(false);
  });

  it("leaves another tool's file of that name alone, and is not written where OpenCode has no config directory", () => {
    const w = world();
    mkdirSync(join(w.env.home, '.config', 'opencode', 'plugin'));
    writeFileSync(w.plugin, 'export const Mine = async () => ({});\n');
    const report = setupHost('opencode', w.env).files.find((f) => f.path === w.plugin);
    expect(report?.changes.join('\n')).toContain('left content as it is');
    expect(readFileSync(w.plugin, 'utf8')).toBe('export const Mine = async () => ({});\n');
    const bare = world();
    rmSync(join(bare.env.home, '.config', 'opencode'), { recursive: true });
    expect(setupHost('opencode', bare.env).files.find((f) => f.path === bare.plugin)?.status).toBe('missing');
  });

  it('doctor reports it covered, and broken once the spillway it runs is gone', () => {
    const w = world();
    setupHost('opencode', w.env);
    expect(diagnoseHost('opencode', w.env).settings.find((s) => s.file === w.plugin)?.status).toBe('covered');
    rmSync(w.script);
    expect(diagnoseHost('opencode', w.env).settings.find((s) => s.file === w.plugin)).toMatchObject({ status: 'broken', code: 'SETTING_BROKEN' });
  });

  it("replaces a large built-in output with what spillway run prints, and leaves small outputs, MCP results, notices and failures alone", async () => {
    const w = world();
    // A stand-in for spillway: prints a notice for what it was given on stdin or as a file.
    const standIn = join(w.base, 'stand-in.mjs');
    writeFileSync(
      standIn,
      `import { readFileSync } from 'node:fs';\nconst args = process.argv.slice(2);\nif (args.includes('fail')) process.exit(1);\nconst file = args.at(-1) === 'cat' ? 0 : args.at(-1);\nconst text = readFileSync(file, 'utf8');\nprocess.stdout.write('preview of ' + String(text.length) + ' (' + args.slice(0, 8).join(' ') + ')\\n(Omitted 1 bytes. Full formatted result stored at: /x/y.txt. Use spillway read.)');\n`,
    );
    const pluginFile = join(w.base, 'plugin.mjs');
    writeFileSync(pluginFile, opencodePlugin({ node: process.execPath, spillway: standIn }, 100));
    const { SpillwayPlugin } = (await import(pathToFileURL(pluginFile).href)) as { SpillwayPlugin: () => Promise<Record<string, (i: unknown, o: { output: string; metadata?: unknown }) => Promise<void>>> };
    const hook = (await SpillwayPlugin())['tool.execute.after'];
    if (hook === undefined) throw new Error('no tool.execute.after hook');
    const call = async (tool: string, output: string, metadata?: unknown, session = 'ses_1'): Promise<string> => {
      const o = { output, metadata };
      await hook({ tool, sessionID: session, callID: 'c' }, o);
      return o.output;
    };
    expect(await call('bash', 'small')).toBe('small');
    expect(await call('big_get_big', 'x'.repeat(500))).toBe('x'.repeat(500));
    const notice = `${'y'.repeat(200)}(Omitted 5 bytes. Full formatted result stored at: /a/b.txt. Use spillway read.)`;
    expect(await call('bash', notice)).toBe(notice);
    expect(await call('bash', 'z'.repeat(500))).toMatch(/^preview of 500 \(run --max-inline-bytes 100 --name bash --session ses_1 --\)/);
    const whole = join(w.base, 'whole.txt');
    writeFileSync(whole, 'w'.repeat(9000));
    expect(await call('grep', 'cut by OpenCode', { truncated: true, outputPath: whole })).toMatch(/^preview of 9000 /);
    expect(await call('bash', 'q'.repeat(500), undefined, 'fail')).toBe('q'.repeat(500));
  });
});
