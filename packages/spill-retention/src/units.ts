/**
 * Strict parsers and formatters for the durations and sizes people type on a command line
 * (`--older-than 7d`, `--max-bytes 2GB`). Strict means: anything not in the grammar is an
 * error naming the accepted forms, never a silent guess.
 */

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const DURATION_PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d|w)/gy;

/** At most this many characters of a rejected value are quoted back in an error. */
const MAX_SHOWN = 80;

/** A rejected value, quoted and cut, so that a huge input makes a short message. */
function shown(text: unknown): string {
  if (typeof text !== 'string') return typeof text;
  return JSON.stringify(text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text);
}

/**
 * Parses a duration such as `500ms`, `90s`, `15m`, `12h`, `7d`, `2w`, or a sum of them
 * written together (`1h30m`, `1d 12h`), into milliseconds. Units are lowercase; a bare
 * number is refused because its unit would be a guess. `m` is minutes.
 *
 * @throws TypeError naming the accepted forms when `text` is not one of them.
 */
export function parseDuration(text: string): number {
  const fail = (): never => {
    throw new TypeError(
      `Expected a duration such as 30s, 15m, 12h, 7d or 1h30m (units ms, s, m, h, d, w); got ${shown(text)}.`,
    );
  };
  if (typeof text !== 'string') return fail();
  const compact = text.trim().replace(/(?<=[a-z])\s+(?=\d)/g, '');
  if (compact === '') return fail();
  let total = 0;
  let at = 0;
  DURATION_PART.lastIndex = 0;
  for (let m = DURATION_PART.exec(compact); m !== null; m = DURATION_PART.exec(compact)) {
    const unit = DURATION_UNITS[m[2] as string] as number;
    total += Number(m[1]) * unit;
    at = DURATION_PART.lastIndex;
  }
  if (at !== compact.length) return fail();
  const ms = Math.round(total);
  if (!Number.isSafeInteger(ms)) return fail();
  return ms;
}

const SIZE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  tb: 1e12,
  pb: 1e15,
  k: 1024,
  m: 1024 ** 2,
  g: 1024 ** 3,
  t: 1024 ** 4,
  p: 1024 ** 5,
  kib: 1024,
  mib: 1024 ** 2,
  gib: 1024 ** 3,
  tib: 1024 ** 4,
  pib: 1024 ** 5,
};

const SIZE = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;

/**
 * Parses a size into bytes, the way GNU tools read them: a bare number is bytes; `KB`,
 * `MB`, `GB`, `TB` are powers of 1000; `KiB`, `MiB`, `GiB`, `TiB` and the single letters
 * `K`, `M`, `G`, `T` are powers of 1024. Case does not matter. Fractions round down to a
 * whole byte (`1.5KB` is 1500).
 *
 * @throws TypeError naming the accepted forms when `text` is not one of them.
 */
export function parseByteSize(text: string): number {
  const fail = (): never => {
    throw new TypeError(
      `Expected a size such as 500MB, 2GB, 1.5GiB or 4096 (KB/MB/GB/TB = 1000^n, KiB/MiB/GiB/TiB or K/M/G/T = 1024^n); got ${shown(text)}.`,
    );
  };
  if (typeof text !== 'string') return fail();
  const m = SIZE.exec(text.trim());
  if (m === null) return fail();
  const factor = SIZE_UNITS[(m[2] ?? '').toLowerCase() || 'b'];
  if (factor === undefined) return fail();
  const bytes = Math.floor(Number(m[1]) * factor);
  if (!Number.isSafeInteger(bytes)) return fail();
  return bytes;
}

/** Formats milliseconds for people, with the two largest units (`7d`, `1h 30m`, `450ms`). */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  if (ms < 0) return `-${formatDuration(-ms)}`;
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['w', 604_800],
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}
