/**
 * Hostile grep patterns run in a child process, so that a guard regression makes this
 * test fail (the child is killed at a deadline) instead of hanging the whole test run.
 * The child runs the current sources, transpiled here with TypeScript, not a build.
 *
 * Only outcomes are asserted (codes, and that the child finished before the deadline):
 * wall-clock thresholds flake on a loaded machine, and speed is measured by `bench:micro`.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const here = dirname(fileURLToPath(import.meta.url));
const coreSrc = join(here, '..', '..', 'spill-core', 'src');

function transpileDir(from: string, to: string, rewrite: (code: string) => string): void {
  mkdirSync(to, { recursive: true });
  for (const file of readdirSync(from)) {
    if (!file.endsWith('.ts') || file.endsWith('.test.ts') || file.startsWith('test-')) continue;
    const { outputText } = ts.transpileModule(readFileSync(join(from, file), 'utf8'), {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    writeFileSync(join(to, file.replace(/\.ts$/, '.js')), rewrite(outputText));
  }
}

const CHILD = `
import { createMemoryBackend } from './memory/index.js';
const backend = createMemoryBackend({ maxBytes: 64 * 1024 * 1024 });
const lines = [
  'a'.repeat(100000) + '!',
  'a'.repeat(5000),
  '1'.repeat(100000),
  ' '.repeat(100000) + 'x',
  'ab'.repeat(50000),
  'x'.repeat(100000),
  '='.repeat(100000),
];
const ref = await backend.saveText({
  owner: { sessionId: 's' }, source: { toolName: 't', callId: 'c' }, suggestedName: 'n',
  content: lines.join('\\n') + '\\n',
});
const { hostile, slow } = JSON.parse(process.argv[2]);
const outcomeOf = (promise) => promise.then((r) => 'answered ' + r.matches.length, (e) => e.code ?? String(e));
const outcomes = [];
for (const pattern of hostile) {
  outcomes.push({ pattern, outcome: await outcomeOf(backend.reader.grep(ref.locator, pattern, { timeoutMs: 500 })) });
}
// Responsiveness as an outcome: an abort queued behind the grep on the event loop can only
// land if the grep yields while it runs. The time budget is far out of reach.
const aborts = [];
for (const pattern of slow) {
  const controller = new AbortController();
  const grep = outcomeOf(backend.reader.grep(ref.locator, pattern, { timeoutMs: 600000, signal: controller.signal }));
  setTimeout(() => { controller.abort(); }, 0);
  aborts.push({ pattern, outcome: await grep });
}
process.stdout.write(JSON.stringify({ outcomes, aborts }));
`;

const HOSTILE = [
  '(a+)+$',
  '^(a+)+$',
  '(a|a)*$',
  '(a|aa)*b',
  '(a|b|ab)*c',
  '(\\w+\\s?)*$',
  '(.*a){12}',
  '(x+x+)+y',
  '(?:a?){30}a{30}',
  '\\w+\\w+\\w+\\w+x',
  'a*a*a*a*a*b',
  '\\d+\\d+\\d+x',
  // Accepted, but polynomial: the window keeps each run short.
  '.*.*.*.*=x',
  '\\d+\\d+x',
  'a.*a.*b',
  '\\s+$',
  'a*a*b',
  '(?:a|b)*c',
  'x.*y',
];

let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'spill-memory-hostile-'));
  transpileDir(coreSrc, join(dir, 'core'), (code) => code);
  transpileDir(here, join(dir, 'memory'), (code) => code.replaceAll("'@spillway/core'", "'../core/index.js'"));
  writeFileSync(join(dir, 'child.mjs'), CHILD);
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

// Accepted patterns whose full run on the content above costs seconds of backtracking.
const SLOW = ['\\d+\\d+x', 'a.*a.*b', 'x.*y'];

/** Far beyond any normal run (a few seconds), far below what a guard regression takes (hours). */
const KILL_DEADLINE_MS = 120_000;

describe('grep under hostile patterns', () => {
  it('refuses, answers or times out for every pattern, lets an abort land mid-grep, and the child finishes before its kill deadline', () => {
    const child = spawnSync(process.execPath, [join(dir, 'child.mjs'), JSON.stringify({ hostile: HOSTILE, slow: SLOW })], {
      timeout: KILL_DEADLINE_MS,
      killSignal: 'SIGKILL',
      encoding: 'utf8',
    });
    // A hang is killed at the deadline: signal SIGKILL and no output, and the test fails here.
    expect({ signal: child.signal, status: child.status, error: child.error }, child.stderr).toEqual({
      signal: null,
      status: 0,
      error: undefined,
    });
    const { outcomes, aborts } = JSON.parse(child.stdout) as {
      outcomes: { pattern: string; outcome: string }[];
      aborts: { pattern: string; outcome: string }[];
    };
    expect(outcomes.map((o) => o.pattern)).toEqual(HOSTILE);
    for (const { pattern, outcome } of outcomes) {
      expect(outcome, pattern).toMatch(/^(answered \d+|SPILL_INVALID_PATTERN|SPILL_TIMEOUT)$/);
    }
    for (const pattern of HOSTILE.slice(0, 12)) {
      expect(outcomes.find((o) => o.pattern === pattern)?.outcome, pattern).toBe('SPILL_INVALID_PATTERN');
    }
    // The event loop kept turning during each long grep: the queued abort landed.
    expect(aborts).toEqual(SLOW.map((pattern) => ({ pattern, outcome: 'SPILL_ABORTED' })));
  });
});
