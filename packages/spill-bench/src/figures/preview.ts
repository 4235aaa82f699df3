import { ratioAtLeast, ratioAtMost, type FigureSpec } from '../figure.js';
import type { FigureGroup } from '../group.js';
import { corpusLogText, LIST_CORPUS_DIR, lostCases, loadCorpus, scoreCase, sumScores, type CorpusCase, type PartScore } from '../preview-corpus.js';
import type { Profile } from '../profile.js';
import { formatBytes } from '../sizes.js';

const KiB = 1024;
/** Code units per piece the cost figure feeds: what `spillway run` reads back at a time. */
const PIECE_UNITS = 64 * KiB;
/** The caps the corpus figures report. */
export const PREVIEW_CAPS: readonly number[] = [2 * KiB, 8 * KiB, 32 * KiB];
const PARTS = [
  { id: 'tuned', heldOut: false, words: 'tuned part' },
  { id: 'heldout', heldOut: true, words: 'held-out part' },
] as const;

function specs(profile: Profile): FigureSpec[] {
  const out: FigureSpec[] = [];
  for (const part of PARTS) {
    for (const cap of PREVIEW_CAPS) {
      out.push({
        id: `preview.needles.${formatBytes(cap).replace(' ', '')}.${part.id}`,
        title: `preview at ${formatBytes(cap)}, corpus ${part.words}: failure outputs with every needle kept`,
        baseline: 'the plain head and tail (preview: head-tail)',
        unit: 'count',
        target: ratioAtLeast(1),
      });
    }
  }
  for (const part of PARTS) {
    for (const cap of PREVIEW_CAPS) {
      out.push({
        id: `preview.lists.${formatBytes(cap).replace(' ', '')}.${part.id}`,
        title: `preview at ${formatBytes(cap)}, list corpus ${part.words}: items to pick kept`,
        baseline: 'a plain head of the same size',
        unit: 'count',
        target: ratioAtLeast(1),
      });
    }
  }
  out.push({
    id: 'preview.cost',
    title: `the preview of a ${formatBytes(profile.previewCostBytes)} log in 64 KiB pieces (scan and compose)`,
    baseline: 'counting the newlines of the same pieces (indexOf)',
    unit: 'ms',
    target: ratioAtMost(1.5),
  });
  out.push({
    id: 'preview.cost.log',
    title: `the preview of ${formatBytes(profile.previewCostBytes)} of real log text in 64 KiB pieces (scan and compose)`,
    baseline: 'counting the newlines of the same pieces (indexOf)',
    unit: 'ms',
    target: ratioAtMost(1.5),
  });
  return out;
}

