/**
 * The grep scanner. It runs in two places: in process (literal patterns, which are
 * linear-time) and, via `scanFile.toString()`, inside a worker thread that can be
 * terminated (regular expressions, which can backtrack catastrophically). So
 * {@link scanFile} must stay self-contained: it may use only its parameters and globals
 * (`Buffer`), never anything imported or declared in this module at run time.
 */

/** What to look for and how much to return. */
export interface ScanRequest {
  /** File size when it was opened; the scan never reads past it. */
  readonly size: number;
  /** `bytes`: `needle` searched as UTF-8 bytes; `regex`: `needle` is regex source. */
  readonly mode: 'bytes' | 'regex';
  readonly needle: string;
  /** Regex flags (`''` or `'i'`); ignored in bytes mode. */
  readonly flags: string;
  /**
   * Whether a regex may first be run over a whole chunk with the `m` flag to skip lines
   * that cannot match. Sound only without lookarounds (see `grep.ts`).
   */
  readonly prefilter: boolean;
  readonly maxMatches: number;
  readonly maxLineBytes: number;
  /** Wall-clock deadline (ms since the epoch), checked between chunks. */
  readonly deadline: number;
  /** Bytes read at a time. */
  readonly chunkBytes: number;
  /** A line longer than this is searched in pieces of this size. */
  readonly maxLineSpan: number;
}

/** One match as the scanner reports it. */
export interface ScanMatch {
  readonly line: number;
  readonly text: string;
  readonly truncated: boolean;
}

/** What the scanner found. */
export interface ScanResult {
  readonly matches: ScanMatch[];
  readonly limitReached: boolean;
  readonly timedOut: boolean;
}

/** Positioned read, synchronous (worker) or not (in process). */
export type ScanRead = (buffer: Buffer, offset: number, length: number, position: number) => number | Promise<number>;

/**
 * Scans a file line by line (lines end at `\n`, numbered from 1) and collects matching
 * lines. Reads in chunks cut at the last newline, so memory stays at one chunk (grown up
 * to `maxLineSpan` for a long line).
 */
