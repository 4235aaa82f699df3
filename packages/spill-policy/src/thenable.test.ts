import { describe, expect, it } from 'vitest';
import { resolvable } from './thenable.js';

describe('resolvable', () => {
  it('keeps the identity of objects with no then anywhere on their chain (plain, null-prototype, class instances)', () => {
    class Decision {
      readonly kind = 'accept';
    }
    for (const value of [{ kind: 'accept' }, Object.assign(Object.create(null) as object, { kind: 'deny' }), new Decision(), [1, 2]]) {
      expect(resolvable(value)).toBe(value);
    }
  });

  it('copies, without running it, a then getter inherited from a prototype', () => {
    let reads = 0;
    const proto = Object.defineProperty({}, 'then', {
      get() {
        reads++;
        return () => undefined;
      },
    });
    const value = Object.assign(Object.create(proto) as object, { kind: 'deny' });
    const out = resolvable(value);
    expect(out).not.toBe(value);
    expect(out).toEqual({ kind: 'deny' });
    expect('then' in out).toBe(false);
    expect(reads).toBe(0);
  });

  it('keeps the identity of an object whose own then is a plain value, and returns primitives as they are', () => {
    const value = { kind: 'block', then: 42 };
    expect(resolvable(value)).toBe(value);
    expect(resolvable('accept')).toBe('accept');
    expect(resolvable(null)).toBe(null);
  });
});
