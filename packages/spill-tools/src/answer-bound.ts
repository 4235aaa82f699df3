/**
 * The one bound on what a retrieval tool answers the model, in UTF-8 bytes, whatever the
 * model asked for and whatever the reader returned. Every tool answer (`spill_read`,
 * `spill_grep`, and any later tool) is cut here, so that no surface has to clamp on its
 * own. No Node imports.
 */
import { utf8ByteLength } from '@spillway/core';

/** Default cap, in UTF-8 bytes, on the whole text of one retrieval tool answer (footer included). */
export const DEFAULT_SPILL_ANSWER_BYTES = 32 * 1024;
/** Default most matches one `spill_grep` answer holds, however many the model asks for. */
export const DEFAULT_SPILL_ANSWER_MATCHES = 200;
/** The smallest answer cap accepted: room for a footer that says how to continue. */
export const MIN_SPILL_ANSWER_BYTES = 1024;

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes that does not split a code point. */
export function utf8Prefix(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || utf8ByteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    const size = c < 0x80 ? 1 : c < 0x800 ? 2 : pair ? 4 : 3;
    if (bytes + size > maxBytes) break;
    bytes += size;
    i += pair ? 2 : 1;
  }
  return text.slice(0, i);
}

/** What {@link boundRows} answers. */
export interface BoundedRows {
  /** The rows that fit, one a line, then the footer: at most `maxBytes` UTF-8 bytes. */
  readonly text: string;
  /** How many rows are in `text` (the last one possibly cut, see `rowCut`). */
  readonly shown: number;
  /** True when the last row shown is only a prefix of its row (a row larger than the whole cap). */
  readonly rowCut: boolean;
}

/**
 * Joins as many leading `rows` as fit, one a line, followed by `footer(shown)` (which says
 * what was left out and how to continue), within `maxBytes` UTF-8 bytes. When not even the
 * first row fits beside its footer, a prefix of it is shown. When not even the footer fits,
 * the footer itself is cut. Rows are kept whole otherwise, in order.
 */
export function boundRows(rows: readonly string[], maxBytes: number, footer: (shown: number) => string): BoundedRows {
  let used = 0;
  let shown = 0;
  for (const row of rows) {
    const next = used + utf8ByteLength(row) + 1;
    if (next + utf8ByteLength(footer(shown + 1)) > maxBytes) break;
    used = next;
    shown++;
  }
  const body = rows.slice(0, shown);
  let rowCut = false;
  if (shown === 0 && rows.length > 0) {
    const room = maxBytes - utf8ByteLength(footer(1)) - 1;
    const first = room > 0 ? utf8Prefix(rows[0] ?? '', room) : '';
    if (first !== '') {
      body.push(first);
      shown = 1;
      rowCut = first !== rows[0];
    }
  }
  const tail = footer(shown);
  const text = body.length === 0 ? tail : `${body.join('\n')}\n${tail}`;
  return { text: utf8Prefix(text, maxBytes), shown, rowCut };
}
