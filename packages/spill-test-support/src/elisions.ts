// The one rule by which the docs shorten a run of numbered lines, so that every test that
// compares a page's output with the real one reads a `…` line the same way.

/** A line cut at its digit runs: the text around the numbers, and the numbers. */
function numbered(line: string): { texts: string[]; numbers: number[] } | undefined {
  const parts = line.split(/(\d+)/);
  const texts = parts.filter((_, k) => k % 2 === 0);
  const runs = parts.filter((_, k) => k % 2 === 1);
  // A run with a leading zero would not be written back as shown.
  if (runs.length === 0 || runs.some((r) => String(Number(r)) !== r)) return undefined;
  return { texts, numbers: runs.map(Number) };
}

/**
 * `shown` with every line `…` that stands between two numbered lines replaced by the lines
 * it leaves out. The two lines must read alike but for their numbers, each of which grows
 * by the same step from the one to the other (`7` … `10`, or `42420:42420` … `42429:42429`);
 * the left-out lines count up between them. Any other `…` line is an error, so that an
 * elision never hides text that may differ.
 */
export function expandElisions(shown: string): string {
  const lines = shown.split('\n');
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (line !== '…') {
      out.push(line);
      return;
    }
    const before = numbered(lines[i - 1] ?? '');
    const after = numbered(lines[i + 1] ?? '');
    const step = (after?.numbers[0] ?? 0) - (before?.numbers[0] ?? 0);
    const alike =
      before !== undefined &&
      after !== undefined &&
      step > 1 &&
      before.texts.join('\0') === after.texts.join('\0') &&
      before.numbers.every((n, k) => after.numbers[k] === n + step);
    if (!alike) throw new Error(`line ${String(i + 1)}: \`…\` stands only between two numbered lines that differ by more than one`);
    for (let s = 1; s < step; s++) {
      out.push(before.texts.map((text, k) => (k < before.numbers.length ? `${text}${String((before.numbers[k] ?? 0) + s)}` : text)).join(''));
    }
  });
  return out.join('\n');
}
