/**
 * `spillway --help` answered from a file written at build time (`dist/help.txt`), so that
 * it starts about as fast as Node itself: the bin prints the file when stdout is not a
 * terminal (a terminal's width may wrap the text otherwise) and loads no program at all.
 * `node dist/help-file.js` writes it, from the program's own help.
 */
import { writeFileSync } from 'node:fs';
import { PassThrough, Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { main } from './main.js';

/** The help of `spillway --help` when stdout is not a terminal, as the program prints it. */
export async function programHelp(): Promise<string> {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on('data', (chunk: Buffer) => chunks.push(chunk));
  const err = new PassThrough();
  err.resume();
  await main(['--help'], { stdout: out, stderr: err, stdin: Readable.from([]), env: {}, cwd: '/', homedir: '/' });
  return Buffer.concat(chunks).toString('utf8');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('./help.txt', import.meta.url), await programHelp());
}
