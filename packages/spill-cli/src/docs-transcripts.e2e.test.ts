import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND, ensureBuilt, PACKAGE_DIR } from './test-bin.js';
import { tempBasePerFile } from './test-temp-dirs.js';

// The shell transcripts the docs show, run for real: a ```text block right after the line
// `<!-- checked transcript -->` is a sequence of `$ command` lines, each followed by what
// it prints (stdout and stderr together) and, where shown, `[exit N]`. The blocks of one
// page run in order in one state directory, so a later block may name an artifact an
// earlier one stored; the docs' locators stand for the real ones (state directory, session
// and id mapped). The real state directory is as long as the docs' one, so that notices,
// and the previews cut to fit beside them, come out the same length.

const MARKER = '<!-- checked transcript -->';
const REPO = join(PACKAGE_DIR, '..', '..');
/** Pages whose every transcript must be checked (more may be). */
const PAGES = ['docs/cli.md'];

/** One `$ command` of a transcript and what the page shows for it. */
interface Step {
  readonly command: string;
  readonly output: string;
  readonly exitCode: number | undefined;
}

/** A checked transcript: its line in the page and its steps. */
interface Transcript {
  readonly line: number;
  readonly steps: Step[];
}

function transcriptsOf(markdown: string): Transcript[] {
  const lines = markdown.split('\n');
  const found: Transcript[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== MARKER) continue;
    if (lines[i + 1] !== '```text') throw new Error(`line ${String(i + 1)}: ${MARKER} must be followed by a \`\`\`text block`);
    const steps: Step[] = [];
    let j = i + 2;
    for (; j < lines.length && lines[j] !== '```'; j++) {
      const line = lines[j] ?? '';
      if (line.startsWith('$ ')) {
        steps.push({ command: line.slice(2), output: '', exitCode: undefined });
        continue;
      }
      const step = steps.at(-1);
      if (step === undefined) throw new Error(`line ${String(j + 1)}: a checked transcript starts with a \`$ \` line`);
      const exit = /^\[exit (\d+)\]$/.exec(line);
      if (exit !== null) steps[steps.length - 1] = { ...step, exitCode: Number(exit[1]) };
      else if (!(line === '' && lines[j + 1]?.startsWith('$ ') === true)) steps[steps.length - 1] = { ...step, output: `${step.output}${line}\n` };
    }
    found.push({ line: i + 2, steps });
    i = j;
  }
  return found;
}

/** A docs locator's parts: `/home/<user>/.local/state` `/spillway/` `session-<32 hex>` `/<20 hex>-`. */
const DOC_LOCATOR = /(\/home\/[a-z]+\/\.local\/state)(\/spillway\/)(session-[0-9a-f]{32})\/([0-9a-f]{20})-/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Maps the docs' state directory, sessions and artifact ids to the real ones: learnt from
 * each output where the docs show a locator, then used in the commands that name it.
 */
class LocatorMap {
  readonly #real = new Map<string, string>();

  /** `stateDir` stands for the docs' `/home/<user>/.local/state`. */
  constructor(readonly stateDir: string) {}

  /** `command` with every docs locator the map knows replaced by the real one. */
  command(command: string): string {
    return command.replace(DOC_LOCATOR, (whole, _state: string, spillway: string, session: string, id: string) => {
      const realSession = this.#real.get(session);
      const realId = this.#real.get(id);
      if (realSession === undefined || realId === undefined) throw new Error(`${whole}… is named before any output showed it`);
      return `${this.stateDir}${spillway}${realSession}/${realId}-`;
    });
  }

