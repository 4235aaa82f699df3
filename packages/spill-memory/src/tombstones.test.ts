import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Tombstones, type RemovalReason } from './tombstones.js';

const hex = (n: number, digits: number): string => n.toString(16).padStart(digits, '0').slice(-digits);
/** A memory locator; few distinct random parts, so that probe runs collide and wrap often. */
const locatorOf = (session: number, id: number): string => `spill+memory://session-${hex(session, 32)}/${hex(id, 32)}`;

describe('Tombstones', () => {
  it('answers what a ring of the most recent removals answers (model-based property)', () => {
    const op = fc.oneof(
      fc.record({ add: fc.constant(true), session: fc.nat(3), id: fc.nat(40), reason: fc.constantFrom<RemovalReason>('evicted', 'deleted') }),
      fc.record({ add: fc.constant(false), session: fc.nat(3), id: fc.nat(40) }),
    );
    fc.assert(
      fc.property(fc.nat(12), fc.array(op, { maxLength: 200 }), (capacity, ops) => {
        const tombstones = new Tombstones(capacity);
        const ring: { locator: string; reason: RemovalReason }[] = [];
        for (const o of ops) {
          const locator = locatorOf(o.session, o.id);
          if ('reason' in o) {
            tombstones.add(locator, o.reason);
            if (capacity > 0) {
              ring.push({ locator, reason: o.reason });
              if (ring.length > capacity) ring.shift();
            }
          }
          // The model: the most recent remembered removal of that locator.
          const expected = ring.findLast((e) => e.locator === locator)?.reason;
          const got = tombstones.get(locator);
          if (expected === undefined) expect(got).toBeUndefined();
          // A locator removed twice (never the case in a backend) answers one of its reasons.
          else expect(ring.filter((e) => e.locator === locator).map((e) => e.reason)).toContain(got);
          expect(tombstones.size).toBe(ring.length);
        }
        // Every remembered locator is found; anything else is not.
        for (const e of ring) expect(tombstones.get(e.locator)).toBeDefined();
        expect(tombstones.get(locatorOf(9, 99))).toBeUndefined();
      }),
    );
  });

  it('never remembers or finds what is not a memory locator', () => {
    const tombstones = new Tombstones(4);
    const bad = [
      '',
      'spill+memory://x',
      `${locatorOf(1, 1)}0`,
      locatorOf(1, 1).toUpperCase(),
      locatorOf(1, 1).replace('/0', 'x0'),
      locatorOf(1, 1).replace('session-', 'session_'),
      `spill+memory://${'0'.repeat(16)}/${'0'.repeat(32)}`, // the shape before the naming rule
    ];
    for (const locator of bad) {
      tombstones.add(locator, 'evicted');
      expect(tombstones.get(locator)).toBeUndefined();
    }
    expect(tombstones.size).toBe(0);
  });

  it('holds its full capacity from the start and allocates nothing per removal', () => {
    // A million removals through a ring of 10,000: the same structures from the first to the last.
    const tombstones = new Tombstones(10_000);
    for (let i = 0; i < 1_000_000; i++) tombstones.add(locatorOf(i % 7, i), i % 2 === 0 ? 'evicted' : 'deleted');
    expect(tombstones.size).toBe(10_000);
    expect(tombstones.get(locatorOf(999_999 % 7, 999_999))).toBe('deleted');
    expect(tombstones.get(locatorOf(990_000 % 7, 990_000))).toBe('evicted');
    expect(tombstones.get(locatorOf(989_999 % 7, 989_999))).toBeUndefined();
  });
});
