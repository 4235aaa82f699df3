import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { setupCapFor } from './audit.js';
import type { TranscriptFormat } from './transcript.js';

// The docs list the cap an audit measures by default for each host; setupCapFor is the truth.

const read = (path: string): string => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');
const NAMES: Record<Exclude<TranscriptFormat, 'generic'>, string> = { 'claude-code': 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', opencode: 'OpenCode' };
const truth = Object.fromEntries(Object.entries(NAMES).map(([format, name]) => [name, setupCapFor(format as TranscriptFormat)]));

/** The `N for Host` (README) or `N (Host)` (docs) pairs of a list, as `{Host: N}`. */
function caps(list: string, pair: RegExp): Record<string, number> {
  return Object.fromEntries([...list.replace(/\s+/g, ' ').matchAll(pair)].map((m) => [m[2] ?? '', Number(m[1])]));
}

/** The text after `start`, to the first `end`. */
function after(text: string, start: string, end: string): string {
  const at = text.indexOf(start);
  expect(at, `no '${start}'`).toBeGreaterThanOrEqual(0);
  return text.slice(at + start.length).split(end)[0] ?? '';
}

describe("the docs' default caps", () => {
  it("the package README's Spill at a cap lists setup's cap for every host, and the generic default", () => {
    const list = after(read('../README.md').replace(/\s+/g, ' '), "default the one `spillway setup` writes:", ';');
    expect(caps(list, /(\d+) for ([A-Z][A-Za-z]*(?: CLI| Code)?)/g)).toEqual(truth);
    expect(after(read('../README.md').replace(/\s+/g, ' '), 'which no setup configures, ', ',')).toBe(String(setupCapFor('generic')));
  });

  it('docs/audit.md and docs/cli.md list the same, and the generic default', () => {
    for (const [doc, start, end] of [['../../../docs/audit.md', 'what `spillway setup` writes:', ';'], ['../../../docs/cli.md', 'setup writes for a host:', '))']] as const) {
      const text = read(doc).replace(/\s+/g, ' ');
      expect(caps(`${after(text, start, end)})`, /(\d+) \(([^)]+)\)/g), doc).toEqual(truth);
    }
    expect(after(read('../../../docs/audit.md'), '(OpenCode); generic: ', ',')).toBe(String(setupCapFor('generic')));
    expect(after(read('../../../docs/cli.md').replace(/\s+/g, ' '), 'the audit measures ', ' bytes there')).toBe(String(setupCapFor('generic')));
  });
});
