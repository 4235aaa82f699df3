// The registry every surface maps: what a surface offers follows from what it has, each
// spec's run answers what the tool's own function answers, and no answer exceeds the
// bound the spec declares (which the MCP proxy tells hosts to expect).
import { sessionId, type SpillSearcher } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  offeredSpillTools,
  runSpillGrep,
  runSpillRead,
  runSpillTool,
  SPILL_TOOL_NAMES,
  spillToolSpecs,
  withSurfaceDefaults,
} from './index.js';
import { stored } from './test-stored.js';

const encoder = new TextEncoder();


/** A searcher that answers one hit holding `text`, and records the sessions it was asked for. */
function fakeSearcher(text: string): SpillSearcher & { readonly sessions: (string | undefined)[] } {
  const sessions: (string | undefined)[] = [];
  return {
    sessions,
    search: (request) => {
      sessions.push(request.sessionId);
      return Promise.resolve({ hits: [{ locator: 'spill+memory://x' as never, startLine: 1, endLine: 1, text, score: 1, truncated: false }], more: false });
    },
  };
}

describe('the registry', () => {
  it('holds every tool name once, in the order surfaces list them', () => {
    expect(spillToolSpecs.map((s) => s.name)).toEqual([...SPILL_TOOL_NAMES]);
  });

  it('offers a tool only where its services are', () => {
    const reader = {} as never;
    const searcher = fakeSearcher('x');
    expect(offeredSpillTools({}).map((s) => s.name)).toEqual([]);
    expect(offeredSpillTools({ reader }).map((s) => s.name)).toEqual(['spill_read', 'spill_grep']);
    expect(offeredSpillTools({ searcher }).map((s) => s.name)).toEqual(['spill_search']);
    expect(offeredSpillTools({ reader, searcher }).map((s) => s.name)).toEqual([...SPILL_TOOL_NAMES]);
    expect(offeredSpillTools({ reader, searcher }, ['spill_grep']).map((s) => s.name)).toEqual(['spill_grep']);
  });

  it('answers through a spec exactly what the tool function answers', async () => {
    const { reader, locator } = await stored(Array.from({ length: 300 }, (_, i) => `row ${String(i)} value`).join('\n'));
    const [read, grep] = offeredSpillTools({ reader });
    expect(await read?.run({ reader }, { locator, offset: 7, limit: 3 })).toEqual(await runSpillRead(reader, { locator, offset: 7, limit: 3 }));
    expect(await grep?.run({ reader }, { locator, pattern: 'row 1\\d' })).toEqual(await runSpillGrep(reader, { locator, pattern: 'row 1\\d' }));
  });

  it('answers a readable error, not a throw, when a service or the session is missing', async () => {
    for (const spec of spillToolSpecs) {
      const answer = await spec.run({}, { locator: 'x', pattern: 'y', query: 'z' });
      expect(answer).toMatchObject({ isError: true, code: 'SPILL_INVALID_INPUT' });
      expect(answer.text).toContain(spec.name);
    }
    const searcher = fakeSearcher('hit');
    const noSession = await runSpillTool({ searcher }, 'spill_search', { query: 'hit' });
    expect(noSession).toMatchObject({ isError: true });
    expect(noSession.text).toContain('no session');
    expect(searcher.sessions).toEqual([]);
    const withSession = await runSpillTool({ searcher }, 'spill_search', { query: 'hit' }, { sessionId: sessionId('chat-1') });
    expect(withSession.isError).toBe(false);
    expect(searcher.sessions).toEqual(['chat-1']);
  });

  it('never answers more bytes than the spec declares (property)', async () => {
    const { reader, locator } = await stored(Array.from({ length: 3000 }, (_, i) => `${'x'.repeat(i % 700)} ${String(i)}`).join('\n'));
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...offeredSpillTools({ reader })),
        fc.record({ offset: fc.integer({ min: 1, max: 3000 }), limit: fc.integer({ min: 0, max: 100_000 }), maxMatches: fc.integer({ min: 1, max: 100_000 }) }),
        fc.integer({ min: 1024, max: 64 * 1024 }),
        async (spec, args, maxAnswerBytes) => {
          const answer = await spec.run({ reader }, { locator, pattern: '\\d', ...args }, { maxAnswerBytes });
          expect(encoder.encode(answer.text).length).toBeLessThanOrEqual(spec.answerBytes({ maxAnswerBytes }));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('surface defaults', () => {
  it('skips every spillway tool, and read only on a surface that wraps the harness tools', () => {
    expect(withSurfaceDefaults({}, { search: false, wrapsHarnessTools: true }).skipTools).toEqual(['read', ...SPILL_TOOL_NAMES]);
    expect(withSurfaceDefaults({}, { search: false, wrapsHarnessTools: false }).skipTools).toEqual([...SPILL_TOOL_NAMES]);
  });

  it('names spill_search in the notice only where it is offered, and keeps what the user set', () => {
    expect(withSurfaceDefaults({}, { search: true, wrapsHarnessTools: true }).noticeReader).toBe('spill-tools-and-search');
    expect(withSurfaceDefaults({}, { search: false, wrapsHarnessTools: true }).noticeReader).toBe('spill-tools');
    const mine = withSurfaceDefaults({ skipTools: ['bash'], noticeReader: 'file-tools' as const, maxInlineBytes: 9 }, { search: true, wrapsHarnessTools: true });
    expect(mine).toEqual({ skipTools: ['bash'], noticeReader: 'file-tools', maxInlineBytes: 9 });
  });
});
