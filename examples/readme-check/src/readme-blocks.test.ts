import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkBlocks, collectBlocks, extractTsBlocks, markdownFiles, type BlockCheck, type CodeBlock } from './readme-blocks.js';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

function privateDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return dir;
}

describe('every TypeScript block in the READMEs and docs', () => {
  // Collected when the file loads, so that each block is its own named test.
  const blocks = collectBlocks(REPO);
  let work: string;
  let result: BlockCheck;
  beforeAll(() => {
    work = privateDir('spillway-readme-check-');
    result = checkBlocks(REPO, blocks, work);
  });
  afterAll(() => {
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('finds the root README, every package README and the docs by walking the folders', () => {
    const files = markdownFiles(REPO);
    expect(files).toContain('README.md');
    for (const folder of ['packages', 'examples']) {
      for (const name of fs.readdirSync(path.join(REPO, folder))) {
        if (fs.existsSync(path.join(REPO, folder, name, 'README.md'))) expect(files).toContain(path.join(folder, name, 'README.md'));
      }
    }
    expect(files.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(0);
    expect(blocks.length).toBeGreaterThan(10);
  });

  it('type-checks with nothing unexpected from tsc', () => {
    expect(result.other).toEqual([]);
  });

  it.each(blocks.map((b): [string, CodeBlock] => [`${b.file} block ${String(b.index)} (line ${String(b.line)})`, b]))('%s compiles', (_name, block) => {
    expect(result.byBlock.get(block)).toEqual([]);
  });
});

describe('the check itself', () => {
  it('cuts out only ts/typescript blocks, with their first line', () => {
    const md = ['# x', '```ts', 'const a = 1;', '```', '```sh', 'ls', '```', '', '```typescript', 'const b = 2;', 'const c = 3;', '```'].join('\n');
    expect(extractTsBlocks(md, 'X.md')).toEqual([
      { file: 'X.md', index: 1, line: 3, code: 'const a = 1;' },
      { file: 'X.md', index: 2, line: 10, code: 'const b = 2;\nconst c = 3;' },
    ]);
  });

  it('reports which block of which file failed, at the Markdown line, and lets good blocks pass', () => {
    const work = privateDir('spillway-readme-check-self-');
    try {
      const md = [
        '# demo',
        '```ts',
        "import { createMemoryBackend } from '@spillway/memory';",
        'const backend = createMemoryBackend();',
        'console.log(backend.name);',
        '```',
        '```ts',
        'log.debug(result);',
        '```',
      ].join('\n');
      const blocks = extractTsBlocks(md, 'packages/x/README.md');
      const { byBlock, other } = checkBlocks(REPO, blocks, work);
      expect(other).toEqual([]);
      expect(byBlock.get(blocks[0] as CodeBlock)).toEqual([]);
      expect(byBlock.get(blocks[1] as CodeBlock)).toEqual([
        "packages/x/README.md:8:1 TS2304 Cannot find name 'log'.",
        "packages/x/README.md:8:11 TS2304 Cannot find name 'result'.",
      ]);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
