import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RememberedSpills } from './remembered.js';

const entry = (sessionId: string, toolName = 't', digest = '1:10') => ({ sessionId, toolName, digest, answer: Promise.resolve(sessionId) });

describe('RememberedSpills', () => {
  it('tells calls apart by session, tool and text digest under one call id', () => {
    const memory = new RememberedSpills<string>(10);
    const a = entry('chat-a');
    const b = entry('chat-b');
    memory.set('call-1', a);
    memory.set('call-1', b);
    expect(memory.get('call-1', 'chat-a', 't', '1:10')?.answer).toBe(a.answer);
    expect(memory.get('call-1', 'chat-b', 't', '1:10')?.answer).toBe(b.answer);
    expect(memory.get('call-1', 'chat-a', 'other', '1:10')).toBeUndefined();
    expect(memory.get('call-1', 'chat-a', 't', '1:11')).toBeUndefined();
    expect(memory.size).toBe(2);
    const a2 = entry('chat-a', 't', '1:11');
    memory.set('call-1', a2); // another text under the same call: kept beside chat-a's first
    expect(memory.size).toBe(3);
    expect(memory.get('call-1', 'chat-a', 't', '1:10')?.answer).toBe(a.answer);
    const a3 = entry('chat-a', 't', '1:11');
    memory.set('call-1', a3); // the same text again: replaces a2
    expect(memory.size).toBe(3);
    memory.forget('call-1', a2.answer); // already replaced: nothing happens
    expect(memory.get('call-1', 'chat-a', 't', '1:11')?.answer).toBe(a3.answer);
    memory.forget('call-1', a3.answer);
    expect(memory.size).toBe(2);
  });

  it('gives a call looked up since the last pass a second chance', () => {
    const memory = new RememberedSpills<string>(2);
    memory.set('a', entry('s'));
    memory.set('b', entry('s'));
    expect(memory.get('a', 's', 't', '1:10')).toBeDefined();
    memory.set('c', entry('s')); // b goes: a was used
    expect(memory.get('a', 's', 't', '1:10')).toBeDefined();
    expect(memory.get('b', 's', 't', '1:10')).toBeUndefined();
    expect(memory.get('c', 's', 't', '1:10')).toBeDefined();
  });

  it('remembers none with max 0', () => {
    const memory = new RememberedSpills<string>(0);
    memory.set('a', entry('s'));
    expect(memory.size).toBe(0);
    expect(memory.get('a', 's', 't', '1:10')).toBeUndefined();
  });

  it('stays within max, and always holds what was just set (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.constantFrom('a', 'b', 'c', 'd', 'e'), session: fc.constantFrom('s1', 's2', 's3') }),
      fc.record({ kind: fc.constant('get' as const), id: fc.constantFrom('a', 'b', 'c', 'd', 'e'), session: fc.constantFrom('s1', 's2', 's3') }),
      fc.record({ kind: fc.constant('forget' as const), id: fc.constantFrom('a', 'b', 'c', 'd', 'e'), session: fc.constantFrom('s1', 's2', 's3') }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 4 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const memory = new RememberedSpills<string>(max);
        const live = new Map<string, Promise<string>>();
        for (const o of ops) {
          if (o.kind === 'set') {
            const e = entry(o.session);
            memory.set(o.id, e);
            live.set(`${o.id}/${o.session}`, e.answer);
            expect(memory.get(o.id, o.session, 't', '1:10')?.answer).toBe(e.answer);
          } else if (o.kind === 'get') {
            const got = memory.get(o.id, o.session, 't', '1:10');
            // Whatever it answers was set for exactly this call and session.
            if (got !== undefined) expect(got.answer).toBe(live.get(`${o.id}/${o.session}`));
          } else {
            const answer = live.get(`${o.id}/${o.session}`);
            if (answer !== undefined) memory.forget(o.id, answer);
            expect(memory.get(o.id, o.session, 't', '1:10')).toBeUndefined();
          }
          expect(memory.size).toBeLessThanOrEqual(max);
          // The count matches what can be found (looking marks entries used, which any
          // sequence of gets could do too).
          let found = 0;
          for (const id of ['a', 'b', 'c', 'd', 'e']) for (const s of ['s1', 's2', 's3']) if (memory.get(id, s, 't', '1:10')) found++;
          expect(memory.size).toBe(found);
        }
      }),
    );
  });
});