  /** Checks `actual` against the docs' `shown`, learning the ids it shows; answers the mismatch, if any. */
  match(shown: string, actual: string): string | undefined {
    const names: string[] = [];
    let pattern = '';
    let last = 0;
    const group = (docValue: string, shape: string): string => {
      const known = this.#real.get(docValue);
      if (known !== undefined) return escapeRegExp(known);
      const earlier = names.indexOf(docValue);
      if (earlier >= 0) return `\\${String(earlier + 1)}`;
      names.push(docValue);
      return `(${shape})`;
    };
    for (const m of shown.matchAll(DOC_LOCATOR)) {
      const [whole, , spillway, session, id] = m as unknown as [string, string, string, string, string];
      pattern += escapeRegExp(shown.slice(last, m.index));
      pattern += `${escapeRegExp(this.stateDir + spillway)}${group(session, 'session-[0-9a-f]{32}')}/${group(id, '[0-9a-f]{20}')}-`;
      last = m.index + whole.length;
    }
    pattern += escapeRegExp(shown.slice(last));
    const found = new RegExp(`^${pattern}$`).exec(actual);
    if (found === null) return `the docs show:\n${shown}\nit printed:\n${actual}`;
    names.forEach((docValue, k) => this.#real.set(docValue, found[k + 1] ?? ''));
    return undefined;
  }
}

const stateDirs: string[] = [];
afterAll(() => {
  for (const dir of stateDirs) rmSync(dir, { recursive: true, force: true });
});

/** A new private directory under /tmp whose path is as long as `docPath`. */
function stateDirLike(docPath: string): string {
  // mkdtemp adds six characters; /tmp, not TMPDIR, whose length varies from user to user.
  const stem = 'spillway-docs-state'.slice(0, docPath.length - '/tmp/'.length - 6);
  const dir = mkdtempSync(join('/tmp', stem));
  stateDirs.push(dir);
  chmodSync(dir, 0o700);
  if (dir.length !== docPath.length) throw new Error(`cannot make a directory as long as ${docPath} under /tmp`);
  return dir;
}

let base: string;
let shim: string;
tempBasePerFile('spillway-docs-transcripts-', (dir) => {
  base = dir;
});
beforeAll(() => {
  ensureBuilt();
  shim = join(base, 'bin');
  mkdirSync(shim);
  // `spillway` as a package manager links it.
  writeFileSync(join(shim, 'spillway'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(COMMAND)} "$@"\n`, { mode: 0o755 });
});

describe('the docs\' shell transcripts', () => {
  it.each(PAGES)('%s: every checked transcript prints what it shows', (page) => {
    const transcripts = transcriptsOf(readFileSync(join(REPO, page), 'utf8'));
    expect(transcripts.length).toBeGreaterThanOrEqual(5);
    const docState = new Set([...transcripts.flatMap((t) => t.steps.map((s) => `${s.command}\n${s.output}`)).join('\n').matchAll(DOC_LOCATOR)].map((m) => m[1]));
    expect(docState.size).toBe(1);
    const stateDir = stateDirLike([...docState][0] ?? '');
    const home = join(base, page.replace(/\W/g, '-'), 'home');
    const cwd = join(base, page.replace(/\W/g, '-'), 'work');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    mkdirSync(cwd, { recursive: true });
    const map = new LocatorMap(stateDir);
    const env = { PATH: `${shim}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: home, XDG_STATE_HOME: stateDir, NO_COLOR: '1', LC_ALL: 'C.UTF-8' };
    const failures: string[] = [];
    for (const { line, steps } of transcripts) {
      for (const step of steps) {
        let command: string;
        try {
          command = map.command(step.command);
        } catch (error) {
          failures.push(`${page}:${String(line)} \`${step.command}\`: ${(error as Error).message}`);
          continue;
        }
        const ran = spawnSync('sh', ['-c', `exec 2>&1\n${command}`], { cwd, env, encoding: 'utf8', timeout: 50_000 });
        const mismatch = map.match(step.output, ran.stdout);
        if (mismatch !== undefined) failures.push(`${page}:${String(line)} \`${step.command}\`: ${mismatch}`);
        if (step.exitCode !== undefined && ran.status !== step.exitCode) {
          failures.push(`${page}:${String(line)} \`${step.command}\`: the docs show [exit ${String(step.exitCode)}], it exited ${String(ran.status)} (${String(ran.signal)})`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('finds no marker that is not followed by a transcript, on any page', () => {
    const docs = readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md'));
    for (const file of docs) expect(() => transcriptsOf(readFileSync(join(REPO, 'docs', file), 'utf8'))).not.toThrow();
  });
});

describe('LocatorMap', () => {
  const doc = '/home/dev/.local/state/spillway/session-4fbb9b354a21ad5e1f6b903a2a472654/2a97ac743a16cd207ee9-seq.txt';
  const real = '/tmp/h/spillway/session-00000000000000000000000000000001/0123456789abcdef0123-seq.txt';

  it('learns a locator from an output and puts it into later commands', () => {
    const map = new LocatorMap('/tmp/h');
    expect(map.match(`stored at: ${doc}. Use`, `stored at: ${real}. Use`)).toBeUndefined();
    expect(map.command(`spillway read ${doc} --offset 2`)).toBe(`spillway read ${real} --offset 2`);
  });

  it('refuses an output whose text or home differs, and a locator named before it was shown', () => {
    const map = new LocatorMap('/tmp/h');
    expect(map.match(`stored at: ${doc}. Use`, `stored at: ${real}. use`)).toContain('the docs show');
    expect(map.match(`at: ${doc}`, `at: ${real.replace('/tmp/h', '/tmp/x')}`)).toContain('it printed');
    expect(() => map.command(`spillway read ${doc}`)).toThrow(/named before any output showed it/);
  });

  it('holds a docs id to one real id: the same docs locator twice must be the same locator', () => {
    const map = new LocatorMap('/tmp/h');
    const other = real.replace('0123456789abcdef0123', 'fedcba9876543210fedc');
    expect(map.match(`${doc} ${doc}`, `${real} ${other}`)).toContain('it printed');
    expect(map.match(`${doc} ${doc}`, `${real} ${real}`)).toBeUndefined();
    expect(map.match(doc, other)).toContain('it printed');
  });

  it('reads steps, outputs and exit codes from a marked block', () => {
    const page = ['x', MARKER, '```text', '$ a one', 'out 1', '[exit 3]', '', '$ b', 'out 2', '```', '```text', '$ not checked', '```'].join('\n');
    expect(transcriptsOf(page)).toEqual([
      { line: 3, steps: [{ command: 'a one', output: 'out 1\n', exitCode: 3 }, { command: 'b', output: 'out 2\n', exitCode: undefined }] },
    ]);
    expect(() => transcriptsOf(`${MARKER}\n\`\`\`json\n{}\n\`\`\``)).toThrow(/must be followed/);
  });
});
