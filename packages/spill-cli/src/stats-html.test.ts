import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { summarizeUsage, toStored, usageBreakdown } from '@spillway/usage';
import { renderStatsHtml } from './stats-html.js';

/** The page with every tag and entity taken out: what a hostile name could still inject. */
const textOnly = (html: string): string => html.replace(/<style>[^<]*<\/style>/, '').replace(/<[^<>]*>/g, '').replace(/&#\d+;/g, '');

describe('renderStatsHtml', () => {
  it('escapes every name the log holds, and draws a bar per tool up to twelve', () => {
    const name = fc.string({ unit: 'binary', minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(fc.array(fc.record({ host: name, tool: name, session: name, bytes: fc.nat({ max: 5_000_000 }) }), { minLength: 1, maxLength: 20 }), name, (raw, session) => {
        const events = raw.map((e, i) => toStored({ kind: i % 2 === 0 ? 'spilled' : 'passed', surface: 'hook', ...e, artifact: `a${String(i)}`, shownBytes: 100 }, 1_700_000_000_000 + i * 1000));
        const stats = summarizeUsage(events);
        const breakdown = usageBreakdown(events, { serverOf: (tool) => tool.split(':')[1] });
        const page = renderStatsHtml(stats, breakdown, { dir: `/tmp/${session}`, enabled: true, session, skippedLines: 0 });
        expect(textOnly(page)).not.toMatch(/[<>]/);
        expect(page).not.toMatch(/<script|<img|<link|src=|href=|url\(/i);
        const tools = /data-chart="tools"[^]*?<\/svg>/.exec(page)?.[0] ?? '';
        // A chart where nothing was kept out is left out, with a line saying so.
        const drawn = breakdown.tools.slice(0, 12).some((t) => t.tokensKeptOut > 0);
        expect(tools.split('class="mark"').length - 1).toBe(drawn ? Math.min(12, breakdown.tools.length) : 0);
        expect(page.includes('Tokens kept out per tool: no data.')).toBe(!drawn);
      }),
      { numRuns: 60 },
    );
  });

  it('says when there is nothing to draw', () => {
    const page = renderStatsHtml(summarizeUsage([]), usageBreakdown([]), { dir: '/tmp/u', enabled: false, skippedLines: 2 });
    expect(page).toContain('no events yet');
    expect(page).toContain('The usage log is off');
    expect(page).toContain('2 lines of the log are not events');
    expect(page).not.toContain('<svg');
    expect(page.match(/class="empty"/g)?.length).toBe(6);
  });
});
