/** A needle the "model" later greps for; it appears exactly once in the fetched page. */
export const NEEDLE = 'ORDER-7F3A-99C1';

/** The line of the fetched page that holds {@link NEEDLE}. */
export const NEEDLE_LINE = 31_337;

const WORDS = [
  'spill', 'context', 'window', 'agent', 'tool', 'result', 'preview', 'notice', 'backend', 'stream',
  'latency', 'token', 'budget', 'retrieval', 'offset', 'limit', 'grep', 'session', 'artifact', 'root',
  'policy', 'cap', 'head', 'tail', 'bytes', 'model', 'harness', 'history', 'summary', 'cache',
] as const;

/** A small deterministic PRNG (mulberry32), so every run shows the same page. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A `web_fetch`-like result: a long documentation page rendered to text, `lines` lines of
 * about 100 bytes (45 000 lines, 4.4 MB), with {@link NEEDLE} on line {@link NEEDLE_LINE}.
 */
export function fetchedPage(lines = 45_000): string {
  const random = prng(20_240_229);
  const parts: string[] = ['# Spillway Handbook (mirror) — https://docs.example.test/handbook\n'];
  for (let n = 2; n <= lines; n++) {
    if (n === NEEDLE_LINE) {
      parts.push(`  Note: the support ticket for this section is ${NEEDLE}; quote it when you reply.\n`);
      continue;
    }
    if (n % 500 === 2) {
      parts.push(`## Section ${String((n - 2) / 500 + 1)}\n`);
      continue;
    }
    const words: string[] = [];
    for (let w = 0; w < 13; w++) words.push(WORDS[Math.floor(random() * WORDS.length)] ?? 'spill');
    parts.push(`  ${String(n).padStart(5, '0')}. ${words.join(' ')}.\n`);
  }
  return parts.join('');
}

/** A short result that fits under any sensible cap. */
export function searchResults(): string {
  return [
    '1. Spillway Handbook — https://docs.example.test/handbook',
    '2. Keeping tool output out of the context window — https://blog.example.test/spill',
    '3. Head/tail previews in practice — https://notes.example.test/preview',
  ].join('\n');
}

/** A source file the model `read`s: larger than the cap, but `read` is never spilled. */
export function sourceFile(lines = 1_200): string {
  const parts: string[] = [];
  for (let n = 1; n <= lines; n++) parts.push(`export const value${String(n)} = ${String(n * 7)}; // generated line ${String(n)}\n`);
  return parts.join('');
}
