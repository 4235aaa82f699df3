import type { RE2JS } from 're2js';
import { SpillError } from '@spillway/core';

/**
 * The one regular-expression dialect of spillway's grep: RE2 syntax, as ripgrep and Go
 * speak it (no backreferences, no lookaround; `(?i)`, `\pL`, `[[:alpha:]]`, `\Q…\E`,
 * `\z` are available). A pattern is checked by `re2js`; whatever RE2 refuses is
 * `SPILL_INVALID_PATTERN` on every backend and runtime.
 *
 * Matching is per line (the line's text without its `\n`, a `\r` stays): `^` and `$` are
 * the line's start and end, `.` matches any character (including `\r`), `\s` is
 * `[\t\n\f\r ]`, `\d`, `\w` and `\b` are ASCII, and the first match on a line is the
 * leftmost-first one, as RE2 defines it.
 *
 * Execution: when a pattern has the same meaning as a JavaScript `RegExp` with the `u`
 * flag after a small translation ({@link toNative}), the native engine runs it (fast),
 * otherwise, or when the native engine runs out of its budget, the linear-time `re2js`
 * engine does.
 */

/**
 * A piece of plain text that every match of an RE2 pattern contains, or undefined: the
 * longest run (at least 3 characters) of plain ASCII characters at the top level of a
 * pattern without a top-level alternation, inline flags or `\Q`. A line without it cannot
 * match, so a fast substring search can skip straight to the lines that may. It errs on
 * the side of answering undefined.
 */
