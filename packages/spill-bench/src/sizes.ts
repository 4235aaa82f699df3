const UNIT_BYTES: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1e3,
  mb: 1e6,
  gb: 1e9,
  kib: 2 ** 10,
  mib: 2 ** 20,
  gib: 2 ** 30,
  k: 2 ** 10,
  m: 2 ** 20,
  g: 2 ** 30,
};

/**
 * Parses a size such as `4KiB`, `64 MiB`, `500MB`, `1.5GiB` or `65536` into bytes.
 * Binary units (`KiB`, and the shorthands `k`, `m`, `g`) are powers of 1024; decimal
 * units (`KB`, `MB`, `GB`) are powers of 1000. Units are case-insensitive.
 *
 * @throws TypeError when the text is not a size or does not come to a whole number of
 * bytes.
 */
export function parseSize(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const unit = match?.[2]?.toLowerCase() ?? '';
  const factor = unit === '' ? 1 : UNIT_BYTES[unit];
  if (match?.[1] === undefined || factor === undefined) {
    throw new TypeError(`"${text}" is not a size; write a number with an optional unit, such as 4KiB, 64MiB or 500MB.`);
  }
  const bytes = Number(match[1]) * factor;
  if (!Number.isSafeInteger(bytes)) {
    throw new TypeError(`"${text}" does not come to a whole number of bytes.`);
  }
  return bytes;
}

/**
 * Formats a byte count with the largest binary unit that keeps the number at least 1,
 * such as `4 KiB`, `1.5 MiB` or `2 GiB` (at most two decimals, trailing zeros dropped).
 */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'] as const;
  let value = bytes;
  let i = 0;
  while (Math.abs(value) >= 1024 && i < units.length - 1) {
    value /= 1024;
    i++;
  }
  return `${trimNumber(value)} ${units[i] ?? 'B'}`;
}

/** Rounds to at most `digits` decimals and drops trailing zeros. */
export function trimNumber(value: number, digits = 2): string {
  return String(Number(value.toFixed(digits)));
}
