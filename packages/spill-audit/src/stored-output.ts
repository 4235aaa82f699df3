/**
 * Outputs Claude Code stored in a file itself: over its limits it replaces a tool's output
 * in the transcript with a note naming the file that holds it whole. The audit reads that
 * file, never writes it, so such an output is judged like any other.
 */
import { lstat, readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';

/** The largest stored output read; a larger one is judged by its note. */
export const MAX_STORED_OUTPUT_BYTES = 64 * 1024 * 1024;

/** How far into an output its note is looked for. */
const NOTE_WINDOW = 4096;

// Claude Code 2.1's two notes: a large output of any tool (`<persisted-output>` with a
// preview), and an MCP result over its token limit (an error naming the file). Each has a
// second form for a file cut at a size limit, which holds only part of the output.
const PERSISTED = /^<persisted-output>\r?\n(?:[^\n]*\n){0,8}?Output too large \([^)\n]*\)\. Full output saved to: ([^\n]+?)\r?\n/;
const MCP_SAVED = /(?:^|\n)Error: result \([\d,.\s\u202f]+ characters[^)\n]*\) exceeds maximum allowed tokens\. Output has been saved to ([^\n]+?)\.\r?\nFormat: /;
const PART_ONLY = /the saved file contains only the first /;

/**
 * The file a Claude Code note says holds the whole output, when `output` is such a note and
 * the file holds all of it; `undefined` otherwise.
 */
export function storedOutputFile(output: string): string | undefined {
  const head = output.length > NOTE_WINDOW ? output.slice(0, NOTE_WINDOW) : output;
  const match = PERSISTED.exec(head) ?? MCP_SAVED.exec(head);
  const file = match?.[1];
  if (file === undefined || !isAbsolute(file)) return undefined;
  return PART_ONLY.test(output) ? undefined : file;
}

/**
 * The text of a stored output: `undefined` when the file is gone, is not a regular file
 * (a symbolic link is not followed), is larger than {@link MAX_STORED_OUTPUT_BYTES}, or
 * cannot be read.
 */
export async function readStoredOutput(file: string): Promise<string | undefined> {
  try {
    const info = await lstat(file);
    if (!info.isFile() || info.size > MAX_STORED_OUTPUT_BYTES) return undefined;
    return await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
}
