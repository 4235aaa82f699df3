import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expandElisions } from '@spillway/test-support/elisions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMAND, ensureBuilt, PACKAGE_DIR } from './test-bin.js';
import { tempBasePerFile } from './test-temp-dirs.js';

// The shell transcripts the docs and READMEs show, run for real: a ```text block right after
// the line `<!-- checked transcript -->` is a sequence of `$ command` lines, each followed by
// what it prints (stdout and stderr together) and, where shown, `[exit N]`. The blocks of one
// page run in order in one store, so a later block may name an artifact an earlier one
// stored; the page's locators stand for the real ones (root, session and id mapped).
//
// The store is the default one, under the `/home/<user>/.local/state` the page's locators
// show, or the root a page names as `<!-- checked transcript SPILLWAY_ROOT=/abs/path -->`,
// which its prose must state as well, since the run sets that variable. The real directory
// is as long as the page's, so that notices, and the previews cut to fit beside them, come
// out the same length; it is made under /tmp, so a named root has at least 11 characters.
//
// A page may shorten an output two ways, and no other: a line `…` between two numbered lines
// stands for the lines left out (expandElisions of @spillway/test-support), and a session or
// id cut to its first hex digits and `…` (`session-4fbb…/2a97…-`) stands for the one with
// that start which an earlier output showed in full.

/** The marker line, with the root a page may name. */
const MARKER = /^<!-- checked transcript(?: SPILLWAY_ROOT=(\/\S+))? -->$/;
const MARKER_START = '<!-- checked transcript';
const REPO = join(PACKAGE_DIR, '..', '..');
/** Pages whose every transcript must be checked, each with how many it has at least. */
const PAGES: Record<string, number> = { 'docs/cli.md': 10, 'README.md': 1, 'packages/spill-cli/README.md': 2 };

/** One `$ command` of a transcript and what the page shows for it. */
interface Step {
  readonly command: string;
  readonly output: string;
  readonly exitCode: number | undefined;
}

/** A checked transcript: its line in the page, the root its marker names, if any, and its steps. */
interface Transcript {
  readonly line: number;
  readonly root: string | undefined;
  readonly steps: Step[];
}

function transcriptsOf(markdown: string): Transcript[] {
  const lines = markdown.split('\n');
  const found: Transcript[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!(lines[i] ?? '').startsWith(MARKER_START)) continue;
    const marker = MARKER.exec(lines[i] ?? '');
    if (marker === null) throw new Error(`line ${String(i + 1)}: a marker reads \`<!-- checked transcript -->\` or \`<!-- checked transcript SPILLWAY_ROOT=/abs/path -->\``);
    if (lines[i + 1] !== '```text') throw new Error(`line ${String(i + 1)}: ${MARKER_START} --> must be followed by a \`\`\`text block`);
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
    found.push({ line: i + 2, root: marker[1], steps });
    i = j;
  }
  return found;
}

/** The default store's state directory in a page's locators: `/home/<user>/.local/state`. */
const DOC_STATE = /(\/home\/[a-z]+\/\.local\/state)\/spillway\/session-/g;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Maps the page's root, sessions and artifact ids to the real ones: learnt from each output
 * where the page shows a locator, then used in the commands and outputs that name it.
 */
class LocatorMap {
  readonly #real = new Map<string, string>();
  readonly #locator: RegExp;

  /** `realRoot` stands for the page's `docRoot`, the directory that holds the sessions. */
  constructor(readonly docRoot: string, readonly realRoot: string) {
    this.#locator = new RegExp(`${escapeRegExp(docRoot)}/(session-(?:[0-9a-f]{32}|[0-9a-f]{1,31}…))/([0-9a-f]{20}|[0-9a-f]{1,19}…)-`, 'g');
  }

  /** The page's name a shortened one (`4fbb…`) stands for: the one learnt name with that start. */
  #full(shown: string): string {
    if (!shown.endsWith('…')) return shown;
    const start = shown.slice(0, -1);
    const known = [...this.#real.keys()].filter((name) => name.startsWith(start));
    if (known.length !== 1) throw new Error(`${shown} stands for ${known.length === 0 ? 'no name' : 'more than one name'} an earlier output showed`);
    return known[0] ?? '';
  }

