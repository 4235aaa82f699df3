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

  // --- match text: the line, or a window of at most maxLineBytes around the match -----
  const fromBytes = (buf: Buffer, ls: number, le: number, at: number): { text: string; truncated: boolean } => {
    if (le - ls <= req.maxLineBytes) return { text: buf.toString('utf8', ls, le), truncated: false };
    let ws = Math.max(ls, at - Math.floor(req.maxLineBytes / 4));
    while (ws > ls && ((buf[ws] ?? 0) & 0xc0) === 0x80) ws--;
    let we = Math.min(le, ws + req.maxLineBytes);
    while (we > ws && we < le && ((buf[we] ?? 0) & 0xc0) === 0x80) we--;
    return { text: buf.toString('utf8', ws, we), truncated: true };
  };
  const fromString = (line: string, at: number): { text: string; truncated: boolean } => {
    if (line.length * 3 <= req.maxLineBytes || Buffer.byteLength(line, 'utf8') <= req.maxLineBytes) {
      return { text: line, truncated: false };
    }
    let ws = Math.max(0, at - Math.floor(req.maxLineBytes / 4));
    const c = line.charCodeAt(ws);
    if (ws > 0 && c >= 0xdc00 && c <= 0xdfff) ws--; // do not start inside a pair
    let bytes = 0;
    let we = ws;
    while (we < line.length) {
      const code = line.charCodeAt(we);
      let units = 1;
      let size = code < 0x80 ? 1 : code < 0x800 ? 2 : 3;
      if (code >= 0xd800 && code <= 0xdbff) {
        const next = line.charCodeAt(we + 1);
        if (next >= 0xdc00 && next <= 0xdfff) {
          units = 2;
          size = 4;
        }
      }
      if (bytes + size > req.maxLineBytes) break;
      bytes += size;
      we += units;
    }
    return { text: line.slice(ws, we), truncated: true };
  };
  const record = (line: number, m: { text: string; truncated: boolean }): boolean => {
    if (line === lastLine) return false;
    lastLine = line;
    matches.push({ line, text: m.text, truncated: m.truncated });
    return matches.length >= req.maxMatches;
  };

  // --- per-region matchers; each returns the newline count and whether to stop ---------
  const needleBytes = req.mode === 'bytes' ? Buffer.from(req.needle, 'utf8') : Buffer.alloc(0);
  const lineRe = req.mode === 'regex' ? new RegExp(req.needle, req.flags) : null;
  const chunkRe = req.mode === 'regex' && req.prefilter ? new RegExp(req.needle, `${req.flags}gm`) : null;
  const impossible = req.mode === 'bytes' && needleBytes.includes(NL);

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
      if (record(line, fromBytes(buf, ls, le, m))) return { lines, stop: le + 1 < end || !eof };
      i = le + 1;
    }
    return { lines, stop: undefined };
  };

  const scanText = (s: string, firstLine: number, eof: boolean): Region => {
    const lines = countString(s, 0, s.length);
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
        if (record(line, fromString(text, hit.index))) return { lines, stop: le + 1 < s.length || !eof };
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
      req.mode === 'bytes' ? scanBytes(buf, end, lineNo, eof) : scanText(buf.toString('utf8', 0, end), lineNo, eof);
    if (region.stop !== undefined) return { matches, limitReached: region.stop, timedOut: false };
    lineNo += region.lines;
    buf.copy(buf, 0, end, have);
    base += end;
    have -= end;
    if (eof && have === 0) break;
  }
  return { matches, limitReached: false, timedOut: false };
}
