// The shared bound on retrieval answers, run against this adapter's real tools: the
// LangChain tools invoked with a tool call, as an agent invokes them.
import { createMemoryBackend } from '@spillway/memory';
import { DEFAULT_SPILL_ANSWER_BYTES, DEFAULT_SPILL_ANSWER_MATCHES } from '@spillway/tools';
import { toolAnswerArtifact, toolAnswerCases, type ToolSurface } from '@spillway/test-support/tool-answers';
import { callId, sessionId } from '@spillway/core';
import type { ToolMessage } from '@langchain/core/messages';
import { beforeAll, describe, it } from 'vitest';
import { createSpillTools } from './index.js';

describe('createSpillTools answers within the shared bound', () => {
  const backend = createMemoryBackend();
  const tools = createSpillTools({ backend });
  let locator = '';
  let calls = 0;
  const surface: ToolSurface = {
    async call(name, args) {
      const t = tools.find((candidate) => candidate.name === name);
      if (t === undefined) throw new Error(`no tool ${name}`);
      const message = (await t.invoke({ type: 'tool_call', id: `call-${String(++calls)}`, name, args: { ...args } })) as ToolMessage;
      if (typeof message.content !== 'string') throw new Error('no text answer');
      return { text: message.content, isError: message.status === 'error' };
    },
  };

  beforeAll(async () => {
    const ref = await backend.saveText({
      owner: { sessionId: sessionId('bounds') },
      source: { toolName: 'fetch_rows', callId: callId('call-0'), label: 'fetch_rows' },
      suggestedName: 'rows.txt',
      content: toolAnswerArtifact(),
    });
    locator = ref.locator;
  });

  for (const c of toolAnswerCases({ maxAnswerBytes: DEFAULT_SPILL_ANSWER_BYTES, maxMatches: DEFAULT_SPILL_ANSWER_MATCHES })) {
    it(c.name, () => c.run(surface, locator));
  }
});
