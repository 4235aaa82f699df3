import type { SaveTextSpill, SaveTextStreamSpill, SpillBackend, SpillRef } from '@spillway/core';
import { ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { microPair } from '../micro.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';
import { textOfSize } from '../text.js';

/** Operations per timed call: one apply is far below a microsecond's timer resolution. */
const BATCH = 1000;

function specs(profile: Profile): FigureSpec[] {
  const { policySmall: s, policyLarge: l } = profile;
  const baseline = 'await Promise.resolve(decision)';
  return [
    {
      id: 'policy.passthrough.small',
      title: `policy apply, ${formatBytes(s.bytes)} under a ${formatBytes(s.cap)} cap`,
      baseline,
      unit: 'ms',
      target: ratioAtMost(3),
    },
    {
      id: 'policy.passthrough.large',
      title: `policy apply, ${formatBytes(l.bytes)} under a ${formatBytes(l.cap)} cap`,
      baseline,
      unit: 'ms',
      target: ratioAtMost(3),
    },
  ];
}

/** A backend that must never be called: pass-through never saves. It counts calls. */
function untouchedBackend(): SpillBackend & { calls: number } {
  const backend = {
    specificationVersion: 'v1' as const,
    name: 'untouched',
    calls: 0,
    saveText(_input: SaveTextSpill): Promise<SpillRef> {
      backend.calls++;
      return Promise.reject(new Error('pass-through must not save'));
    },
    saveTextStream(_input: SaveTextStreamSpill): Promise<SpillRef> {
      backend.calls++;
      return Promise.reject(new Error('pass-through must not save'));
    },
  };
  return backend;
}

/**
 * Figure 1: `apply` on a result under the cap against the cheapest possible async
 * hook, `await Promise.resolve(decision)`. The large case shows that the cap check
 * does not scan the text (a length bound decides it), so its cost does not grow with
 * the size of the result.
 */
export const policyGroup: FigureGroup = {
  name: 'policy',
  specs,
  async run(ctx) {
    const { createSpillPolicy } = await import('@spillway/policy');
    const cases = [
      { id: 'policy.passthrough.small', ...ctx.profile.policySmall },
      { id: 'policy.passthrough.large', ...ctx.profile.policyLarge },
    ];
    for (const c of cases) {
      const backend = untouchedBackend();
      const policy = createSpillPolicy({ backend, maxInlineBytes: c.cap });
      const exec = { toolName: 'bench_tool', callId: 'call-1', sessionId: 'bench-session' };
      const result = { content: [{ type: 'text', text: textOfSize(c.bytes) }] };
      const decision = { kind: 'accept' } as const;
      const answer = await policy.apply(exec, result, decision);
      const passedThrough = answer === decision ? 'passed through (the decision itself came back)' : 'did NOT pass through';
      ctx.log(`${c.id}: ${formatBytes(c.bytes)} under ${formatBytes(c.cap)}`);
      const samples = await microPair(
        ctx.profile.microRounds,
        {
          spillway: { run: () => policy.apply(exec, result, decision) },
          baseline: { run: () => Promise.resolve(decision) },
        },
        { timeMs: ctx.profile.microTimeMs, batch: BATCH },
      );
      ctx.record(c.id, { ...samples, notes: [`${passedThrough}; backend calls during the run: ${backend.calls}`] });
    }
  },
};
