import { describe, expect, it } from 'vitest';
import { colorEnabled, makeStyle } from './color.js';

describe('colorEnabled', () => {
  it.each([
    { isTTY: true, env: {}, expected: true },
    { isTTY: false, env: {}, expected: false },
    { isTTY: true, env: { NO_COLOR: '1' }, expected: false },
    { isTTY: true, env: { NO_COLOR: '' }, expected: true },
    { isTTY: true, env: { TERM: 'dumb' }, expected: false },
    { isTTY: true, env: { FORCE_COLOR: '0' }, expected: false },
    { isTTY: true, env: { FORCE_COLOR: 'false' }, expected: false },
    { isTTY: false, env: { FORCE_COLOR: '1' }, expected: true },
    { isTTY: false, env: { FORCE_COLOR: '' }, expected: true },
    { isTTY: false, env: { FORCE_COLOR: '1', NO_COLOR: '1' }, expected: true },
  ])('is $expected for a TTY=$isTTY with $env', ({ isTTY, env, expected }) => {
    expect(colorEnabled(isTTY, env)).toBe(expected);
  });
});

describe('makeStyle', () => {
  it('is the identity when colour is off', () => {
    const s = makeStyle(false);
    for (const f of [s.red, s.yellow, s.green, s.dim, s.bold]) expect(f('x')).toBe('x');
  });

  it('wraps text in SGR escapes that reset only what they set', () => {
    const s = makeStyle(true);
    expect(s.red('x')).toBe('\u001b[31mx\u001b[39m');
    expect(s.bold('x')).toBe('\u001b[1mx\u001b[22m');
  });
});
