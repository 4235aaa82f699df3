import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SpillPreviewScan, SpillPreviewScanner } from '@spillway/policy';
import { OutputScan } from './output-scan.js';

/** A scanner that keeps the text it is given. */
function recorder(): SpillPreviewScanner & { text: string } {
  const r = {
    text: '',
    push(chunk: string) {
      r.text += chunk;
    },
    finish: () => ({}) as SpillPreviewScan,
  };
  return r;
}

/** Bytes that hit the decoder's edges: ASCII runs, multi-byte characters, a BOM, stray and cut sequences. */
const pieces = fc.array(
  fc.oneof(
    fc.array(fc.integer({ min: 0, max: 0x7f }), { maxLength: 40 }).map((codes) => Buffer.from(codes)),
    fc.constantFrom('é', '€', '😀', '\ufeff', '\n').map((s) => Buffer.from(s)),
    fc.uint8Array({ minLength: 1, maxLength: 4 }).map((b) => Buffer.from(b)),
  ),
  { maxLength: 40 },
);

describe('OutputScan', () => {
  it('passes on exactly the text a streaming TextDecoder makes of the whole output, however it is cut', () => {
    fc.assert(
      fc.property(pieces, fc.array(fc.nat(), { maxLength: 12 }), (parts, cuts) => {
        const whole = Buffer.concat(parts);
        const at = [...new Set(cuts.map((c) => c % (whole.length + 1)))].sort((a, b) => a - b);
        const target = recorder();
        const scan = new OutputScan(target);
        let from = 0;
        for (const to of [...at, whole.length]) {
          scan.push(whole.subarray(from, to));
          from = to;
        }
        scan.finish();
        expect(target.text).toBe(new TextDecoder().decode(whole));
      }),
      { numRuns: 500 },
    );
  });
});
