import { callId, sessionId } from '@spillway/core';
import { createMemoryBackend } from '@spillway/memory';
import { SPILL_TOOL_NAMES, spillGrepTool, spillReadTool, type SpillToolAnswer } from '@spillway/tools';
import { asSchema, type ToolSet } from 'ai';
import { describe, expect, it } from 'vitest';
import { spillTools } from './index.js';

async function run(tools: ToolSet, name: string, input: unknown): Promise<{ output: SpillToolAnswer; shown: unknown }> {
  const t = tools[name];
  if (t?.execute === undefined || t.toModelOutput === undefined) throw new Error(`${name} is not executable`);
  const output = (await t.execute(input as never, { toolCallId: 'c', messages: [] })) as SpillToolAnswer;
  return { output, shown: await t.toModelOutput({ toolCallId: 'c', input, output }) };
}

describe('spillTools', () => {
  const backend = createMemoryBackend();
  const tools = spillTools({ backend, maxReadBytes: 64 });
  const stored = backend.saveText({
    owner: { sessionId: sessionId('s') },
    source: { toolName: 'bash', callId: callId('c1') },
    suggestedName: 'out.txt',
    content: Array.from({ length: 100 }, (_, i) => `line ${String(i + 1)}`).join('\n'),
  });

  it('offers spill_read and spill_grep with the shared descriptions and JSON Schemas', async () => {
    expect(Object.keys(tools).sort()).toEqual(SPILL_TOOL_NAMES.filter((n) => n !== 'spill_search').sort());
    expect(tools.spill_read.description).toBe(spillReadTool.description);
    expect(tools.spill_grep.description).toBe(spillGrepTool.description);
    expect(await asSchema(tools.spill_read.inputSchema).jsonSchema).toEqual(spillReadTool.inputSchema);
    expect(await asSchema(tools.spill_grep.inputSchema).jsonSchema).toEqual(spillGrepTool.inputSchema);
  });

  it('reads through the reader, capped by maxReadBytes, and says where to continue', async () => {
    const { locator } = await stored;
    const { output, shown } = await run(tools, 'spill_read', { locator, offset: 10, limit: 50 });
    expect(output.isError).toBe(false);
    expect(shown).toMatchObject({ type: 'text' });
    const text = (shown as { value: string }).value;
    expect(text.startsWith('line 10\nline 11\n')).toBe(true);
    expect(text).toMatch(/continue with spill_read offset \d+/);
  });

  it('greps through the reader', async () => {
    const { locator } = await stored;
    const { shown } = await run(tools, 'spill_grep', { locator, pattern: '^line 4\\d$' });
    expect((shown as { value: string }).value).toContain('42: line 42');
  });

  it('answers a forged locator, a bad pattern and bad arguments as tool errors the model reads', async () => {
    const { locator } = await stored;
    for (const [name, input, code] of [
      ['spill_read', { locator: '/etc/passwd' }, 'SPILL_INVALID_LOCATOR'],
      ['spill_grep', { locator, pattern: '(' }, 'SPILL_INVALID_PATTERN'],
      ['spill_read', {}, 'SPILL_INVALID_INPUT'],
      ['spill_read', { locator, offset: 0 }, 'SPILL_INVALID_INPUT'],
    ] as const) {
      const { output, shown } = await run(tools, name, input);
      expect(output).toMatchObject({ isError: true, code });
      expect(shown).toMatchObject({ type: 'error-text' });
      expect((shown as { value: string }).value).toContain(name);
    }
  });

  it('refuses a backend without a reader', () => {
    const { reader: _reader, ...writeOnly } = createMemoryBackend();
    expect(() => spillTools({ backend: writeOnly })).toThrow(/reader/);
    expect(() => spillTools(undefined as never)).toThrow(TypeError);
  });

  it('refuses a bad or unknown option at construction, naming spillTools and what it accepts', () => {
    const backend = createMemoryBackend();
    expect(() => spillTools({ backend, maxReadByte: 10 } as never)).toThrow(
      new TypeError('spillTools does not know the option "maxReadByte"; the options are backend, maxReadBytes, defaultMaxMatches.'),
    );
    expect(() => spillTools({ backend, maxReadBytes: -1 })).toThrow(new TypeError('spillTools: maxReadBytes must be a whole number, at least 1; got -1.'));
    expect(() => spillTools({ backend, defaultMaxMatches: 0 })).toThrow(
      new TypeError('spillTools: defaultMaxMatches must be a whole number, at least 1; got 0.'),
    );
    expect(Object.keys(spillTools({ backend, maxReadBytes: 1, defaultMaxMatches: 1 }))).toEqual(['spill_read', 'spill_grep']);
  });
});
