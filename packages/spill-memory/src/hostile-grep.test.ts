/**
 * Hostile grep patterns run in a child process, so that a guard regression makes this
 * test fail (the child is killed at a deadline) instead of hanging the whole test run.
 * The child runs the current sources, transpiled here with TypeScript, not a build.
 */
import { execFileSync } from 'node:child_process';
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
const gaps = [];
let last = performance.now();
const beat = setInterval(() => { const now = performance.now(); gaps.push(now - last); last = now; }, 5);
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
const outcomes = [];
for (const pattern of JSON.parse(process.argv[2])) {
  const started = performance.now();
  let outcome;
  try {
    const result = await backend.reader.grep(ref.locator, pattern, { timeoutMs: 500 });
    outcome = 'answered ' + result.matches.length;
  } catch (error) {
    outcome = error.code ?? String(error);
  }
  outcomes.push({ pattern, outcome, ms: Math.round(performance.now() - started) });
}
clearInterval(beat);
process.stdout.write(JSON.stringify({ outcomes, maxGap: Math.round(Math.max(...gaps)) }));
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

describe('grep under hostile patterns', () => {
  it('answers, refuses or times out for every pattern, and the process stays responsive', () => {
    // A hang is killed at the deadline and fails the test (execFileSync throws).
    const stdout = execFileSync(process.execPath, [join(dir, 'child.mjs'), JSON.stringify(HOSTILE)], {
      timeout: 90_000,
      encoding: 'utf8',
    });
    const { outcomes, maxGap } = JSON.parse(stdout) as {
      outcomes: { pattern: string; outcome: string; ms: number }[];
      maxGap: number;
    };
    expect(outcomes.map((o) => o.pattern)).toEqual(HOSTILE);
    for (const { pattern, outcome, ms } of outcomes) {
      expect(outcome, pattern).toMatch(/^(answered \d+|SPILL_INVALID_PATTERN|SPILL_TIMEOUT)$/);
      // The budget is 500 ms; what matters is that nothing runs away (a regression takes minutes).
      expect(ms, pattern).toBeLessThan(5000);
    }
    for (const pattern of HOSTILE.slice(0, 12)) {
      expect(outcomes.find((o) => o.pattern === pattern)?.outcome, pattern).toBe('SPILL_INVALID_PATTERN');
    }
    // The event loop kept turning between windows: no regex run blocked it for long.
    expect(maxGap).toBeLessThan(1000);
  });
});
