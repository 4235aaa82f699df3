// The oversized tool result of the adapters' agent-loop tests: far over any inline cap,
// with one line the model can only reach through spill_grep.

/** The one line of {@link bigLog} worth finding: nothing in it marks it as an error, so no preview picks it out. */
export const NEEDLE = 'shard 17 disk quota reached, 0 bytes left';

/** The 1-based line of {@link bigLog} that holds {@link NEEDLE}. */
export const NEEDLE_LINE = 2345;

/** About 200 KB of log in 4,000 lines, {@link NEEDLE} at line {@link NEEDLE_LINE}. */
export function bigLog(): string {
  const lines: string[] = [];
  for (let i = 1; i <= 4000; i++) lines.push(i === NEEDLE_LINE ? NEEDLE : `line ${String(i).padStart(5, '0')} ok ${'.'.repeat(36)}`);
  return lines.join('\n');
}
