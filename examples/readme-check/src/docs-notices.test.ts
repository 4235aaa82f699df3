import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseSpillNotice } from '@spillway/core/notice';
import { createLocalBackend, type LocalBackend } from '@spillway/local';
import { createSpillPolicy } from '@spillway/policy';
import { withSurfaceDefaults } from '@spillway/tools';
import { expandElisions } from '@spillway/test-support/elisions';

// The previews and notices the docs show are what the code writes: each is made again here
// through the public API, with the options the page names, and compared. A page may leave
// out a run of numbered lines (a line `…`, read by expandElisions) and shorten a locator's
// hex names (`session-3f9c…`); nothing else differs.

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const read = (file: string): string => fs.readFileSync(path.join(REPO, file), 'utf8');
const OPENING = '(Omitted ';

/** The ```text blocks of a Markdown text that hold a notice. */
function noticeBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/```text\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').filter((b) => b.includes(OPENING));
}

let root: string;
let backend: LocalBackend;
beforeAll(() => {
  // As long as the docs' `/home/me/.local/state/spillway`, so that the notice, and the
  // preview cut to fit beside it, come out as long as the page's.
  root = fs.mkdtempSync('/tmp/spillway-docs-state');
  if (root.length !== '/home/me/.local/state/spillway'.length) throw new Error(`cannot make a directory as long as the docs' root under /tmp: ${root}`);
  backend = createLocalBackend({ root });
});
afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true });
});

/** The text of a result's one text block, or '' when it has none. */
function textOf(content: readonly { readonly type: string; readonly text?: unknown }[]): string {
  const text = content.length === 1 ? content[0]?.text : undefined;
  return typeof text === 'string' ? text : '';
}

/** The session and artifact names of a local locator under `root`. */
function localLocatorParts(locator: string, tool: string): { session: string; id: string } {
  const m = new RegExp(`^${root}/session-([0-9a-f]{32})/([0-9a-f]{20})-${tool}\\.txt$`).exec(locator);
  if (m === null) throw new Error(`not a local locator under ${root}: ${locator}`);
  return { session: m[1] ?? '', id: m[2] ?? '' };
}

describe('the notices the docs show', () => {
  it('docs/mcp.md: what the model sees is what the proxy\'s policy answers for the call it describes', async () => {
    const [shown, ...more] = noticeBlocks(read('docs/mcp.md'));
    expect(more).toEqual([]);
    // "A call of read_text_file on a 1.3 MB file, with --max-inline-bytes 2000": the file
    // holds the numbers 1 to 200000, a line each; the proxy offers spill_search by default.
    expect(read('docs/mcp.md')).toContain('A call of `read_text_file` on a 1.3 MB file, with `--max-inline-bytes 2000`:');
    const text = `${Array.from({ length: 200_000 }, (_, i) => String(i + 1)).join('\n')}\n`;
    const policy = createSpillPolicy({ backend, maxInlineBytes: 2000, ...withSurfaceDefaults({}, { search: true, wrapsHarnessTools: false }) });
    const out = await policy.applyToResult({ toolName: 'read_text_file', callId: 'call-1', sessionId: 'mcp-docs' }, { content: [{ type: 'text', text }] });
    const actual = textOf(out.content);
    const notice = parseSpillNotice(actual);
    expect(notice).toBeDefined();
    const real = localLocatorParts(notice?.locator ?? '', 'read_text_file');
    const docLocator = /\/home\/me\/\.local\/state\/spillway\/session-([0-9a-f]{32})\/([0-9a-f]{20})-read_text_file\.txt/.exec(shown ?? '');
    expect(docLocator).not.toBeNull();
    const asShown = actual
      .replace(`${root}/session-${real.session}/${real.id}-`, `/home/me/.local/state/spillway/session-${docLocator?.[1] ?? ''}/${docLocator?.[2] ?? ''}-`);
    expect(expandElisions(shown ?? '')).toBe(`${asShown}\n`);
  });

  it.each(['docs/architecture.md', 'docs/retention.md'])('%s: the notice is the local backend\'s, as the policy writes it', async (page) => {
    const [shown, ...more] = noticeBlocks(read(page));
    expect(more).toEqual([]);
    const docNotice = parseSpillNotice(shown ?? '');
    expect(docNotice).toBeDefined();
    // The page names no cap or size: the command line's 32 KiB, and a result as large as
    // makes the notice's count the page's.
    const policy = createSpillPolicy({ backend, maxInlineBytes: 32 * 1024 });
    const run = async (bytes: number): Promise<string> => {
      const out = await policy.applyToResult({ toolName: 'web_fetch', callId: `call-${String(bytes)}`, sessionId: 'docs' }, { content: [{ type: 'text', text: 'x'.repeat(bytes) }] });
      return textOf(out.content);
    };
    const wanted = docNotice?.omittedBytes ?? 0;
    const first = parseSpillNotice(await run(wanted));
    const actual = await run(wanted + (wanted - (first?.omittedBytes ?? 0)));
    const notice = parseSpillNotice(actual);
    expect(notice?.omittedBytes).toBe(wanted);
    const real = localLocatorParts(notice?.locator ?? '', 'web_fetch');
    // The page shortens the hex names to their first four digits and `…`.
    const docShort = /\/home\/u\/\.local\/state\/spillway\/session-([0-9a-f]{4})…\/([0-9a-f]{4})…-web_fetch\.txt/.exec(shown ?? '');
    expect(docShort).not.toBeNull();
    const asShown = actual
      .slice(actual.lastIndexOf(OPENING))
      .replace(`${root}/session-${real.session}/${real.id}-`, `/home/u/.local/state/spillway/session-${docShort?.[1] ?? ''}…/${docShort?.[2] ?? ''}…-`);
    expect(shown).toBe(`${asShown}\n`);
  });
});
