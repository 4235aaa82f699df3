import { ConfigParseError, type ConfigDocument } from './document.js';

/** The key under which {@link instructionsDocument} shows spillway's block. */
export const INSTRUCTIONS_KEY = 'spillway block';

const BEGIN = '<!-- spillway:begin -->';
const END = '<!-- spillway:end -->';

/** Where spillway's block sits in `text`: the offsets of its first and past its last line, and its body. */
function findBlock(path: string, text: string): { start: number; end: number; body: string } | undefined {
  const begin = text.indexOf(BEGIN);
  if (begin === -1) {
    if (text.includes(END)) throw new ConfigParseError(path, `it has "${END}" without "${BEGIN}"`);
    return undefined;
  }
  if (begin > 0 && text[begin - 1] !== '\n') throw new ConfigParseError(path, `"${BEGIN}" does not start a line`);
  const close = text.indexOf(END, begin);
  if (close === -1) throw new ConfigParseError(path, `it has "${BEGIN}" without "${END}"`);
  if (text.indexOf(BEGIN, begin + BEGIN.length) !== -1) throw new ConfigParseError(path, `it has "${BEGIN}" twice`);
  const bodyStart = text.indexOf('\n', begin) + 1;
  const afterEnd = close + END.length;
  const end = text[afterEnd] === '\n' ? afterEnd + 1 : afterEnd;
  return { start: begin, end, body: text.slice(bodyStart, close) };
}

/**
 * A Markdown instructions file (Codex's `AGENTS.md`) as a config document with one key,
 * {@link INSTRUCTIONS_KEY}: the body of spillway's block, between `<!-- spillway:begin -->`
 * and `<!-- spillway:end -->` lines. Setting it replaces the body, or appends the block
 * after a blank line; removing it takes out the block and the blank line setup put before
 * it. Everything outside the block stays byte for byte.
 *
 * @throws ConfigParseError when the markers are unpaired, doubled or not at a line start.
 */
export function instructionsDocument(path: string, original: string): ConfigDocument {
  let text = original;
  findBlock(path, text);
  const document: ConfigDocument = {
    value: () => {
      const block = findBlock(path, text);
      return block === undefined ? {} : { [INSTRUCTIONS_KEY]: block.body };
    },
    set(at, next) {
      if (at.length !== 1 || at[0] !== INSTRUCTIONS_KEY) throw new TypeError(`An instructions file has only the key ${INSTRUCTIONS_KEY}`);
      if (next !== undefined && typeof next !== 'string') throw new TypeError('The instructions block is text');
      const block = findBlock(path, text);
      const body = next === undefined ? undefined : next.endsWith('\n') ? next : `${next}\n`;
      if (block !== undefined && body !== undefined) {
        text = `${text.slice(0, block.start)}${BEGIN}\n${body}${END}\n${text.slice(block.end)}`;
      } else if (block !== undefined) {
        // The blank line setup put before the block goes with it.
        const before = text.slice(0, block.start);
        const cut = before.endsWith('\n\n') ? block.start - 1 : block.start;
        text = text.slice(0, cut) + text.slice(block.end);
      } else if (body !== undefined) {
        const separator = text === '' ? '' : text.endsWith('\n') ? '\n' : '\n\n';
        text = `${text}${separator}${BEGIN}\n${body}${END}\n`;
      }
    },
    append() {
      throw new TypeError('An instructions file holds no arrays');
    },
    text: () => text,
    editEach(paths) {
      if (paths.length > 0) throw new TypeError('An instructions file holds no tables');
    },
  };
  return document;
}
