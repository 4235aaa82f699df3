import type { OutputStream } from './context.js';
import { formatBytes } from './format.js';

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
  const filled = Math.round(clampRatio(ratio) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/** A bar and its percentage, such as `[######------------------]  25%`. */
export function barAndPercent(ratio: number): string {
  return `${progressBar(ratio)} ${String(Math.round(clampRatio(ratio) * 100)).padStart(3)}%`;
}

/** How far a pass over items of known sizes has come: items and bytes, each of a total. */
export interface ItemsProgress {
  readonly items: number;
  readonly itemsDone: number;
  readonly bytes: number;
  readonly bytesDone: number;
}

/**
 * One progress line over items by their bytes, such as
 * `reading 3 of 40 transcript files [######------------------]  25% 100.0 MiB of 400.0 MiB`:
 * the item named is the one under way, and no count passes its total.
 */
export function itemsProgressText(verb: string, noun: string, p: ItemsProgress): string {
  const ratio = p.bytes === 0 ? 1 : p.bytesDone / p.bytes;
  const which = Math.min(p.items, p.itemsDone + 1);
  return `${verb} ${String(which)} of ${String(p.items)} ${noun}${p.items === 1 ? '' : 's'} ${barAndPercent(ratio)} ${formatBytes(Math.min(p.bytesDone, p.bytes))} of ${formatBytes(p.bytes)}`;
}

function clampRatio(ratio: number): number {
  return Math.min(1, Math.max(0, ratio));
}