export async function scanFile(req: ScanRequest, read: ScanRead, now: () => number): Promise<ScanResult> {
  const NL = 0x0a;
  const matches: ScanMatch[] = [];
  let lastLine = 0; // the line of the last match, so a long line split in pieces counts once

  // --- match text: the line, or a window of at most maxLineBytes holding the match ---
  // The window shows the whole first match when it fits, with up to half the spare room
  // before it and the rest after; a match longer than the budget is shown from its start.
  const max = req.maxLineBytes;
  const isCont = (b: number | undefined): boolean => ((b ?? 0) & 0xc0) === 0x80;
  const fromBytes = (buf: Buffer, ls: number, le: number, ms: number, me: number): { text: string; truncated: boolean } => {
    if (le - ls <= max) return { text: buf.toString('utf8', ls, le), truncated: false };
    let ws: number;
    let we: number;
    if (me - ms >= max) {
      ws = ms;
      we = ms + max;
    } else {
      const spare = max - (me - ms);
      ws = Math.max(ls, ms - Math.floor(spare / 2));
      while (ws < ms && isCont(buf[ws])) ws++;
      we = Math.min(le, me + (max - (me - ws)));
      const left = max - (we - ws);
      if (left > 0) {
        ws = Math.max(ls, ws - left);
        while (ws < ms && isCont(buf[ws])) ws++;
      }
    }
    while (we > ws && we < le && isCont(buf[we])) we--;
    return { text: buf.toString('utf8', ws, we), truncated: true };
  };
  const unitBytes = (s: string, i: number): number => {
    const c = s.charCodeAt(i);
    return c < 0x80 ? 1 : c < 0x800 ? 2 : 3; // each half of a pair counts 2 of its 4 bytes
  };
  const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;
  const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
  const fromString = (line: string, ms0: number, me0: number): { text: string; truncated: boolean } => {
    if (line.length * 3 <= max || Buffer.byteLength(line, 'utf8') <= max) return { text: line, truncated: false };
    const pairAt = (i: number): boolean => i > 0 && i < line.length && isHigh(line.charCodeAt(i - 1)) && isLow(line.charCodeAt(i));
    const ms = pairAt(ms0) ? ms0 - 1 : ms0;
    const me = pairAt(me0) ? me0 + 1 : me0;
    const sizeOf = (i: number): number => (isHigh(line.charCodeAt(i)) && isLow(line.charCodeAt(i + 1)) ? 4 : unitBytes(line, i));
    // Grow [ws, we) by whole code points while the budget allows.
    let budget = max;
    let ws = ms;
    let we = ms;
    const forward = (limit: number): void => {
      while (we < line.length) {
        const size = sizeOf(we);
        if (size > limit || size > budget) break;
        budget -= size;
        limit -= size;
        we += size === 4 ? 2 : 1;
      }
    };
    const backward = (limit: number): void => {
      while (ws > 0) {
        const pair = ws >= 2 && isLow(line.charCodeAt(ws - 1)) && isHigh(line.charCodeAt(ws - 2));
        const size = pair ? 4 : unitBytes(line, ws - 1);
        if (size > limit || size > budget) break;
        budget -= size;
        limit -= size;
        ws -= pair ? 2 : 1;
      }
    };
    let matchBytes = 0;
    for (let i = ms; i < me; ) {
      const size = sizeOf(i);
      matchBytes += size;
      i += size === 4 ? 2 : 1;
    }
    if (matchBytes >= max) {
      forward(max);
    } else {
      forward(matchBytes);
      backward(Math.floor((max - matchBytes) / 2));
      forward(budget);
      backward(budget);
    }
    return { text: line.slice(ws, we), truncated: true };
  };
  // Returns true when the search must stop: maxMatches reached (with maxMatches 0, at the
  // first matching line, which is what makes limitReached true).
  const record = (line: number, make: () => { text: string; truncated: boolean }): boolean => {
    if (line === lastLine) return false;
    lastLine = line;
    if (req.maxMatches === 0) return true;
    const m = make();
    matches.push({ line, text: m.text, truncated: m.truncated });
    return matches.length >= req.maxMatches;
  };

  // --- per-region matchers; each returns the newline count and whether to stop ---------
  const needleBytes = req.mode === 'bytes' ? Buffer.from(req.needle, 'utf8') : Buffer.alloc(0);
  const lineRe = req.mode === 'regex' ? new RegExp(req.needle, req.flags) : null;
  const chunkRe = req.mode === 'regex' && req.prefilter ? new RegExp(req.needle, `${req.flags}gm`) : null;
  // Stored text has no newline inside a line and no lone surrogate anywhere (they were
  // written as U+FFFD), so a literal holding either can never match.
  const impossible = req.mode === 'bytes' && (req.needle.includes('\n') || /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(req.needle));

  const countBytes = (buf: Buffer, from: number, to: number): number => {
    let n = 0;
    let i = buf.indexOf(NL, from);
    while (i !== -1 && i < to) {
      n++;
      i = buf.indexOf(NL, i + 1);
    }
    return n;
  };
  const countString = (s: string, from: number, to: number): number => {
    let n = 0;
    let i = s.indexOf('\n', from);
    while (i !== -1 && i < to) {
      n++;
      i = s.indexOf('\n', i + 1);
    }
    return n;
  };

  // `stop` is undefined to go on, or whether anything follows the last match (limitReached).
  type Region = { lines: number; stop: boolean | undefined };
  const scanBytes = (buf: Buffer, end: number, firstLine: number, eof: boolean): Region => {
    const lines = countBytes(buf, 0, end);
    if (impossible) return { lines, stop: undefined };
    let i = 0;
    let counted = 0;
    let line = firstLine;
    while (i < end) {
      const m = buf.indexOf(needleBytes, i);
      if (m === -1 || m >= end) break;
      const ls = m === 0 ? 0 : buf.lastIndexOf(NL, m - 1) + 1;
      let le = buf.indexOf(NL, m);
      if (le === -1 || le >= end) le = end;
      line += countBytes(buf, counted, ls);
      counted = ls;
      if (record(line, () => fromBytes(buf, ls, le, m, m + needleBytes.length))) {
        return { lines, stop: req.maxMatches === 0 || le + 1 < end || !eof };
      }
      i = le + 1;
    }
    return { lines, stop: undefined };
  };

  const isAscii = process.getBuiltinModule('node:buffer').isAscii;
  const scanText = (buf: Buffer, end: number, firstLine: number, eof: boolean): Region => {
    const lines = countBytes(buf, 0, end);
    if (lines === 0 && end === 0) return { lines, stop: undefined };
    // Pure ASCII (the common case for logs) decodes faster as latin1, to the same string.
    const s = buf.toString(isAscii(buf.subarray(0, end)) ? 'latin1' : 'utf8', 0, end);
    const re = lineRe;
    if (re === null) return { lines, stop: undefined };
    let i = 0;
    let counted = 0;
    let line = firstLine;
    while (i < s.length) {
      let ls: number;
      let le: number;
      if (chunkRe !== null) {
        chunkRe.lastIndex = i;
        const found = chunkRe.exec(s);
        if (found === null) break;
        const q = found.index;
        ls = q === 0 ? 0 : s.lastIndexOf('\n', q - 1) + 1;
        if (ls < i) ls = i;
        if (ls >= s.length) break;
        le = s.indexOf('\n', q);
        if (le === -1) le = s.length;
      } else {
        ls = i;
        le = s.indexOf('\n', ls);
        if (le === -1) le = s.length;
      }
      const text = s.slice(ls, le);
      const hit = re.exec(text);
      if (hit !== null) {
        line += countString(s, counted, ls);
        counted = ls;
        if (record(line, () => fromString(text, hit.index, hit.index + hit[0].length))) {
          return { lines, stop: req.maxMatches === 0 || le + 1 < s.length || !eof };
        }
      }
      i = le + 1;
    }
    return { lines, stop: undefined };
  };

  // --- the chunk loop ------------------------------------------------------------------
  let buf = Buffer.allocUnsafe(Math.max(16, Math.min(req.chunkBytes, req.size)));
  let base = 0; // file offset of buf[0]
  let have = 0; // valid bytes in buf
  let lineNo = 1; // line number of buf[0]
  while (base + have < req.size || have > 0) {
    if (now() > req.deadline) return { matches, limitReached: false, timedOut: true };
    if (base + have < req.size && have < buf.length) {
      const n = await read(buf, have, Math.min(buf.length - have, req.size - base - have), base + have);
      if (n <= 0) break;
      have += n;
    }
    const eof = base + have >= req.size;
    let end: number;
    if (eof) {
      end = have;
    } else {
      const last = buf.lastIndexOf(NL, have - 1);
      if (last !== -1) {
        end = last + 1;
      } else if (have < buf.length) {
        continue; // read more before deciding
      } else if (buf.length < req.maxLineSpan) {
        const bigger = Buffer.allocUnsafe(Math.min(req.maxLineSpan, buf.length * 2));
        buf.copy(bigger, 0, 0, have);
        buf = bigger;
        continue;
      } else {
        // A line longer than maxLineSpan: search it in pieces, cut at a code-point start.
        end = have;
        while (end > 1 && ((buf[end] ?? 0) & 0xc0) === 0x80) end--;
      }
    }
    const region =
      req.mode === 'bytes' ? scanBytes(buf, end, lineNo, eof) : scanText(buf, end, lineNo, eof);
    if (region.stop !== undefined) return { matches, limitReached: region.stop, timedOut: false };
    lineNo += region.lines;
    buf.copy(buf, 0, end, have);
    base += end;
    have -= end;
    if (eof && have === 0) break;
  }
  return { matches, limitReached: false, timedOut: false };
}
