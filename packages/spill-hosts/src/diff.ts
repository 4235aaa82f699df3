const MAX_CELLS = 4_000_000;

/**
 * A line diff for people (`-` removed, `+` added, two lines of context around each change),
 * enough to show what setup would write. Beyond {@link MAX_CELLS} compared lines the middle
 * is shown as one block removed and one added.
 */
export function lineDiff(before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const ops: { op: ' ' | '-' | '+'; line: string }[] = [];
  if (midA.length * midB.length > MAX_CELLS) {
    for (const line of midA) ops.push({ op: '-', line });
    for (const line of midB) ops.push({ op: '+', line });
  } else {
    // Longest common subsequence, then a walk that prints removals before additions.
    const n = midA.length;
    const m = midB.length;
    const table = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--) {
      for (let j = m - 1; j >= 0; j--) {
        table[i * (m + 1) + j] = midA[i] === midB[j] ? (table[(i + 1) * (m + 1) + j + 1] ?? 0) + 1 : Math.max(table[(i + 1) * (m + 1) + j] ?? 0, table[i * (m + 1) + j + 1] ?? 0);
      }
    }
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        ops.push({ op: ' ', line: midA[i++] ?? '' });
        j++;
      } else if (j >= m || (i < n && (table[(i + 1) * (m + 1) + j] ?? 0) >= (table[i * (m + 1) + j + 1] ?? 0))) {
        ops.push({ op: '-', line: midA[i++] ?? '' });
      } else {
        ops.push({ op: '+', line: midB[j++] ?? '' });
      }
    }
  }
  const context = 2;
  const lines: string[] = [];
  for (let k = Math.max(0, start - context); k < start; k++) lines.push(`  ${a[k] ?? ''}`);
  ops.forEach((entry, k) => {
    if (entry.op !== ' ') {
      lines.push(`${entry.op} ${entry.line}`);
      return;
    }
    const near = ops.slice(Math.max(0, k - context), k + context + 1).some((o) => o.op !== ' ');
    if (near) lines.push(`  ${entry.line}`);
    else if (lines.at(-1) !== '  …') lines.push('  …');
  });
  for (let k = endA; k < Math.min(a.length, endA + context); k++) lines.push(`  ${a[k] ?? ''}`);
  return lines.join('\n');
}
