// Type-level: withSpill hands back the user's own tool types, so inference carries through.
import { createMemoryBackend } from '@spillway/memory';
import { createSpillPolicy } from '@spillway/policy';
import type { SpillToolAnswer } from '@spillway/tools';
import { generateText, jsonSchema, tool, type InferToolInput, type InferToolOutput } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expectTypeOf, it } from 'vitest';
import { spillTools, withSpill } from './index.js';

describe('types', () => {
  it('keeps each tool input and output type through withSpill', () => {
    const weather = tool({
      inputSchema: jsonSchema<{ city: string }>({ type: 'object' }),
      execute: ({ city }) => ({ city, celsius: 21 }),
    });
    const page = tool({ inputSchema: jsonSchema<{ url: string }>({ type: 'object' }), execute: () => 'html' });
    const tools = withSpill({ weather, page }, { backend: createMemoryBackend(), maxInlineBytes: 8000 });
    expectTypeOf(tools).toEqualTypeOf<{ weather: typeof weather; page: typeof page }>();
    expectTypeOf<InferToolInput<typeof tools.weather>>().toEqualTypeOf<{ city: string }>();
    expectTypeOf<InferToolOutput<typeof tools.weather>>().toEqualTypeOf<{ city: string; celsius: number }>();
    const retrieval = spillTools({ backend: createMemoryBackend() });
    expectTypeOf<InferToolInput<typeof retrieval.spill_grep>>().toHaveProperty('pattern').toEqualTypeOf<string>();
    expectTypeOf<InferToolOutput<typeof retrieval.spill_read>>().toEqualTypeOf<SpillToolAnswer>();
    // The wrapped set goes where a tool set goes, alone or with the retrieval tools.
    const run = () => generateText({ model: new MockLanguageModelV3(), prompt: 'x', tools: { ...tools, ...retrieval } });
    expectTypeOf(withSpill(retrieval, { backend: createMemoryBackend() })).toEqualTypeOf(retrieval);
    expectTypeOf(run).returns.resolves.toHaveProperty('steps');
    const misuse = (): void => {
      // @ts-expect-error: options are checked (maxInlineBytes is a number)
      withSpill({ page }, { backend: createMemoryBackend(), maxInlineBytes: '8000' });
      // @ts-expect-error: a policy and policy options are not mixed
      withSpill({ page }, { policy: createSpillPolicy({}), maxInlineBytes: 1 });
    };
    expectTypeOf(misuse).toBeFunction();
  });
});
