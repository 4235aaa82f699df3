import { isAscii } from 'node:buffer';
import type { SpillPreviewScan, SpillPreviewScanner } from '@spillway/policy';

/** A scan that has seen the whole output: what the preview is composed from. */
export type FinishedScan = Pick<OutputScan, 'finish'>;

/**
 * The policy's scan for salient lines over output that arrives as bytes: decoded as UTF-8
 * across chunk boundaries (lossily, which keeps every line break, so line numbers hold).
 */
export class OutputScan {
  readonly #decoder = new TextDecoder();
  readonly #scanner: SpillPreviewScanner;
  #finished: SpillPreviewScan | undefined;
  /** Whether the decoder may hold part of a character, or has not yet passed the text's start (a BOM). */
  #unsettled = true;
  constructor(scanner: SpillPreviewScanner) {
    this.#scanner = scanner;
  }
  push(bytes: Uint8Array): void {
    // An ASCII piece decodes to its Latin-1 text, several times faster than through the decoder.
    if (!this.#unsettled && isAscii(bytes)) {
      this.#scanner.push(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1'));
      return;
    }
    const text = this.#decoder.decode(bytes, { stream: true });
    this.#scanner.push(text);
    if (text.length > 0) this.#unsettled = mayEndInCharacter(bytes);
    else if (bytes.length > 0) this.#unsettled = true;
  }
  finish(): SpillPreviewScan {
    if (this.#finished === undefined) {
      this.#scanner.push(this.#decoder.decode());
      this.#finished = this.#scanner.finish();
    }
    return this.#finished;
  }
}

/** Whether `bytes` may end inside a UTF-8 sequence: a lead byte among the last ones that lacks its continuation bytes. */
function mayEndInCharacter(bytes: Uint8Array): boolean {
  const n = bytes.length;
  return (bytes[n - 1] ?? 0) >= 0xc0 || (bytes[n - 2] ?? 0) >= 0xe0 || (bytes[n - 3] ?? 0) >= 0xf0;
}
