import type { OutputStream } from './context.js';

/** Least time between two redraws of a progress line. */
const REDRAW_MS = 100;

/**
 * One line of progress on a terminal, redrawn in place (`\r`, then erase to the end of the
 * line) at most every {@link REDRAW_MS} unless forced, and erased when done, so that what
 * the command prints afterwards starts on a clean line.
 */
export class ProgressLine {
  private lastDraw = 0;
  private drawn = false;

  constructor(
    private readonly stream: OutputStream,
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** Draws `text`, unless the last draw was too recent and `force` is not set. */
  draw(text: string, force = false): void {
    const now = this.clock();
    if (this.drawn && !force && now - this.lastDraw < REDRAW_MS) return;
    this.lastDraw = now;
    this.drawn = true;
    this.stream.write(`\r\u001b[K${text}`);
  }

  /** Erases the line, if one was drawn. */
  done(): void {
    if (this.drawn) this.stream.write('\r\u001b[K');
    this.drawn = false;
  }
}

/** A bar such as `[#####-------------------]` for a ratio from 0 to 1. */
export function progressBar(ratio: number, width = 24): string {
  const filled = Math.round(Math.min(1, Math.max(0, ratio)) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}
