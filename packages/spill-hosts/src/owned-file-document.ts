import type { ConfigDocument } from './document.js';

/** The key under which {@link ownedFileDocument} shows the file's content. */
export const OWNED_FILE_KEY = 'content';

/**
 * A file that belongs to spillway as a whole (OpenCode's plugin file) as a config document
 * with one key, {@link OWNED_FILE_KEY}: its whole text, absent when the file is empty.
 * Setting it replaces the text; removing it empties the file, which undo then deletes.
 */
export function ownedFileDocument(original: string): ConfigDocument {
  let text = original;
  const only = (at: readonly (string | number)[]): void => {
    if (at.length !== 1 || at[0] !== OWNED_FILE_KEY) throw new TypeError(`This file has only the key ${OWNED_FILE_KEY}`);
  };
  return {
    value: () => (text === '' ? {} : { [OWNED_FILE_KEY]: text }),
    set(at, next) {
      only(at);
      if (next !== undefined && typeof next !== 'string') throw new TypeError('The file holds text');
      text = next ?? '';
    },
    append() {
      throw new TypeError('This file holds no arrays');
    },
    text: () => text,
    editEach(paths) {
      if (paths.length > 0) throw new TypeError('This file holds no tables');
    },
  };
}