export function requiredLiteral(source: string): string | undefined {
  if (/\(\?(?![:<]|P<)|\\Q/.test(source)) return undefined;
  let best = '';
  let run = '';
  let depth = 0;
  const end = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? '';
    const next = source[i + 1];
    if (c === '\\') {
      const e = next ?? '';
      i++;
      if (depth === 0 && /[!-/:-@[-`{-~]/.test(e) && !/[*?{]/.test(source[i + 1] ?? '')) {
        run += e;
        if (source[i + 1] === '+') end();
      } else {
        end();
      }
      continue;
    }
    if (c === '[') {
      end();
      // Skip the class: a ] right after [ or [^ is a literal member.
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j;
      continue;
    }
    if (c === '(') {
      end();
      depth++;
      continue;
    }
    if (c === ')') {
      end();
      depth--;
      continue;
    }
    if (c === '|') {
      if (depth === 0) return undefined;
      end();
      continue;
    }
    if (c === '{') {
      end();
      const close = source.indexOf('}', i);
      if (close !== -1) i = close; // a repeat count, never part of the text
      continue;
    }
    if (depth > 0 || '.^$*+?}'.includes(c) || c.charCodeAt(0) > 0x7e || c.charCodeAt(0) < 0x20) {
      end();
      continue;
    }
    if (next === '*' || next === '?' || next === '{') {
      end(); // this character may be absent (or the brace is not a repeat: stay safe)
      continue;
    }
    run += c;
    if (next === '+') end();
  }
  end();
  return best.length >= 3 ? best : undefined;
}

/** The `re2js` engine's class. */
export type Re2Engine = typeof RE2JS;

let engine: Promise<Re2Engine> | undefined;

/**
 * `re2js`, loaded on the first grep: a process that only reads (a search, `spillway read`)
 * never pays for its quarter of a megabyte of code.
 */
export function loadRe2(): Promise<Re2Engine> {
  engine ??= import('re2js').then(
    (m) => m.RE2JS,
    (error: unknown) => {
      engine = undefined;
      throw error;
    },
  );
  return engine;
}

/** A compiled grep pattern. */
export interface CompiledPattern {
  /** The linear-time engine, always present. */
  readonly re2: RE2JS;
  /** What {@link re2} was compiled from (a literal quoted) and with which flags, for a worker. */
  readonly re2Source: string;
  readonly re2Flags: number;
  /** The native translation, when one with identical meaning exists. */
  readonly native: NativePattern | undefined;
  /** Text every matching line contains (case-sensitive patterns only), for a fast skip. */
  readonly literal: string | undefined;
}

/** Native `RegExp` sources equivalent to an RE2 pattern. */
export interface NativePattern {
  /** For one line's text (no `\n` in it). */
  readonly line: string;
  /**
   * For a block of whole lines with the `m` flag: nothing in it can match a `\n`, so every
   * line's match is found in the block too; a block match only nominates a line.
   */
  readonly block: string;
  /** `''`, `u`, or `iu` for ignoreCase. */
  readonly flags: string;
  /** Text every matching line contains: found by a substring search instead of `block`. */
  readonly literal?: string;
}

const SYNTAX = /[\\^$.*+?()[\]{}|/]/g;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/** `text` as JavaScript `u`-mode source that matches it literally. */
export function escapeNative(text: string): string {
  return text.replace(SYNTAX, '\\$&');
}

/**
 * Translates RE2 source into native sources with the same per-line meaning, or answers
 * `undefined` when it cannot be sure (the caller then uses re2js). Anything the native
 * engine would read differently and that is not handled here makes `new RegExp` throw in
 * `u` mode, which also answers `undefined`.
 */
export function toNative(source: string, ignoreCase: boolean): NativePattern | undefined {
  let line = '';
  let block = '';
  let inClass = false;
  let classNegated = false;
  const emit = (l: string, b: string = l): void => {
    line += l;
    block += b;
  };
  for (let i = 0; i < source.length; i++) {
    const c = source[i] ?? '';
    if (c === '\\') {
      const e = source[i + 1];
      if (e === undefined) return undefined;
      i++;
      if (e >= '1' && e <= '9') return undefined; // RE2 octal, JS backreference
      if (e === '0' && /[0-9]/.test(source[i + 1] ?? '')) return undefined;
      if (ignoreCase && 'wWbB'.includes(e)) return undefined; // JS `iu` widens \w to ſ and K
      if (e === 'p' || e === 'P') {
        const close = source.indexOf('}', i);
        if (source[i + 1] !== '{' || close === -1) return undefined;
        const body = source.slice(i - 1, close + 1);
        i = close;
        if (e === 'P' && !inClass) emit(body, `[^${body.slice(0, 1)}p${body.slice(2)}\\n]`);
        else if (e === 'P') return undefined;
        else emit(body);
        continue;
      }
      if (inClass) {
        if (e === 's') emit('\\t\\n\\f\\r ', '\\t\\f\\r ');
        else if ('SDWP'.includes(e)) return undefined;
        else emit(`\\${e}`);
        continue;
      }
      if (e === 's') emit('[\\t\\n\\f\\r ]', '[\\t\\f\\r ]');
      else if (e === 'S') emit('[^\\t\\n\\f\\r ]');
      else if (e === 'D') emit('\\D', '[^0-9\\n]');
      else if (e === 'W') emit('\\W', '[^0-9A-Za-z_\\n]');
      else emit(`\\${e}`);
      continue;
    }
    if (inClass) {
      if (c === ']') {
        inClass = false;
        emit(']', classNegated ? '\\n]' : ']');
      } else if (c === '[') {
        return undefined; // [[:alpha:]] and friends
      } else {
        emit(c);
      }
      continue;
    }
    if (c === '[') {
      classNegated = source[i + 1] === '^';
      const first = source[i + (classNegated ? 2 : 1)];
      if (first === ']') return undefined; // RE2: a literal ]; JS: an empty class
      inClass = true;
      emit(classNegated ? '[^' : '[');
      if (classNegated) i++;
      continue;
    }
    if (c === '.') {
      emit('[^\\n]');
      continue;
    }
    if (c === '(' && source[i + 1] === '?') {
      const next = source[i + 2];
      if (next !== ':' && !(next === '<' && source[i + 3] !== '=' && source[i + 3] !== '!')) return undefined;
    }
    emit(c);
  }
  if (inClass) return undefined;
  const unicode = ignoreCase ? 'iu' : 'u';
  try {
    // `u` mode refuses every escape it does not know (`\z`, `\A`, `\Q`…), which plain mode
    // would read as letters: compiling with `u` is the check, whatever runs later.
    new RegExp(line, unicode);
    new RegExp(block, `${unicode}gm`);
  } catch {
    return undefined;
  }
  // Without `u` the native engine runs about twice as fast, and for an ASCII pattern with
  // nothing that can match one character of any kind (`[^…]`, `\S`, `\D`, `\W`, `\p`)
  // and no case folding, code units and code points give the same matches.
  const plain = !ignoreCase && isAscii(line) && !/\[\^|\\[SDWPpu]/.test(line);
  const flags = plain ? '' : unicode;
  return { line, block, flags };
}

/**
 * Compiles a grep pattern in the one dialect. A literal pattern is quoted first, so it
 * matches its text exactly.
 *
 * @throws SpillError `SPILL_INVALID_PATTERN` when RE2 refuses the pattern.
 */
export function compilePattern(Re2: Re2Engine, pattern: string, literal: boolean, ignoreCase: boolean): CompiledPattern {
  const source = literal ? Re2.quote(pattern) : pattern;
  const flags = ignoreCase ? Re2.CASE_INSENSITIVE : 0;
  let re2: RE2JS;
  try {
    re2 = Re2.compile(source, flags);
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    throw new SpillError(
      'SPILL_INVALID_PATTERN',
      `The grep pattern is not valid RE2 syntax (${why}). Backreferences and lookaround are not supported. Fix it, or pass literal: true to search for the text as is.`,
      { cause: error },
    );
  }
  const required = literal || ignoreCase ? undefined : requiredLiteral(pattern);
  const translated = literal ? toNative(escapeNative(pattern), ignoreCase) : toNative(pattern, ignoreCase);
  const native = translated === undefined || required === undefined ? translated : { ...translated, literal: required };
  return { re2, re2Source: source, re2Flags: flags, native, literal: required };
}
