/**
 * What `apply` resolves with must not be read as a thenable: resolving a promise with an
 * object reads its `then`, so a `then` getter that throws would make `apply` reject, and a
 * `then` method would be called (and might never call back). This module finds such a
 * `then` without running any of the caller's code, and strips it in that case only.
 */

/**
 * `value` itself when promise resolution can take it as it is (no `then`, or a `then`
 * that is a plain non-function value), and otherwise a shallow copy of its own enumerable
 * properties without `then` (each read inside a guard; one whose getter throws is left
 * out). Never throws.
 */
export function resolvable<T>(value: T): T {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return value;
  try {
    if (hasNoThen(value) || !hasCallableOrAccessorThen(value)) return value;
  } catch {
    // A proxy trap threw: copy what can be read.
  }
  return copyWithoutThen(value);
}

/**
 * The common case in one inline-cached lookup: `then` is nowhere on the object or its
 * prototype chain. `in` runs no getter (only a Proxy's `has` trap, as the walk below runs
 * its descriptor traps). On Node 20 it costs about 5 ns, where `Object.getPrototypeOf` plus
 * `Object.hasOwn` on the value and on `Object.prototype` cost about 40 ns; every `apply`
 * answer goes through here. `false` means "walk".
 */
function hasNoThen(value: object): boolean {
  return !('then' in value);
}

/** Walks the prototype chain by descriptors, so no getter runs. */
function hasCallableOrAccessorThen(value: object): boolean {
  let depth = 0;
  for (let o: object | null = value; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    if (++depth > 1000) return true; // a pathological chain: be safe
    const descriptor = Object.getOwnPropertyDescriptor(o, 'then');
    if (descriptor !== undefined) return !('value' in descriptor) || typeof descriptor.value === 'function';
  }
  return false;
}

function copyWithoutThen<T>(value: T & object): T {
  const copy: Record<PropertyKey, unknown> = {};
  let keys: (string | symbol)[];
  try {
    keys = Reflect.ownKeys(value);
  } catch {
    keys = [];
  }
  for (const key of keys) {
    if (key === 'then') continue;
    try {
      const descriptor = Object.getOwnPropertyDescriptor(value, key);
      if (descriptor?.enumerable !== true) continue;
      const read: unknown = 'value' in descriptor ? descriptor.value : descriptor.get?.call(value);
      // defineProperty, so that a key such as `__proto__` stays an ordinary property.
      Object.defineProperty(copy, key, { value: read, enumerable: true, writable: true, configurable: true });
    } catch {
      // A getter that throws: leave that property out.
    }
  }
  return copy as T;
}
