/**
 * A digest of an output's text, the key under which a spill is remembered: two outputs
 * share a remembered preview and locator only when their text is the same, whatever
 * their sizes.
 *
 * SHA-256 over each block's length and UTF-16 code units (little-endian). Code units,
 * not UTF-8, because encoding to UTF-8 replaces lone surrogates and so would make
 * different texts collide. Node's hash is synchronous (so a remembered call is
 * answered without a promise) and is loaded without an import, so that this module
 * still runs where there is no `node:crypto`; there the Web Crypto digest is used.
 */

interface NodeHash {
  update(data: string, encoding: 'utf16le'): NodeHash;
  digest(encoding: 'hex'): string;
}

type CreateHash = (algorithm: 'sha256') => NodeHash;

function nodeCreateHash(): CreateHash | undefined {
  try {
    const getBuiltin = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule;
    const crypto = getBuiltin?.('node:crypto') as { createHash?: CreateHash } | undefined;
    return typeof crypto?.createHash === 'function' ? crypto.createHash : undefined;
  } catch {
    return undefined;
  }
}

const createHash = nodeCreateHash();

/** The pieces hashed, in order: each block's length, then its text. */
function pieces(texts: readonly string[]): string[] {
  const out: string[] = [];
  for (const text of texts) out.push(`${String(text.length)}:`, text);
  return out;
}

/** The digest of `texts` with Node's hash, or undefined where Node's crypto is not available. */
export function syncDigest(texts: readonly string[]): string | undefined {
  if (createHash === undefined) return undefined;
  const hash = createHash('sha256');
  for (const piece of pieces(texts)) hash.update(piece, 'utf16le');
  return hash.digest('hex');
}

/** The same digest as {@link syncDigest}, through Web Crypto. */
export async function webDigest(texts: readonly string[]): Promise<string> {
  const joined = pieces(texts).join('');
  const units = new Uint8Array(joined.length * 2);
  for (let i = 0; i < joined.length; i++) {
    const c = joined.charCodeAt(i);
    units[2 * i] = c & 0xff;
    units[2 * i + 1] = c >>> 8;
  }
  const sum = new Uint8Array(await globalThis.crypto.subtle.digest('SHA-256', units));
  let hex = '';
  for (const b of sum) hex += b.toString(16).padStart(2, '0');
  return hex;
}

/** The digest of `texts`: synchronous under Node, a promise elsewhere. */
export function contentDigest(texts: readonly string[]): string | Promise<string> {
  return syncDigest(texts) ?? webDigest(texts);
}
