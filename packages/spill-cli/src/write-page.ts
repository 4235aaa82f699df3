import { lstatSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { CliError } from './cli-error.js';

function exists(path: string): CliError {
  return new CliError('FILE_EXISTS', `${path} already exists and is never overwritten; remove it or name a new file.`);
}

/** Fails early, before any work, when the page's file already exists (a link included). */
export function assertNewPage(path: string): void {
  try {
    lstatSync(path);
  } catch {
    return; // missing (or unreachable: the write says why)
  }
  throw exists(path);
}

/**
 * Writes a report page (`audit --html`, `stats --html`) to a new file, private (0600).
 * An existing file, or a link at that name, is never replaced: `FILE_EXISTS`.
 */
export async function writeNewPage(path: string, html: string): Promise<void> {
  try {
    // 'wx' is O_CREAT|O_EXCL: it fails on any existing name, a dangling symlink included.
    await writeFile(path, html, { mode: 0o600, flag: 'wx' });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'EEXIST') {
      throw exists(path);
    }
    throw new CliError('FAILED', `Cannot write ${path}: ${(cause as Error).message}. Pick a file in a directory you can write.`, undefined, { cause });
  }
}
