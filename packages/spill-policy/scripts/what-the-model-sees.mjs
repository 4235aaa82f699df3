// Prints what the model sees for a few tool results, with real backends, for the README.
// Run after building: node scripts/what-the-model-sees.mjs
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBackend } from '@spillway/local';
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy } from '../dist/index.js';

const bytes = (text) => Buffer.byteLength(text, 'utf8');
const root = await mkdtemp(join(tmpdir(), 'spillway-readme-'));

function show(title, before, result, events) {
  const text = result.content.map((b) => b.text).join('');
  console.log(`### ${title}\n`);
  console.log(`before: ${bytes(before)} bytes; after: ${bytes(text)} bytes; events: ${JSON.stringify(events.map(({ ms: _ms, ...e }) => e))}\n`);
  console.log('```text');
  console.log(text);
  console.log('```\n');
}

// 1. A web page fetched as text, over the cap, with the local backend.
{
  const events = [];
  const policy = createSpillPolicy({ backend: createLocalBackend({ root }), maxInlineBytes: 1200, onEvent: (e) => events.push(e) });
  const page = [
    '# Release notes',
    '',
    ...Array.from({ length: 400 }, (_, i) => `- v2.${String(400 - i)}.0: fixed issue #${String(9000 + i)} in the résumé parser (“smart quotes”) and the 📦 bundler`),
  ].join('\n');
  const result = await policy.applyToResult({ toolName: 'web_fetch', callId: 'call_7', sessionId: 'conv-42' }, { content: [{ type: 'text', text: page }] });
  show('web_fetch, 1 200-byte cap, local backend', page, result, events);
}

// 2. Command output arriving in chunks, with the memory backend.
{
  const events = [];
  const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: 900, skipTools: ['read', 'spill_read', 'spill_grep'], onEvent: (e) => events.push(e) });
  const stream = policy.stream({ toolName: 'bash', callId: 'call_8', sessionId: 'conv-42' });
  let all = '';
  for (let i = 1; i <= 3000; i++) {
    const line = i % 1000 === 0 ? `FAIL src/case-${String(i)}.test.ts > throws on empty input\n` : `PASS src/case-${String(i)}.test.ts (${String(i % 17)} ms)\n`;
    all += line;
    await stream.push(line);
  }
  all += 'Tests: 3 failed, 2997 passed\n';
  await stream.push('Tests: 3 failed, 2997 passed\n');
  const result = await stream.finish({ isError: true });
  show('bash (streamed), 900-byte cap, memory backend', all, result, events);
}

// 3. A result under the cap passes through untouched.
{
  const events = [];
  const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: 1200, onEvent: (e) => events.push(e) });
  const text = 'total 3\n-rw-r--r-- 1 u u 120 README.md\n-rw-r--r-- 1 u u 88 index.ts\n';
  const result = await policy.applyToResult({ toolName: 'bash', callId: 'call_9', sessionId: 'conv-42' }, { content: [{ type: 'text', text }] });
  show('bash, under the cap', text, result, events);
}

// 4. Over the cap but no session id: the original is kept and an event says why.
{
  const events = [];
  const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: 100, onEvent: (e) => events.push(e) });
  const text = 'x'.repeat(150);
  const result = await policy.applyToResult({ toolName: 'bash', callId: 'call_10' }, { content: [{ type: 'text', text }] });
  show('over the cap, no session id', text, result, events);
}

await rm(root, { recursive: true, force: true });
