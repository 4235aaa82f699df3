// spill_search in a real AI SDK agent loop: two oversized results spilled in one session,
// the mock model searches across both without a locator, then reads around the hit.
import { retrievalHintFor } from '@spillway/core/notice';
import { createMemoryBackend } from '@spillway/memory';
import { parseSpillNotice } from '@spillway/policy/notice';
import { createBackendSearch } from '@spillway/search';
import { bigLog, NEEDLE } from '@spillway/test-support/big-log';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { spillSearchTools, spillTools, withSpill } from './index.js';
import { say, toolCall, toolResultTexts, type Prompt } from './test-loop.js';

describe('spillSearchTools in a generateText loop', () => {
  it('finds a line across the session\'s spills, and spill_read follows its locator and line', async () => {
    const backend = createMemoryBackend();
    const searcher = await createBackendSearch(backend);
    const prompts: Prompt[] = [];
    let hit: { locator: string; startLine: number } | undefined;
    const model = new MockLanguageModelV3({
      doGenerate: ({ prompt }) => {
        prompts.push(prompt);
        if (prompts.length === 1) return Promise.resolve(toolCall('c1', 'fetchLogs', { service: 'api' }));
        if (prompts.length === 2) return Promise.resolve(toolCall('c2', 'fetchLogs', { service: 'db' }));
        if (prompts.length === 3) return Promise.resolve(toolCall('c3', 'spill_search', { query: 'disk quota exceeded' }));
        if (prompts.length === 4) {
          const answer = toolResultTexts(prompt)[2] ?? '';
          const m = /^\[1\] (\S+) lines? (\d+)/m.exec(answer);
          hit = m === null ? undefined : { locator: m[1] ?? '', startLine: Number(m[2]) };
          return Promise.resolve(toolCall('c4', 'spill_read', { locator: hit?.locator ?? '', offset: hit?.startLine ?? 1, limit: 40 }));
        }
        return Promise.resolve(say('Shard 17 ran out of disk quota.'));
      },
    });
    const fetchLogs = tool({
      description: 'Fetch the logs of a service.',
      inputSchema: jsonSchema<{ service: string }>({ type: 'object', properties: { service: { type: 'string' } }, required: ['service'] }),
      execute: ({ service }) => (service === 'api' ? bigLog() : 'db ok\n'.repeat(20_000)),
    });
    const result = await generateText({
      model,
      prompt: 'Why did the api fail?',
      tools: {
        ...withSpill({ fetchLogs }, { backend, maxInlineBytes: 4096, sessionId: 'chat-s' }),
        ...spillTools({ backend }),
        ...spillSearchTools({ searcher, sessionId: 'chat-s' }),
      },
      stopWhen: stepCountIs(6),
    });
    expect(prompts).toHaveLength(5);
    const searchAnswer = toolResultTexts(prompts[3] ?? [])[2] ?? '';
    expect(new TextEncoder().encode(searchAnswer).length).toBeLessThanOrEqual(4096);
    expect(searchAnswer).toContain(NEEDLE);
    expect(hit?.locator).toMatch(/^spill\+memory:\/\//);
    const readAnswer = toolResultTexts(prompts[4] ?? [])[3] ?? '';
    expect(readAnswer).toContain(NEEDLE);
    expect(result.text).toBe('Shard 17 ran out of disk quota.');
    await searcher.close();
  });

  it('withSpill({ search }) adds spill_search over the spills\' session, and the notice the model receives names it', async () => {
    const backend = createMemoryBackend();
    const searcher = await createBackendSearch(backend);
    const prompts: Prompt[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: ({ prompt }) => {
        prompts.push(prompt);
        if (prompts.length === 1) return Promise.resolve(toolCall('c1', 'fetchLogs', {}));
        if (prompts.length === 2) return Promise.resolve(toolCall('c2', 'spill_search', { query: 'disk quota exceeded' }));
        return Promise.resolve(say('done'));
      },
    });
    const fetchLogs = tool({
      description: 'Fetch the logs.',
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      execute: () => bigLog(),
    });
    // No sessionId: the spills go to withSpill's own session, and spill_search searches it.
    const tools = { ...withSpill({ fetchLogs }, { backend, maxInlineBytes: 4096, search: searcher }), ...spillTools({ backend }) };
    expect(Object.keys(tools).sort()).toEqual(['fetchLogs', 'spill_grep', 'spill_read', 'spill_search']);
    await generateText({ model, prompt: 'Why?', tools, stopWhen: stepCountIs(4) });
    expect(prompts).toHaveLength(3);
    const spilled = toolResultTexts(prompts[1] ?? [])[0] ?? '';
    expect(parseSpillNotice(spilled)?.retrievalHint).toBe(retrievalHintFor('spill-tools-and-search'));
    expect(spilled).toContain('spill_search');
    expect(toolResultTexts(prompts[2] ?? [])[1]).toContain(NEEDLE);
    await searcher.close();
  });

  it('without a searcher, the notice the model receives does not name spill_search', async () => {
    const backend = createMemoryBackend();
    const prompts: Prompt[] = [];
    const model = new MockLanguageModelV3({
      doGenerate: ({ prompt }) => {
        prompts.push(prompt);
        return Promise.resolve(prompts.length === 1 ? toolCall('c1', 'fetchLogs', {}) : say('done'));
      },
    });
    const fetchLogs = tool({
      description: 'Fetch the logs.',
      inputSchema: jsonSchema<Record<string, never>>({ type: 'object', properties: {} }),
      execute: () => bigLog(),
    });
    const tools = { ...withSpill({ fetchLogs }, { backend, maxInlineBytes: 4096, sessionId: 'chat-n' }), ...spillTools({ backend }) };
    expect(Object.keys(tools)).not.toContain('spill_search');
    await generateText({ model, prompt: 'Why?', tools, stopWhen: stepCountIs(3) });
    const spilled = toolResultTexts(prompts[1] ?? [])[0] ?? '';
    expect(parseSpillNotice(spilled)?.retrievalHint).toBe(retrievalHintFor('spill-tools'));
    expect(spilled).not.toContain('spill_search');
  });

  it('needs a searcher and a session', () => {
    expect(() => spillSearchTools({} as never)).toThrow(TypeError);
    expect(() => spillSearchTools({ searcher: { search: () => Promise.resolve({ hits: [], more: false }) } } as never)).toThrow(/sessionId/);
  });

  it('refuses a bad limit or an unknown option when it is made, not on each search', () => {
    const searcher = { search: () => Promise.resolve({ hits: [], more: false }) };
    expect(() => spillSearchTools({ searcher, sessionId: 's', maxSearchBytes: 10 })).toThrow(/^spillSearchTools: maxSearchBytes must be a whole number, at least 1024; got 10\.$/);
    expect(() => spillSearchTools({ searcher, sessionId: 's', defaultMaxResults: 0 })).toThrow(/^spillSearchTools: defaultMaxResults must be a whole number, at least 1; got 0\.$/);
    expect(() => spillSearchTools({ searcher, sessionId: 's', maxSearchByte: 4096 } as never)).toThrow(
      'spillSearchTools does not know the option "maxSearchByte"; the options are searcher, sessionId, maxSearchBytes, defaultMaxResults.',
    );
    expect(Object.keys(spillSearchTools({ searcher, sessionId: 's', maxSearchBytes: 4096, defaultMaxResults: 3 }))).toEqual(['spill_search']);
  });
});
