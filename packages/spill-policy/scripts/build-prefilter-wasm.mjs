// Assembles src/trigram-prefilter.wat into the bytes src/trigram-prefilter-wasm.ts embeds.
// Run after editing the .wat: node scripts/build-prefilter-wasm.mjs
// (trigram-prefilter.test.ts fails while the two disagree).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import wabt from 'wabt';

const src = fileURLToPath(new URL('../src/', import.meta.url));
const wat = readFileSync(`${src}trigram-prefilter.wat`, 'utf8');
const module = (await wabt()).parseWat('trigram-prefilter.wat', wat);
module.validate();
const { buffer } = module.toBinary({});
module.destroy();
const base64 = Buffer.from(buffer).toString('base64');
const lines = base64.match(/.{1,96}/g) ?? [];
writeFileSync(
  `${src}trigram-prefilter-wasm.ts`,
  `/** The compiled \`trigram-prefilter.wat\` (made by \`scripts/build-prefilter-wasm.mjs\`; a test checks they agree). */\nexport const TRIGRAM_PREFILTER_WASM =\n${lines.map((l) => `  '${l}'`).join(' +\n')};\n`,
);
console.log(`${buffer.length} bytes`);
