import { createHash } from 'node:crypto';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { microPair } from '../micro.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { textOfSize } from '../text.js';

/** Operations per timed call: one pass-through is around a microsecond. */
const BATCH = 200;
/** The spilled result a chat's history carries back on every request. */
const REPEAT_BYTES = 200 * 1024;

function specs(profile: Profile): FigureSpec[] {
  const { bytes, cap } = profile.policySmall;
  const sdkBaseline = "the AI SDK's own output: { type: 'text', value }";
  return [
    {
      id: 'adapters.ai-sdk.passthrough',
      title: `ai-sdk withSpill toModelOutput, ${formatBytes(bytes)} under a ${formatBytes(cap)} cap`,
      baseline: sdkBaseline,
      unit: 'ms',
      target: ratioAtMost(3),
    },
    {
      id: 'adapters.ai-sdk.repeat',
      title: `ai-sdk withSpill toModelOutput again for a spilled ${formatBytes(REPEAT_BYTES)} result`,
      // A spill is remembered by its text's digest, so telling a repeat from another output
      // under a reused call id costs one hash of the output: that is the floor here.
      baseline: `${sdkBaseline} after one SHA-256 of the output`,
      unit: 'ms',
      target: ratioAtMost(3),
    },
    {
      id: 'adapters.langchain.passthrough',
      title: `langchain wrapToolCall, ${formatBytes(bytes)} ToolMessage under a ${formatBytes(cap)} cap`,
      baseline: 'a wrapToolCall that awaits handler(request) and returns its answer',
      unit: 'ms',
      target: ratioAtMost(3),
    },
  ];
}

type ToModelOutput = (call: { toolCallId: string; input: unknown; output: unknown }) => Promise<unknown>;

/**
 * The adapters' own cost per tool result, where nothing is stored: a result under the cap,
 * and (AI SDK) the same call seen again by `convertToModelMessages` after it was spilled,
 * which must answer from memory without touching the backend. Baselines are what the
 * framework does without spillway.
 */
export const adaptersGroup: FigureGroup = {
  name: 'adapters',
  specs,
  async run(ctx) {
    const { withSpill } = await import('@spillway/ai-sdk');
    const { createSpillMiddleware } = await import('@spillway/langchain');
    const { createMemoryBackend } = await import('@spillway/memory');
    const { ToolMessage } = await import('@langchain/core/messages');
    const { jsonSchema, tool } = await import('ai');
    const { bytes, cap } = ctx.profile.policySmall;
    const options = { timeMs: ctx.profile.microTimeMs, batch: BATCH };
    const sdkDefault = (output: string): Promise<unknown> => Promise.resolve({ type: 'text', value: output });

    const small = textOfSize(bytes);
    const backend = createMemoryBackend();
    const echo = tool({ inputSchema: jsonSchema<{ text: string }>({ type: 'object' }), execute: ({ text }) => text });
    const wrapped = withSpill({ echo }, { backend, maxInlineBytes: cap, sessionId: 'bench-session' });
    const toModelOutput = wrapped.echo.toModelOutput as unknown as ToModelOutput;
    const smallCall = { toolCallId: 'call-small', input: {}, output: small };
    ctx.log(`adapters.ai-sdk.passthrough: ${formatBytes(bytes)} under ${formatBytes(cap)}`);
    const passthrough = await microPair(
      ctx.profile.microRounds,
      { spillway: { run: () => toModelOutput(smallCall) }, baseline: { run: () => sdkDefault(small) } },
      options,
    );
    ctx.record('adapters.ai-sdk.passthrough', { ...passthrough, notes: [`artifacts stored: ${String(await count(backend))}`] });

    const big = textOfSize(REPEAT_BYTES);
    const bigCall = { toolCallId: 'call-big', input: {}, output: big };
    const first = JSON.stringify(await toModelOutput(bigCall));
    ctx.log(`adapters.ai-sdk.repeat: ${formatBytes(REPEAT_BYTES)} spilled once, then asked again`);
    const repeat = await microPair(
      ctx.profile.microRounds,
      {
        spillway: { run: () => toModelOutput(bigCall) },
        baseline: {
          run: () => {
            createHash('sha256').update(big, 'utf16le').digest('hex');
            return sdkDefault(big);
          },
        },
      },
      options,
    );
    const same = JSON.stringify(await toModelOutput(bigCall)) === first;
    ctx.record('adapters.ai-sdk.repeat', {
      ...repeat,
      notes: [`the repeat answered the first spill's text: ${String(same)}; artifacts stored in all: ${String(await count(backend))}`],
    });

    const middleware = createSpillMiddleware({ backend, maxInlineBytes: cap });
    const wrap = middleware.wrapToolCall as unknown as (request: unknown, handler: () => unknown) => Promise<unknown>;
    const message = new ToolMessage({ content: small, tool_call_id: 'call-lc', name: 'echo' });
    const request = { toolCall: { name: 'echo', args: {}, id: 'call-lc' }, tool: undefined, state: { messages: [] }, runtime: { configurable: { thread_id: 'bench' } } };
    const handler = (): unknown => message;
    // The least a middleware that looks at the tool's answer does: wait for it.
    const plain = async (req: unknown, next: (r: unknown) => unknown): Promise<unknown> => {
      const answer = await next(req);
      return answer;
    };
    ctx.log(`adapters.langchain.passthrough: ${formatBytes(bytes)} under ${formatBytes(cap)}`);
    const lc = await microPair(
      ctx.profile.microRounds,
      { spillway: { run: () => wrap(request, handler) }, baseline: { run: () => plain(request, handler) } },
      options,
    );
    const answer = await wrap(request, handler);
    ctx.record('adapters.langchain.passthrough', {
      ...lc,
      notes: [`the message itself came back: ${String(answer === message)}; artifacts stored in all: ${String(await count(backend))}`],
    });
  },
};

async function count(backend: { readonly catalog: { list(): AsyncIterable<unknown> } }): Promise<number> {
  let n = 0;
  for await (const _ of backend.catalog.list()) n++;
  return n;
}
