// Improves the buckets of the prefilter fingerprints (src/trigram-fingerprints.ts): starting
// from the buckets they have, moves one fingerprint at a time to another bucket while that
// lets fewer byte positions of the preview and list corpora pass the SIMD nibble test, and
// prints the result. Only the speed depends on it: every fingerprint is also checked
// exactly. Give a new fingerprint any bucket, then run after `pnpm build`:
//   node scripts/prefilter-buckets.mjs
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { TRIGGER_FINGERPRINTS } from '../dist/trigram-fingerprints.js';

const BUCKETS = 8;
const corpus = fileURLToPath(new URL('../../spill-bench/corpus', import.meta.url));

function* files(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = `${dir}/${name}`;
    if (statSync(path).isDirectory()) yield* files(path);
    else yield path;
  }
}

// How often each byte trigram occurs in the corpora.
const counts = new Map();
for (const path of files(corpus)) {
  const bytes = readFileSync(path);
  for (let i = 0; i + 2 < bytes.length; i++) {
    const key = (bytes[i] << 16) | (bytes[i + 1] << 8) | (bytes[i + 2] ?? 0);
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
}
const keys = [...counts.keys()];

const entries = Object.entries(TRIGGER_FINGERPRINTS).flatMap(([trigger, list]) => list.map((f, k) => ({ trigger, k, f })));
const unique = [...new Map(entries.map((e) => [JSON.stringify(e.f.classes), e])).values()];
// Each fingerprint's nibble sets, per place: [low, high] bit masks.
const masks = unique.map(({ f }) =>
  f.classes.map((cls) => {
    let low = 0;
    let high = 0;
    for (let i = 0; i < cls.length; i++) {
      low |= 1 << (cls.charCodeAt(i) & 15);
      high |= 1 << (cls.charCodeAt(i) >> 4);
    }
    return [low, high];
  }),
);

/** Byte positions of the corpora that pass the nibble test under `assign`. */
function passing(assign) {
  const bucket = Array.from({ length: BUCKETS }, () => [0, 0, 0, 0, 0, 0]);
  assign.forEach((b, f) => masks[f].forEach(([low, high], place) => { bucket[b][2 * place] |= low; bucket[b][2 * place + 1] |= high; }));
  let total = 0;
  for (const key of keys) {
    const bytes = [key >> 16, (key >> 8) & 255, key & 255];
    const pass = bucket.some((m) => bytes.every((byte, place) => (m[2 * place] >> (byte & 15)) & 1 && (m[2 * place + 1] >> (byte >> 4)) & 1));
    if (pass) total += counts.get(key);
  }
  return total;
}

const assign = unique.map(({ f }) => f.bucket);
console.log(`positions passing with the buckets as they are: ${passing(assign)}`);
let best = passing(assign);
for (let improved = true; improved; ) {
  improved = false;
  for (let f = 0; f < assign.length; f++) {
    for (let b = 0; b < BUCKETS; b++) {
      const old = assign[f];
      if (b === old) continue;
      assign[f] = b;
      const cost = passing(assign);
      if (cost < best) {
        best = cost;
        improved = true;
      } else assign[f] = old;
    }
  }
}
console.log(`positions passing the nibble test: ${best}`);
for (const [i, { f }] of unique.entries()) console.log(`bucket ${assign[i]}: ${JSON.stringify(f.classes.map((c) => (c.length > 12 ? `${c.slice(0, 6)}…(${c.length})` : c)))}`);
