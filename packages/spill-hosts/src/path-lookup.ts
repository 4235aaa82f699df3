// Where a command named without a path is found, as a host that starts it would find it.
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { SetupEnvironment } from './types.js';

/** Where `word` leads: itself when absolute, else the first executable of that name on `PATH`. */
export function onPath(word: string, env: SetupEnvironment): string | undefined {
  if (isAbsolute(word)) return word;
  for (const dir of (env.env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue;
    try {
      accessSync(join(dir, word), constants.X_OK);
      return join(dir, word);
    } catch {
      // Not here.
    }
  }
  return undefined;
}

