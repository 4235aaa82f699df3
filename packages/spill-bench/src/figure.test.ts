import { describe, expect, it } from 'vitest';
import { evaluateTarget, ratioAtLeast, ratioAtMost, skipFigure, summarizeFigure, valueAtMost, type FigureSpec } from './figure.js';

const spec: FigureSpec = { id: 't', title: 'test figure', baseline: 'b', unit: 'ms', target: ratioAtMost(1.5) };

describe('evaluateTarget', () => {
  it('holds a cost ratio at or under its limit and misses above it', () => {
    expect(evaluateTarget(ratioAtMost(1.5), 1.5, 0)).toBe(true);
    expect(evaluateTarget(ratioAtMost(1.5), 1.51, 0)).toBe(false);
  });

  it('holds a throughput ratio at or over its limit and misses below it', () => {
    expect(evaluateTarget(ratioAtLeast(0.8), 0.8, 0)).toBe(true);
    expect(evaluateTarget(ratioAtLeast(0.8), 0.79, 0)).toBe(false);
  });

  it('judges an absolute target on spillway’s value, not on the ratio', () => {
    const cap = valueAtMost(64 * 1024 * 1024);
    expect(evaluateTarget(cap, 50, 10 * 1024 * 1024)).toBe(true);
    expect(evaluateTarget(cap, 0.1, 65 * 1024 * 1024)).toBe(false);
  });

  it('never holds on a value that is not a number (a process that died, say)', () => {
    expect(evaluateTarget(valueAtMost(10), 1, Number.NaN)).toBe(false);
    expect(evaluateTarget(ratioAtLeast(0.8), Number.POSITIVE_INFINITY, 1)).toBe(false);
  });
});

describe('summarizeFigure', () => {
  it('reports each side’s median and the median of the per-round ratios', () => {
    const figure = summarizeFigure(spec, { spillway: [2, 4, 100], baseline: [1, 2, 10] });
    expect(figure.spillwayValue).toBe(4);
    expect(figure.baselineValue).toBe(2);
    // Per-round ratios 2, 2, 10: a round where the machine stalled does not move the median.
    expect(figure.ratio).toBe(2);
    expect(figure.holds).toBe(false);
    expect(figure.samples).toEqual({ spillway: [2, 4, 100], baseline: [1, 2, 10] });
  });

  it('marks a figure that meets its target as holding and keeps its notes', () => {
    const figure = summarizeFigure(spec, { spillway: [1.2, 1.3], baseline: [1, 1], notes: ['checked'] });
    expect(figure.holds).toBe(true);
    expect(figure.notes).toEqual(['checked']);
  });

  it('refuses unpaired samples rather than computing a meaningless ratio', () => {
    expect(() => summarizeFigure(spec, { spillway: [1, 2], baseline: [1] })).toThrow(RangeError);
  });
});

describe('skipFigure', () => {
  it('keeps the spec and the reason', () => {
    expect(skipFigure(spec, 'package missing')).toEqual({ ...spec, status: 'skipped', reason: 'package missing' });
  });
});
