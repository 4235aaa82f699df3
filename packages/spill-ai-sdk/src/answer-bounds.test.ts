// The shared bound on retrieval answers, run against this adapter's real tools: spillTools'
// execute, then its toModelOutput, which is what the model is sent.
import { createMemoryBackend } from '@spillway/memory';
import { parseSpillNotice } from '@spillway/policy/notice';
import { DEFAULT_SPILL_ANSWER_BYTES, DEFAULT_SPILL_ANSWER_MATCHES } from '@spillway/tools';
import { toolAnswerArtifact, toolAnswerCases, type ToolSurface } from '@spillway/test-support/tool-answers';
import { jsonSchema, tool } from 'ai';
import { beforeAll, describe, it } from 'vitest';
import { spillTools, withSpill } from './index.js';

describe('spillTools answers within the shared bound', () => {
  const backend = createMemoryBackend();
  const tools = spillTools({ backend });
  let locator = '';
  const surface: ToolSurface = {
    async call(name, args) {
      const t = tools[name];
      const options = { toolCallId: 'call-x', messages: [] };
      const output = await t.execute?.(args as never, options);
      const shown = await t.toModelOutput?.({ toolCallId: 'call-x', input: args as never, output: output as never });
      if (shown === undefined || (shown.type !== 'text' && shown.type !== 'error-text')) throw new Error('no text answer');
      return { text: shown.value, isError: shown.type === 'error-text' };
    },
  };

  beforeAll(async () => {
    // Spilled the way an application spills: through withSpill, the locator taken from the notice.
    const fetchRows = tool({ inputSchema: jsonSchema({ type: 'object' }), execute: () => toolAnswerArtifact() });
    const wrapped = withSpill({ fetchRows }, { backend, maxInlineBytes: 16_000, sessionId: 'bounds' });
    const shown = await wrapped.fetchRows.toModelOutput?.({ toolCallId: 'call-1', input: {}, output: toolAnswerArtifact() });
    locator = parseSpillNotice(shown?.type === 'text' ? shown.value : '')?.locator ?? '';
  });

  for (const c of toolAnswerCases({ maxAnswerBytes: DEFAULT_SPILL_ANSWER_BYTES, maxMatches: DEFAULT_SPILL_ANSWER_MATCHES })) {
    it(c.name, () => c.run(surface, locator));
  }
});