  /** `command` with every page locator the map knows replaced by the real one. */
  command(command: string): string {
    return command.replace(this.#locator, (whole, session: string, id: string) => {
      const realSession = this.#real.get(this.#full(session));
      const realId = this.#real.get(this.#full(id));
      if (realSession === undefined || realId === undefined) throw new Error(`${whole}… is named before any output showed it`);
      return `${this.realRoot}/${realSession}/${realId}-`;
    });
  }

  /** Checks `actual` against the page's `shown`, learning the names it shows; answers the mismatch, if any. */
  match(shown: string, actual: string): string | undefined {
    const names: string[] = [];
    let pattern = '';
    let last = 0;
    const group = (shownName: string, shape: string): string => {
      const name = this.#full(shownName);
      const known = this.#real.get(name);
      if (known !== undefined) return escapeRegExp(known);
      const earlier = names.indexOf(name);
      if (earlier >= 0) return `\\${String(earlier + 1)}`;
      names.push(name);
      return `(${shape})`;
    };
    try {
      for (const m of shown.matchAll(this.#locator)) {
        const [whole, session, id] = m as unknown as [string, string, string];
        pattern += escapeRegExp(shown.slice(last, m.index));
        pattern += `${escapeRegExp(this.realRoot)}/${group(session, 'session-[0-9a-f]{32}')}/${group(id, '[0-9a-f]{20}')}-`;
        last = m.index + whole.length;
      }
    } catch (error) {
      return (error as Error).message;
    }
    pattern += escapeRegExp(shown.slice(last));
    const found = new RegExp(`^${pattern}$`).exec(actual);
    if (found === null) return `the page shows:\n${shown}\nit printed:\n${actual}`;
    names.forEach((name, k) => this.#real.set(name, found[k + 1] ?? ''));
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
  const stem = 'spillway-docs-state'.slice(0, Math.max(0, docPath.length - '/tmp/'.length - 6));
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

/** Where a page's transcripts store: the root their locators show, the real one, and the environment that puts the store there. */
function storeFor(markdown: string, transcripts: readonly Transcript[], dir: string): { map: LocatorMap; env: Record<string, string> } {
  const named = new Set(transcripts.map((t) => t.root));
  if (named.size !== 1) throw new Error('the markers of one page name one root, or none');
  const root = [...named][0];
  if (root !== undefined) {
    // The page states the root it ran with, not only the marker, which readers never see.
    if (!markdown.split('\n').some((line) => !line.startsWith(MARKER_START) && line.includes(`SPILLWAY_ROOT=${root}`))) throw new Error(`the page never states SPILLWAY_ROOT=${root}`);
    const real = stateDirLike(root);
    return { map: new LocatorMap(root, real), env: { SPILLWAY_ROOT: real, XDG_STATE_HOME: join(dir, 'state') } };
  }
  const shown = transcripts.flatMap((t) => t.steps.map((s) => `${s.command}\n${s.output}`)).join('\n');
  const states = new Set([...shown.matchAll(DOC_STATE)].map((m) => m[1] ?? ''));
  if (states.size !== 1) throw new Error(`the page's locators show ${String(states.size)} state directories, not one`);
  const state = [...states][0] ?? '';
  const real = stateDirLike(state);
  return { map: new LocatorMap(`${state}/spillway`, `${real}/spillway`), env: { XDG_STATE_HOME: real } };
}

describe('the docs\' shell transcripts', () => {
  it.each(Object.entries(PAGES))('%s: every checked transcript prints what it shows', (page, atLeast) => {
    const markdown = readFileSync(join(REPO, page), 'utf8');
    const transcripts = transcriptsOf(markdown);
    expect(transcripts.length).toBeGreaterThanOrEqual(atLeast);
    const dir = join(base, page.replace(/\W/g, '-'));
    const home = join(dir, 'home');
    const cwd = join(dir, 'work');
    mkdirSync(home, { recursive: true, mode: 0o700 });
    mkdirSync(cwd, { recursive: true });
    const { map, env: storeEnv } = storeFor(markdown, transcripts, dir);
    const env = { PATH: `${shim}:${process.env.PATH ?? '/usr/bin:/bin'}`, HOME: home, NO_COLOR: '1', LC_ALL: 'C.UTF-8', ...storeEnv };
    const failures: string[] = [];
    for (const { line, steps } of transcripts) {
      for (const step of steps) {
        const where = `${page}:${String(line)} \`${step.command}\``;
        let command: string;
        let shown: string;
        try {
          command = map.command(step.command);
          shown = expandElisions(step.output);
        } catch (error) {
          failures.push(`${where}: ${(error as Error).message}`);
          continue;
        }
        const ran = spawnSync('sh', ['-c', `exec 2>&1\n${command}`], { cwd, env, encoding: 'utf8', timeout: 50_000 });
        const mismatch = map.match(shown, ran.stdout);
        if (mismatch !== undefined) failures.push(`${where}: ${mismatch}`);
        if (step.exitCode !== undefined && ran.status !== step.exitCode) {
          failures.push(`${where}: the page shows [exit ${String(step.exitCode)}], it exited ${String(ran.status)} (${String(ran.signal)})`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  it('finds no marker that is not followed by a transcript, on any page', () => {
    const pages = [
      ...readdirSync(join(REPO, 'docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f)),
      'README.md',
      ...readdirSync(join(REPO, 'packages')).map((p) => join('packages', p, 'README.md')).filter((f) => existsSync(join(REPO, f))),
    ];
    for (const file of pages) expect(() => transcriptsOf(readFileSync(join(REPO, file), 'utf8')), file).not.toThrow();
  });
});

describe('LocatorMap', () => {
  const doc = '/home/dev/.local/state/spillway/session-4fbb9b354a21ad5e1f6b903a2a472654/2a97ac743a16cd207ee9-seq.txt';
  const real = '/tmp/h/spillway/session-00000000000000000000000000000001/0123456789abcdef0123-seq.txt';
  const newMap = (): LocatorMap => new LocatorMap('/home/dev/.local/state/spillway', '/tmp/h/spillway');

  it('learns a locator from an output and puts it into later commands', () => {
    const map = newMap();
    expect(map.match(`stored at: ${doc}. Use`, `stored at: ${real}. Use`)).toBeUndefined();
    expect(map.command(`spillway read ${doc} --offset 2`)).toBe(`spillway read ${real} --offset 2`);
  });

  it('refuses an output whose text or root differs, and a locator named before it was shown', () => {
    const map = newMap();
    expect(map.match(`stored at: ${doc}. Use`, `stored at: ${real}. use`)).toContain('the page shows');
    expect(map.match(`at: ${doc}`, `at: ${real.replace('/tmp/h', '/tmp/x')}`)).toContain('it printed');
    expect(() => map.command(`spillway read ${doc}`)).toThrow(/named before any output showed it/);
  });

  it('holds a page id to one real id: the same page locator twice must be the same locator', () => {
    const map = newMap();
    const other = real.replace('0123456789abcdef0123', 'fedcba9876543210fedc');
    expect(map.match(`${doc} ${doc}`, `${real} ${other}`)).toContain('it printed');
    expect(map.match(`${doc} ${doc}`, `${real} ${real}`)).toBeUndefined();
    expect(map.match(doc, other)).toContain('it printed');
  });

  it('maps a root the page names, which need not end in /spillway', () => {
    const map = new LocatorMap('/tmp/spillway-demo', '/tmp/spillAbC123');
    const shown = '/tmp/spillway-demo/session-4fbb9b354a21ad5e1f6b903a2a472654/2a97ac743a16cd207ee9-seq.txt';
    const actual = '/tmp/spillAbC123/session-00000000000000000000000000000001/0123456789abcdef0123-seq.txt';
    expect(map.match(shown, actual)).toBeUndefined();
    expect(map.command(`spillway cat ${shown}`)).toBe(`spillway cat ${actual}`);
  });

  it('reads a shortened session or id as the one learnt with that start, and as nothing else', () => {
    const map = newMap();
    const short = '/home/dev/.local/state/spillway/session-4fbb…/2a97…-seq.txt';
    expect(() => map.command(`spillway read ${short}`)).toThrow(/stands for no name/);
    expect(map.match(short, real)).toContain('stands for no name');
    expect(map.match(doc, real)).toBeUndefined();
    expect(map.command(`spillway read ${short}`)).toBe(`spillway read ${real}`);
    expect(map.match(`at ${short}`, `at ${real}`)).toBeUndefined();
    expect(map.match(short, real.replace('0123456789abcdef0123', 'fedcba9876543210fedc'))).toContain('it printed');
    // Two learnt names with the start shown: it stands for neither.
    expect(map.match(doc.replace('2a97ac743a16cd207ee9', '2a97000000000000000a'), real.replace('0123456789abcdef0123', 'fedcba9876543210fedc'))).toBeUndefined();
    expect(() => map.command(`spillway read ${short}`)).toThrow(/more than one name/);
  });

  it('reads steps, outputs, exit codes and a named root from a marked block', () => {
    const marker = '<!-- checked transcript -->';
    const page = ['x', marker, '```text', '$ a one', 'out 1', '[exit 3]', '', '$ b', 'out 2', '```', '```text', '$ not checked', '```'].join('\n');
    expect(transcriptsOf(page)).toEqual([
      { line: 3, root: undefined, steps: [{ command: 'a one', output: 'out 1\n', exitCode: 3 }, { command: 'b', output: 'out 2\n', exitCode: undefined }] },
    ]);
    expect(transcriptsOf('<!-- checked transcript SPILLWAY_ROOT=/tmp/r -->\n```text\n$ a\n```')[0]?.root).toBe('/tmp/r');
    expect(() => transcriptsOf(`${marker}\n\`\`\`json\n{}\n\`\`\``)).toThrow(/must be followed/);
    expect(() => transcriptsOf('<!-- checked transcript SPILLWAY_ROOT=tmp -->\n```text\n$ a\n```')).toThrow(/a marker reads/);
  });
});

describe('expandElisions', () => {
  it('fills a `…` between numbered lines that read alike, and refuses any other', () => {
    expect(expandElisions('1\n2\n…\n5\nend')).toBe('1\n2\n3\n4\n5\nend');
    expect(expandElisions('42420:42420\n…\n42423:42423')).toBe('42420:42420\n42421:42421\n42422:42422\n42423:42423');
    expect(() => expandElisions('a\n…\n5')).toThrow(/stands only between/);
    expect(() => expandElisions('1:2\n…\n5:7')).toThrow(/stands only between/);
    expect(() => expandElisions('1 a\n…\n5 b')).toThrow(/stands only between/);
    expect(() => expandElisions('4\n…\n5')).toThrow(/stands only between/);
    expect(() => expandElisions('04\n…\n07')).toThrow(/stands only between/);
  });
});
