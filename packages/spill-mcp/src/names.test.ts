import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { downstreamToolName, upstreamToolName } from './names.js';

describe('tool name escaping', () => {
  it('renames only names that would collide with the proxy\'s tools', () => {
    expect(downstreamToolName('spill_read')).toBe('upstream_spill_read');
    expect(downstreamToolName('spill_grep')).toBe('upstream_spill_grep');
    expect(downstreamToolName('upstream_spill_read')).toBe('upstream_upstream_spill_read');
    expect(downstreamToolName('read_text_file')).toBe('read_text_file');
    expect(downstreamToolName('upstream_other')).toBe('upstream_other');
    expect(downstreamToolName('spill_reader')).toBe('spill_reader');
    expect(upstreamToolName('spill_read')).toBeUndefined();
    expect(upstreamToolName('spill_grep')).toBeUndefined();
  });

  it('is one-to-one: the host name of an upstream tool maps back to it, and never to the proxy\'s own tools', () => {
    const names = fc.oneof(
      fc.string(),
      fc.tuple(fc.nat({ max: 3 }), fc.constantFrom('spill_read', 'spill_grep', 'x')).map(([n, base]) => `${'upstream_'.repeat(n)}${base}`),
    );
    fc.assert(
      fc.property(names, names, (a, b) => {
        const da = downstreamToolName(a);
        expect(upstreamToolName(da)).toBe(a);
        expect(da === downstreamToolName(b)).toBe(a === b);
      }),
    );
  });
});
