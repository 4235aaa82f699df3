import { describe, expect, it } from 'vitest';
import type { AuditReport } from './audit.js';
import { renderAuditHtml } from './html.js';

const report: AuditReport = {
  format: 'claude-code',
  cap: 24576,
  maxNeeded: 0.1,
  files: 1,
  lines: 10,
  skippedLines: 0,
  skipped: [],
  callsWithoutOutput: 0,
  storedOutputs: { read: 0, missing: 0 },
  total: { calls: 2, tokens: 9000, spilled: 1, tokensKeptOut: 6000, overHostLimit: 0, neededLater: 1, neededLaterHeadTail: 1, hostCut: 0, neededLaterHost: 0 },
  sessions: [{ name: 's1', calls: 2, tokens: 9000, spilled: 1, tokensKeptOut: 6000, overHostLimit: 0, neededLater: 1, neededLaterHeadTail: 1, hostCut: 0, neededLaterHost: 0 }],
  tools: [{ name: '<img src=x onerror=alert(1)>', calls: 2, tokens: 9000, spilled: 1, tokensKeptOut: 6000, overHostLimit: 0, neededLater: 1, neededLaterHeadTail: 1, hostCut: 0, neededLaterHost: 0 }],
  servers: [],
  recommendations: [{ scope: 'host', cap: 16384, unproven: null, figures: { cap: 16384, spilled: 1, tokensKeptOut: 6000, neededLater: 0, neededRate: 0, neededRateUpper: 0 }, candidates: [{ cap: 2048, spilled: 1, tokensKeptOut: 8000, neededLater: 1, neededRate: 1, neededRateUpper: 1 }, { cap: 16384, spilled: 1, tokensKeptOut: 6000, neededLater: 0, neededRate: 0, neededRateUpper: 0 }, { cap: 65536, spilled: 0, tokensKeptOut: 0, neededLater: 0, neededRate: 0, neededRateUpper: 0 }] }],
  calls: [],
  examples: [{ session: 's1', tool: 'Bash', bytes: 30000, string: 'secret_value_42' }],
};

describe('renderAuditHtml', () => {
  it('is one page with inline SVG, no script, no outside asset, names escaped', () => {
    const html = renderAuditHtml(report);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
    expect(html).toContain('spillway setup claude-code --max-inline-bytes 16384');
    expect(html).not.toMatch(/<script|<link|src="|url\(/i);
    expect(html).not.toContain('<img');
    expect(html).toContain('&#60;img src=x onerror=alert(1)&#62;');
  });

  it('says why no cap is recommended: none keeps the rate under the limit, or nothing would spill', () => {
    const host = report.recommendations[0];
    if (host === undefined) throw new Error('the sample has a host recommendation');
    const none = { ...host, cap: null, figures: null };
    expect(renderAuditHtml({ ...report, recommendations: [none] })).toContain('No measured cap keeps the needed-later rate at or under 10 % with confidence.');
    const nothing = { ...none, candidates: none.candidates.map((f) => ({ ...f, spilled: 0, tokensKeptOut: 0, neededLater: 0, neededRate: 0, neededRateUpper: 0 })) };
    expect(renderAuditHtml({ ...report, recommendations: [nothing] })).toContain('No output is over the smallest cap measured: nothing would spill.');
  });

  it("adds the host's own preview only when the host stored outputs itself", () => {
    expect(renderAuditHtml(report)).not.toContain("host's own preview");
    const hostCut = { ...report, total: { ...report.total, hostCut: 3, neededLaterHost: 2 } };
    expect(renderAuditHtml(hostCut)).toContain("With the host's own preview (the part it showed of the 3 it stored in files), needed later 2.");
  });

  it('quotes the strings needed later only with examples', () => {
    expect(renderAuditHtml(report)).not.toContain('secret_value_42');
    expect(renderAuditHtml(report, { examples: true })).toContain('<code>secret_value_42</code>');
  });
});