/** A server log: `lines` info records with one error record two thirds of the way in. */
function serverLog(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line =
      i === 400_000
        ? `2026-12-01T10:00:00.000Z ERROR worker-3 job ${String(i)} failed: connection reset by peer (pool.ts:88)\n`
        : `2026-12-01T10:00:00.000Z INFO  worker-${String(i % 8)} GET /api/items/${String(i)} 200 ${String(i % 97)}ms user=u${String(i % 5000)}\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join('').slice(0, bytes);
}

interface CostRuns {
  readonly spillway: number[];
  readonly baseline: number[];
  readonly newlines: number;
  /** The last preview. */
  readonly shown: string;
}

/**
 * `bytes` in 64 KiB pieces, each decoded as `spillway run` decodes what it reads (a stream
 * decoder, so a character cut between pieces is whole in the next): a piece's string holds
 * one byte a character wherever it can. Slices of one decoded string would all hold two once
 * the text has one character past U+00FF, which costs the prefilter's UTF-8 encoding about
 * three times as much as a run pays.
 */
function decodedPieces(bytes: Buffer): string[] {
  const decoder = new TextDecoder();
  const pieces: string[] = [];
  for (let i = 0; i < bytes.length; i += PIECE_UNITS) pieces.push(decoder.decode(bytes.subarray(i, i + PIECE_UNITS), { stream: true }));
  pieces.push(decoder.decode());
  return pieces.filter((p) => p.length > 0);
}

/** `rounds` of counting the line breaks of `text`'s 64 KiB pieces, then scanning them and composing an 8 KiB preview. */
function costOf(rounds: number, text: string, policy: Pick<typeof import('@spillway/policy'), 'createSpillPreviewScanner' | 'composeSpillPreview'>): CostRuns {
  const pieces = decodedPieces(Buffer.from(text));
  const totalBytes = Buffer.byteLength(text);
  const cap = 8 * KiB;
  const spillway: number[] = [];
  const baseline: number[] = [];
  let newlines = 0;
  let shown = '';
  for (let round = 0; round < rounds; round++) {
    const t0 = performance.now();
    let n = 0;
    for (const piece of pieces) for (let at = piece.indexOf('\n'); at >= 0; at = piece.indexOf('\n', at + 1)) n++;
    const t1 = performance.now();
    const scanner = policy.createSpillPreviewScanner(cap);
    for (const piece of pieces) scanner.push(piece);
    const preview = policy.composeSpillPreview({ head: text, tail: text, totalBytes, maxInlineBytes: cap, locator: 'spill://bench/preview-cost', retrievalHint: 'read it back', scan: scanner.finish() });
    const t2 = performance.now();
    shown = preview?.text ?? '';
    newlines = n;
    baseline.push(t1 - t0);
    spillway.push(t2 - t1);
  }
  return { spillway, baseline, newlines, shown };
}

/**
 * Figures 11: how many failure outputs of the corpus (real outputs of real tools, with the
 * lines a person needs written down before any tuning) keep every needle in the preview, the
 * new preview against the plain head and tail, at three caps, for the tuned and the held-out
 * parts; and what the preview of a large output costs next to counting its lines.
 */
export const previewGroup: FigureGroup = {
  name: 'preview',
  specs,
  async run(ctx) {
    const { createSpillPolicy, composeSpillPreview, createSpillPreviewScanner } = await import('@spillway/policy');
    const { createMemoryBackend } = await import('@spillway/memory');
    const corpus = await loadCorpus();
    const exec = { toolName: 'bash', callId: 'call-1', sessionId: 'bench-session' };
    const previewOf = async (c: CorpusCase, cap: number, preview: 'salient' | 'head-tail'): Promise<string> => {
      const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: cap, preview });
      const out = await policy.applyToResult(exec, { content: [{ type: 'text', text: c.text }] });
      return out.content.map((b) => (b.type === 'text' ? String(b.text) : '')).join('');
    };
    for (const cap of PREVIEW_CAPS) {
      let streamMismatches = 0;
      // One answer everywhere: the stream, in 4 KiB chunks, shows what apply shows.
      for (const c of corpus) {
        const policy = createSpillPolicy({ backend: createMemoryBackend(), maxInlineBytes: cap });
        const whole = await policy.applyToResult(exec, { content: [{ type: 'text', text: c.text }] });
        const stream = policy.stream(exec);
        for (let i = 0; i < c.text.length; i += 4096) await stream.push(c.text.slice(i, i + 4096));
        const streamed = await stream.finish();
        const strip = (t: unknown): string => String(t).replace(/spill\+memory:\/\/\S+\./, '<locator>.');
        if (strip((whole.content[0] as { text: string }).text) !== strip((streamed.content[0] as { text: string }).text)) streamMismatches++;
      }
      for (const part of PARTS) {
        const cases = corpus.filter((c) => c.heldOut === part.heldOut && c.kind !== 'lookup');
        const score = async (preview: 'salient' | 'head-tail'): Promise<PartScore> => {
          const scores = [];
          for (const c of cases) scores.push(scoreCase(c, await previewOf(c, cap, preview)));
          return sumScores(cases, scores);
        };
        const newer = await score('salient');
        const older = await score('head-tail');
        const lost = lostCases(newer, older);
        const id = `preview.needles.${formatBytes(cap).replace(' ', '')}.${part.id}`;
        ctx.log(`${id}: ${String(newer.casesKept)}/${String(newer.cases)} against ${String(older.casesKept)}`);
        const share = newer.cases === 0 ? 0 : (100 * newer.casesKept) / newer.cases;
        ctx.record(id, {
          spillway: [newer.casesKept],
          baseline: [older.casesKept],
          notes: [
            `every needle kept in ${String(newer.casesKept)} of ${String(newer.cases)} failure outputs (${share.toFixed(0)}%), head and tail ${String(older.casesKept)}`,
            `needles kept (failures and JSON): ${String(newer.needlesKept)} of ${String(newer.needles)}, head and tail ${String(older.needlesKept)}`,
            `cases head and tail kept that the new preview lost: ${lost.length === 0 ? 'none' : lost.join(', ')}`,
            `stream (4 KiB chunks) differing from apply, over the whole corpus at this cap: ${String(streamMismatches)}`,
          ],
        });
      }
    }

    // Figures 11b: the list corpus, needles (items a later step picks) kept by the preview
    // against a plain head of the same size, head and tail, and the preview before lists.
    const lists = await loadCorpus(LIST_CORPUS_DIR);
    for (const cap of PREVIEW_CAPS) {
      for (const part of PARTS) {
        const cases = lists.filter((c) => c.heldOut === part.heldOut);
        let newer = 0;
        let head = 0;
        let headTail = 0;
        let needles = 0;
        for (const c of cases) {
          const shown = await previewOf(c, cap, 'salient');
          const size = Buffer.byteLength(shown.slice(0, shown.lastIndexOf('\n\n(Omitted ')));
          const plain = Buffer.from(c.text).subarray(0, size).toString('utf8');
          newer += scoreCase(c, shown).kept;
          head += scoreCase(c, plain).kept;
          headTail += scoreCase(c, await previewOf(c, cap, 'head-tail')).kept;
          needles += c.needles.length;
        }
        const id = `preview.lists.${formatBytes(cap).replace(' ', '')}.${part.id}`;
        ctx.log(`${id}: ${String(newer)}/${String(needles)} against a plain head's ${String(head)}`);
        ctx.record(id, {
          spillway: [newer],
          baseline: [head],
          notes: [`items kept: ${String(newer)} of ${String(needles)} over ${String(cases.length)} outputs; plain head ${String(head)}, head and tail ${String(headTail)}`],
        });
      }
    }

    // The cost: a scan and a compose against the least any reader of the same pieces does,
    // finding their line breaks. First a server log whose one error line lies among
    // uniform records (the scan's prefilter passes over almost every line), then real log
    // text (the corpus's outputs repeated), whose every line the scan classifies.
    const serverText = serverLog(ctx.profile.previewCostBytes);
    const server = costOf(ctx.profile.previewCostRounds, serverText, { createSpillPreviewScanner, composeSpillPreview });
    const where = serverText.includes('connection reset by peer') ? `the error line in the middle was ${server.shown.includes('connection reset by peer') ? '' : 'NOT '}in the preview` : 'the log is too short to hold the error line';
    ctx.record('preview.cost', { spillway: server.spillway, baseline: server.baseline, notes: [where, `${String(server.newlines)} lines`] });
    const logText = (await corpusLogText(ctx.profile.previewCostBytes)).toString('utf8');
    const log = costOf(ctx.profile.previewCostRounds, logText, { createSpillPreviewScanner, composeSpillPreview });
    ctx.record('preview.cost.log', { spillway: log.spillway, baseline: log.baseline, notes: [`${String(log.newlines)} lines of the preview corpus's outputs, repeated`] });
  },
};
