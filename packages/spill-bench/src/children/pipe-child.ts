/**
 * The memory baseline for the CLI figure: the least a Node program can do to run a
 * command and keep its output, `node pipe-child.js <file> <command> [args…]` pipes the
 * command's stdout into `<file>` with `stream.pipeline` and exits with its code.
 */
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';

const [file, command, ...args] = process.argv.slice(2);
if (file === undefined || command === undefined) throw new TypeError('usage: pipe-child.js <file> <command> [args…]');
const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] });
const exited = new Promise<number>((resolve) => {
  child.on('close', (code) => {
    resolve(code ?? 1);
  });
});
await pipeline(child.stdout, createWriteStream(file, { flags: 'wx', mode: 0o600 }));
process.exitCode = await exited;
