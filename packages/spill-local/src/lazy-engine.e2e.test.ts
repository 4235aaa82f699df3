import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DIST_INDEX, freshRootEachTest, runChild } from './test-helpers.js';

let root: string;
let log: string;
freshRootEachTest('spill-lazy-engine-test-', (dir) => {
  root = dir;
}, { realpath: true });
beforeEach(() => {
  log = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'spill-lazy-engine-log-')), 'resolved.txt');
});
afterEach(() => {
  fs.rmSync(path.dirname(log), { recursive: true, force: true });
});

// A module-resolution hook that writes down every specifier the child resolves.
const HOOK = `
import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  appendFileSync(process.env.RESOLVED_LOG, specifier + '\\n');
  return next(specifier, context);
}`;

describe('the retrieval engine is loaded on first use', () => {
  it('saving loads neither @spillway/retrieval nor its RE2 parser; the first read loads the engine alone, the first grep the parser, and both answer', async () => {
    const source = `
      import { register } from 'node:module';
      import { readFileSync } from 'node:fs';
      register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(HOOK)}));
      const { createLocalBackend } = await import(${JSON.stringify(DIST_INDEX)});
      const backend = createLocalBackend({ root: ${JSON.stringify(root)} });
      const source = { toolName: 't', callId: 'c' };
      const ref = await backend.saveText({ owner: { sessionId: 's' }, source, suggestedName: 'a.txt', content: 'one\\ntwo\\n' });
      await backend.saveTextStream({ owner: { sessionId: 's' }, source, suggestedName: 'b.txt', content: ['x\\n'] });
      const loaded = () => readFileSync(process.env.RESOLVED_LOG, 'utf8').split('\\n');
      const afterSaves = loaded().filter((s) => s.includes('retrieval') || s.includes('re2js'));
      const page = await backend.reader.read(ref.locator, { offset: 2, limit: 1 });
      const afterRead = loaded().filter((s) => s.includes('retrieval') || s.includes('re2js'));
      const grep = await backend.reader.grep(ref.locator, 'tw.', {});
      const afterGrep = loaded().filter((s) => s.includes('re2js'));
      console.log(JSON.stringify({ afterSaves, afterRead, afterGrep, text: page.text, matches: grep.matches.map((m) => m.line) }));
    `;
    const child = await runChild(source, { env: { ...process.env, RESOLVED_LOG: log } });
    expect(child.stderr).toBe('');
    const out = JSON.parse(child.stdout) as { afterSaves: string[]; afterRead: string[]; afterGrep: string[]; text: string; matches: number[] };
    expect(out.afterSaves).toEqual([]);
    expect(out.afterRead).toContain('@spillway/retrieval');
    expect(out.afterRead).not.toContain('re2js');
    expect(out.afterGrep).toContain('re2js');
    expect(out.text).toBe('two\n');
    expect(out.matches).toEqual([2]);
  });
});
