// A tool call id is unique only within one chat: a mock model (or a provider) that numbers
// its calls from 1 in every chat hands the same id to two chats. With the tools wrapped
// once at module level, as the README recommends, each chat must still see its own rows.
import { createMemoryBackend } from '@spillway/memory';
import { parseSpillNotice } from '@spillway/policy/notice';
import { generateText, jsonSchema, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { syncDigest, webDigest } from './content-digest.js';
import { spillTools, withSpill } from './index.js';
import { say, toolCall, toolResultTexts, type Prompt } from './test-loop.js';

const CAP = 1024;
/** Rows of one customer: the same length for every customer, so both chats' outputs have one size. */
const rows = (customer: string): string => Array.from({ length: 400 }, (_, i) => `${customer} order ${String(i).padStart(6, '0')}`).join('\n');

// Module level, once, with no sessionId: every chat shares the wrapping and its session.
const backend = createMemoryBackend();
const listOrders = tool({
  inputSchema: jsonSchema<{ customer: string }>({ type: 'object', properties: { customer: { type: 'string' } }, required: ['customer'] }),
  execute: ({ customer }) => rows(customer),
});
const tools = { ...withSpill({ listOrders }, { backend, maxInlineBytes: CAP }), ...spillTools({ backend }) };

/** One chat: the model calls listOrders with id call-1, then reads the stored result back from the top. */
async function chat(customer: string): Promise<{ shown: string; readBack: string }> {
  const prompts: Prompt[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: ({ prompt }) => {
      prompts.push(prompt);
      if (prompts.length === 1) return Promise.resolve(toolCall('call-1', 'listOrders', { customer }));
      if (prompts.length === 2) {
        const locator = parseSpillNotice(toolResultTexts(prompt).at(-1) ?? '')?.locator ?? '';
        return Promise.resolve(toolCall('call-2', 'spill_read', { locator, limit: 2 }));
      }
      return Promise.resolve(say('done'));
    },
  });
  await generateText({ model, prompt: `Orders of ${customer}?`, tools, stopWhen: stepCountIs(4) });
  const texts = toolResultTexts(prompts[2] ?? []);
  return { shown: texts[0] ?? '', readBack: texts[1] ?? '' };
}

describe('withSpill with a tool call id reused by another chat', () => {
  it('shows each chat its own output and locator, even when both outputs have the same size', async () => {
    expect(rows('alice').length).toBe(rows('bobby').length);
    const a = await chat('alice');
    const b = await chat('bobby');
    expect(a.shown).toContain('alice order 000000');
    expect(b.shown).toContain('bobby order 000000');
    expect(b.shown).not.toContain('alice');
    const locatorA = parseSpillNotice(a.shown)?.locator;
    const locatorB = parseSpillNotice(b.shown)?.locator;
    expect(locatorA).toBeDefined();
    expect(locatorB).toBeDefined();
    expect(locatorB).not.toBe(locatorA);
    expect(b.readBack).toContain('bobby order 000001');
    expect(b.readBack).not.toContain('alice');
    // Chat A asked again (a later request of chat A) still gets its own, remembered spill.
    const again = await tools.listOrders.toModelOutput?.({ toolCallId: 'call-1', input: { customer: 'alice' }, output: rows('alice') });
    expect(again).toEqual({ type: 'text', value: a.shown });
  });
});

describe('contentDigest', () => {
  it('agrees between Node and Web Crypto, and tells apart texts that differ only in a lone surrogate or a block boundary', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.string({ unit: 'binary' }), { maxLength: 4 }), async (texts) => {
        expect(syncDigest(texts)).toBe(await webDigest(texts));
      }),
      { numRuns: 50 },
    );
    expect(syncDigest(['s\uD800'])).not.toBe(syncDigest(['s\uDFFF']));
    expect(syncDigest(['ab', 'c'])).not.toBe(syncDigest(['a', 'bc']));
    expect(syncDigest(['ab'])).not.toBe(syncDigest(['a', 'b']));
  });
});
