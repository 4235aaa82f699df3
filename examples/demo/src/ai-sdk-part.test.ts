import { describe, expect, it } from 'vitest';
import { aiSdkPart, type AiSdkSummary, type DemoPrinter } from './ai-sdk-part.js';
import { NEEDLE_LINE } from './data.js';

// The demo's AI SDK part on its own: each step does what its label says.
describe('pnpm demo, the AI SDK part', () => {
  const CAP = 2048;
  let output = '';
  let summary: AiSdkSummary;
  const printer: DemoPrinter = {
    title: (t) => (output += `== ${t}\n`),
    step: (n, t) => (output += `[${String(n)}] ${t}\n`),
    note: (t) => (output += `${t}\n`),
    model: (t) => (output += `model sees:\n${t}\n`),
  };

  it('runs a generateText loop to the end', async () => {
    summary = await aiSdkPart(printer, CAP);
    for (const label of ['[1]', '[2]', '[3]', '[4]', '[5]']) expect(output).toContain(label);
  });

  it('spills the page, the model greps the needle and reads around it, and the steps keep the full page', () => {
    expect(summary.pageBytes).toBeGreaterThan(3_000_000);
    expect(summary.shownBytes).toBeGreaterThan(0);
    expect(summary.shownBytes).toBeLessThanOrEqual(CAP);
    expect(summary.locator).toMatch(/^spill\+memory:\/\//);
    expect(summary.needleLine).toBe(NEEDLE_LINE);
    expect(output).toMatch(new RegExp(`^${String(NEEDLE_LINE)}: `, 'm'));
    expect(summary.fullOutputInSteps).toBe(true);
  });

  it('stores one artifact however often the UI history is converted', () => {
    expect(summary.conversionsAgree).toBe(true);
    expect(summary.artifactsAfterTwoConversions).toBe(1);
  });
});
