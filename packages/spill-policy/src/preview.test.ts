import { utf8ByteLength } from '@spillway/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatSpillNotice } from './notice.js';
import { composeReplacement, cutHead, cutHeadByUnits, cutTail, cutTailByUnits, LINE_WINDOW_BYTES, PREVIEW_SEPARATOR, previewMarker } from './preview.js';
import { textArb } from './test-backends.js';

const notice = (omittedBytes: number): string => formatSpillNotice({ omittedBytes, locator: '/tmp/spill/x.txt', retrievalHint: 'Use read.' });

function isHigh(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}
function isLow(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
/** True when index `i` falls between the two halves of a surrogate pair. */
function splitsPair(text: string, i: number): boolean {
  return i > 0 && i < text.length && isHigh(text.charCodeAt(i - 1)) && isLow(text.charCodeAt(i));
}

describe('cutHead and cutTail', () => {
  it('answer what the loop over every unit answers', () => {
    const lineArb = fc.oneof(
      { weight: 6, arbitrary: fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n'), maxLength: 60 }) },
      { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    );
    fc.assert(
      fc.property(fc.array(lineArb, { maxLength: 30 }).map((parts) => parts.join('')), fc.integer({ min: -2, max: 1200 }), (text, budget) => {
        expect(cutHead(text, budget)).toEqual(cutHeadByUnits(text, budget));
        expect(cutTail(text, budget)).toEqual(cutTailByUnits(text, budget));
      }),
      { numRuns: 3000 },
    );
  });

  it('never exceed the budget, never split a pair, and report exact bytes', () => {
    fc.assert(
      fc.property(textArb, fc.nat({ max: 3000 }), (text, budget) => {
        const head = cutHead(text, budget);
        expect(head.bytes).toBeLessThanOrEqual(budget);
        expect(head.bytes).toBe(utf8ByteLength(text.slice(0, head.index)));
        expect(splitsPair(text, head.index)).toBe(false);
        const tail = cutTail(text, budget);
        expect(tail.bytes).toBeLessThanOrEqual(budget);
        expect(tail.bytes).toBe(utf8ByteLength(text.slice(tail.index)));
        expect(splitsPair(text, tail.index)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it('take as much as fits when no line break is near (at most 3 bytes short of the budget)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 500 }).filter((s) => !s.includes('\n')), fc.nat({ max: 1500 }), (text, budget) => {
        const total = utf8ByteLength(text);
        const head = cutHead(text, budget);
        const tail = cutTail(text, budget);
        expect(head.bytes).toBeGreaterThanOrEqual(Math.min(total, budget - 3));
        expect(tail.bytes).toBeGreaterThanOrEqual(Math.min(total, budget - 3));
      }),
    );
  });

  it('move back to a line break within the window, and no further', () => {
    const line = `${'x'.repeat(99)}\n`; // 100 bytes per line
    const text = line.repeat(50);
    expect(cutHead(text, 1050)).toEqual({ index: 1000, bytes: 1000 }); // 50 bytes back to the break
    expect(cutTail(text, 1050)).toEqual({ index: 4000, bytes: 1000 }); // starts at a line
    const long = `${'y'.repeat(2000)}\n${'z'.repeat(2000)}`;
    // The only break is ~1000 bytes from the cut, far outside the window: cut mid-line.
    expect(cutHead(long, 1000).bytes).toBe(1000);
    expect(cutTail(long, 1000).bytes).toBe(1000);
    // The window is LINE_WINDOW_BYTES (256) even for large budgets.
    const wide = `${'c'.repeat(5000)}\n${'b'.repeat(600)}`;
    expect(cutHead(wide, 5000 + 1 + LINE_WINDOW_BYTES)).toEqual({ index: 5001, bytes: 5001 });
    expect(cutHead(wide, 5000 + 1 + LINE_WINDOW_BYTES + 1).bytes).toBe(5000 + 1 + LINE_WINDOW_BYTES + 1);
  });

  it('treat a lone surrogate as the 3 bytes of U+FFFD it will be written as', () => {
    expect(cutHead('\uD800abc', 3)).toEqual({ index: 1, bytes: 3 });
    expect(cutHead('😀abc', 3)).toEqual({ index: 0, bytes: 0 });
    expect(cutTail('abc\uDC00', 3)).toEqual({ index: 3, bytes: 3 });
    expect(cutTail('abc😀', 3)).toEqual({ index: 5, bytes: 0 });
  });

  it('give the same cut on a buffer holding only budget + 2 code units from the right end', () => {
    fc.assert(
      fc.property(textArb, fc.nat({ max: 1200 }), (text, budget) => {
        const headBuffer = text.slice(0, budget + 2);
        const tailBuffer = text.slice(Math.max(0, text.length - budget - 2));
        expect(cutHead(headBuffer, budget)).toEqual(cutHead(text, budget));
        const whole = cutTail(text, budget);
        const part = cutTail(tailBuffer, budget);
        expect(text.length - whole.index).toBe(tailBuffer.length - part.index);
        expect(part.bytes).toBe(whole.bytes);
      }),
      { numRuns: 500 },
    );
  });
});

describe('composeReplacement', () => {
  const compose = (text: string, cap: number, previewLimit = Number.POSITIVE_INFINITY) =>
    composeReplacement({ head: text, tail: text, totalBytes: utf8ByteLength(text) }, cap, previewLimit, notice);

  it('is never over the cap, shows a prefix and a suffix, and states exactly the bytes not shown', () => {
    fc.assert(
      fc.property(textArb, fc.nat({ max: 1500 }), fc.option(fc.nat({ max: 800 }), { nil: undefined }), (text, cap, limit) => {
        const total = utf8ByteLength(text);
        fc.pre(total > cap);
        const out = compose(text, cap, limit);
        if (out === undefined) {
          expect(utf8ByteLength(notice(total))).toBeGreaterThan(cap);
          return;
        }
        expect(utf8ByteLength(out.text)).toBeLessThanOrEqual(cap);
        expect(out.omittedBytes).toBe(total - out.shownBytes);
        expect(out.text.endsWith(notice(out.omittedBytes))).toBe(true);
        if (out.shownBytes === 0) {
          expect(out.text).toBe(notice(total));
          return;
        }
        const preview = out.text.slice(0, out.text.length - notice(out.omittedBytes).length - PREVIEW_SEPARATOR.length);
        if (limit !== undefined) expect(utf8ByteLength(preview)).toBeLessThanOrEqual(limit);
        const marker = previewMarker(out.omittedBytes);
        const at = preview.lastIndexOf(marker);
        expect(at).toBeGreaterThanOrEqual(0);
        const head = preview.slice(0, at);
        const tail = preview.slice(at + marker.length);
        expect(text.startsWith(head)).toBe(true);
        expect(text.endsWith(tail)).toBe(true);
        expect(utf8ByteLength(head) + utf8ByteLength(tail)).toBe(out.shownBytes);
        expect(splitsPair(text, head.length)).toBe(false);
        expect(splitsPair(text, text.length - tail.length)).toBe(false);
      }),
      { numRuns: 1000 },
    );
  });

  it('fills the cap exactly for single-byte text without line breaks', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 120, max: 4000 }).chain((cap) => fc.tuple(fc.constant(cap), fc.string({ unit: fc.constantFrom('a', 'b', ' '), minLength: cap + 1, maxLength: cap * 3 }))),
        ([cap, text]) => {
        const out = compose(text, cap);
        expect(out).toBeDefined();
        if (out !== undefined && out.shownBytes > 0) expect(utf8ByteLength(out.text)).toBe(cap);
        },
      ),
    );
  });

  it('gives the digits saved when N gets shorter back to the preview (10 000 → 9 9xx)', () => {
    const text = 'a'.repeat(10_050);
    const out = compose(text, 200);
    expect(out).toBeDefined();
    // N has four digits although the total has five, and the cap is still filled exactly.
    expect(String(out?.omittedBytes).length).toBe(4);
    expect(utf8ByteLength(out?.text ?? '')).toBe(200);
  });

  it('answers the notice alone when no preview fits, and undefined when the notice does not fit', () => {
    const text = 'a'.repeat(1000);
    const alone = notice(1000);
    const bytes = utf8ByteLength(alone);
    expect(compose(text, bytes)).toEqual({ text: alone, shownBytes: 0, omittedBytes: 1000 });
    expect(compose(text, bytes - 1)).toBeUndefined();
    expect(compose(text, 500, 0)).toEqual({ text: alone, shownBytes: 0, omittedBytes: 1000 });
  });

  it('lays the preview out as head, marker, tail, blank line, notice', () => {
    const text = Array.from({ length: 100 }, (_, i) => `line ${String(i)}`).join('\n');
    const out = compose(text, 260);
    expect(out?.text).toBe(
      `line 0\nline 1\nline 2\nline 3\nline 4\nline 5\nline 6\nline 7\nline 8\nline 9\n${previewMarker(648)}line 91\nline 92\nline 93\nline 94\nline 95\nline 96\nline 97\nline 98\nline 99\n\n${notice(648)}`,
    );
  });
});
