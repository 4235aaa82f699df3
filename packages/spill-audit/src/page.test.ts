import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { barChart, columnChart, escapeHtml, figure, htmlPage, timelineChart } from './page.js';

const marks = (svg: string | undefined): number => (svg ?? '').split('class="mark"').length - 1;

/** The values of a chart's geometry attributes that are not finite numbers (a label or note may well read `NaN`). */
const badGeometry = (svg: string | undefined): string[] =>
  [...(svg ?? '').matchAll(/\s(x|y|x1|x2|y1|y2|cx|cy|r|width|height)="([^"]*)"/g)].map((m) => `${m[1] ?? ''}="${m[2] ?? ''}"`).filter((a) => !Number.isFinite(Number(a.slice(a.indexOf('"') + 1, -1))));

/** Markup with every tag and entity taken out: what a hostile label could still inject. */
const textOnly = (html: string): string => html.replace(/<[^<>]*>/g, '').replace(/&#\d+;/g, '');

describe('escapeHtml', () => {
  it('leaves no character that can open a tag, an attribute or an entity', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const escaped = escapeHtml(text);
        expect(escaped).not.toMatch(/[<>"']/);
        expect(escaped.replace(/&#\d+;/g, '')).not.toContain('&');
        const back = escaped.replace(/&#(\d+);/g, (_m, code: string) => String.fromCharCode(Number(code)));
        expect(back).toBe(text);
      }),
    );
  });
});

describe('charts', () => {
  const bar = fc.record({ label: fc.string({ maxLength: 40 }), value: fc.nat({ max: 1e9 }) });

  it('draw one mark per bar with a value, and escape every label', () => {
    fc.assert(
      fc.property(fc.array(bar, { minLength: 1, maxLength: 15 }), (bars) => {
        const positive = bars.filter((b) => b.value > 0).length;
        for (const chart of [barChart('b', 'bars', bars), columnChart('c', 'columns', bars, 'axis')]) {
          if (positive === 0) {
            expect(chart).toBeUndefined();
            continue;
          }
          expect(chart).toMatch(/^<svg [^>]*class="chart"/);
          // The horizontal chart draws a sliver for a 0 among others; the columns skip it.
          expect(marks(chart)).toBe(chart?.includes('data-chart="b"') === true ? bars.length : positive);
          expect(textOnly(chart ?? '')).not.toMatch(/[<>]/);
        }
      }),
    );
  });

  it('draw a timeline dot per point on a lane per session', () => {
    const lane = fc.record({
      label: fc.string({ maxLength: 30 }),
      points: fc.array(fc.record({ t: fc.integer({ min: 0, max: 4e12 }), value: fc.nat({ max: 1e7 }), note: fc.string({ maxLength: 20 }) }), { maxLength: 8 }),
    });
    fc.assert(
      fc.property(fc.array(lane, { minLength: 1, maxLength: 6 }), (lanes) => {
        const points = lanes.reduce((n, l) => n + l.points.length, 0);
        const chart = timelineChart('t', 'timeline', lanes);
        if (points === 0) {
          expect(chart).toBeUndefined();
          return;
        }
        expect(marks(chart)).toBe(points);
        expect(chart).toMatch(/\scx="/);
        expect(badGeometry(chart)).toEqual([]);
        expect(textOnly(chart ?? '')).not.toMatch(/[<>]/);
      }),
    );
  });

  it('an empty chart becomes a line saying so, a page escapes its title', () => {
    expect(figure('Sizes', undefined)).toBe('<p class="empty">Sizes: no data.</p>');
    const page = htmlPage('<b>x</b>', '<p>body</p>');
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<title>&#60;b&#62;x&#60;/b&#62;</title>');
    expect(page).not.toMatch(/<script|<link|src=|href=|url\(|@import/i);
  });
});
