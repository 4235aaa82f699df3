// Prints, for the README, the preview of two real outputs from the bench's list corpus
// (packages/spill-bench/corpus/lists): `grep -rn` over node_modules and a vitest JSON report.
// Run after building: node scripts/lists-before-after.mjs [cap] [path to another build's dist/index.js]
// The second argument prints that build's default preview instead (the README's "before").
import { readFile } from 'node:fs/promises';
import { createMemoryBackend } from '@spillway/memory';

const cap = Number(process.argv[2] ?? 4096);
const { createSpillPolicy } = await import(process.argv[3] ?? '../dist/index.js');
const corpus = new URL('../../spill-bench/corpus/lists/outputs/', import.meta.url);
for (const name of ['grep-rn-node-modules', 'vitest-json-report']) {
  const text = await readFile(new URL(`${name}.txt`, corpus), 'utf8');
  const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: cap });
  const out = await policy.applyToResult({ toolName: 'bash', callId: 'call_1', sessionId: 'conv-1' }, { content: [{ type: 'text', text }] });
  const shown = out.content[0].text.replace(/spill\+memory:\/\/session-[0-9a-f]{32}\/[0-9a-f]{32}/g, 'spill+memory://…');
  console.log(`#### ${name} (${String(Buffer.byteLength(shown))} bytes)\n\n\`\`\`text\n${shown}\n\`\`\`\n`);
}
