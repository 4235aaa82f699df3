// Prints, for the README, the preview of three real outputs from the bench corpus
// (packages/spill-bench/corpus/preview), before (preview: 'head-tail') and after (the default),
// exactly as the README's "Before and after, from real runs" shows them (a test compares the
// two): runs of six or more lines of one shape are elided as ⋮, the ANSI escape is shown as ␛,
// and the locator is shortened.
// Run after building: node scripts/before-after.mjs [cap]
import { readFile } from 'node:fs/promises';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy } from '../dist/index.js';

const cap = Number(process.argv[2] ?? 2048);
const corpus = new URL('../../spill-bench/corpus/preview/outputs/', import.meta.url);
const cases = [
  ['A compiler error: `tsc -b --verbose` over 30 projects, the error among emitted-file lists', 'tsc-b-verbose'],
  ['A failing test: `vitest run --reporter=verbose`, 1,000 passing tests and one failed assertion', 'vitest-assertion-diff'],
  ['A JSON result: an API dump of 346 KB', 'api-dump-json'],
];

/** Lines of one shape (the same but for their numbers) in a run of six or more: the first two, ⋮, the last two. */
function elide(text) {
  const lines = text.split('\n');
  const out = [];
  const shape = (line) => line.replace(/\d+/g, '#');
  for (let i = 0; i < lines.length; ) {
    let j = i + 1;
    while (j < lines.length && lines[j] !== '' && shape(lines[j]) === shape(lines[i])) j++;
    if (lines[i] !== '' && j - i >= 6) out.push(lines[i], lines[i + 1], '⋮', lines[j - 2], lines[j - 1]);
    else out.push(...lines.slice(i, j));
    i = j;
  }
  return out.join('\n');
}

const printed = [];
for (const [title, name] of cases) {
  const text = await readFile(new URL(`${name}.txt`, corpus), 'utf8');
  printed.push(`##### ${title}\n`);
  for (const [label, preview] of [['Before', 'head-tail'], ['After', 'salient']]) {
    const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: cap, preview });
    const out = await policy.applyToResult({ toolName: 'bash', callId: 'call_1', sessionId: 'conv-1' }, { content: [{ type: 'text', text }] });
    const shown = out.content[0].text.replace(/spill\+memory:\/\/session-[0-9a-f]{32}\/[0-9a-f]{32}/g, 'spill+memory://…');
    printed.push(`${label} (\`preview: '${preview}'\`, ${String(Buffer.byteLength(shown))} bytes):\n`);
    printed.push(`\`\`\`text\n${elide(shown.replaceAll('\u001b', '␛'))}\n\`\`\`\n`);
  }
}
process.stdout.write(printed.join('\n'));
