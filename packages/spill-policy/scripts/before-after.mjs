// Prints, for the README, the preview of three real outputs from the bench corpus
// (packages/spill-bench/corpus/preview), before (preview: 'head-tail') and after (the default).
// Run after building: node scripts/before-after.mjs [cap]
import { readFile } from 'node:fs/promises';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy } from '../dist/index.js';

const cap = Number(process.argv[2] ?? 2048);
const corpus = new URL('../../spill-bench/corpus/preview/outputs/', import.meta.url);
const cases = [
  ['a compiler error: `tsc -b --verbose` over 30 projects, the error among emitted-file lists', 'tsc-b-verbose'],
  ['a failing test: `vitest run --reporter=verbose`, 1,000 passing tests and one failed assertion', 'vitest-assertion-diff'],
  ['a JSON result: an API dump of 346 KB', 'api-dump-json'],
];
for (const [title, name] of cases) {
  const text = await readFile(new URL(`${name}.txt`, corpus), 'utf8');
  console.log(`### ${title}\n`);
  for (const [label, preview] of [['Before', 'head-tail'], ['After', 'salient']]) {
    const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: cap, preview });
    const out = await policy.applyToResult({ toolName: 'bash', callId: 'call_1', sessionId: 'conv-1' }, { content: [{ type: 'text', text }] });
    const shown = out.content[0].text.replace(/spill\+memory:\/\/session-[0-9a-f]{32}\/[0-9a-f]{32}/g, 'spill+memory://…');
    console.log(`${label} (\`preview: '${preview}'\`, ${String(Buffer.byteLength(shown))} bytes):\n`);
    console.log('```text');
    console.log(shown.replaceAll('\u001b', '␛')); // the ANSI escape, visible
    console.log('```\n');
  }
}
