import jsonc from 'jsonc-parser';
import { parse as parseToml, patch as patchToml } from '@decimalturn/toml-patch';
import { SpillwayError } from '@spillway/core';
import type { ConfigPath } from './types.js';

/** A config file that could not be parsed: it is refused and left untouched. */
export class ConfigParseError extends SpillwayError<'SPILLWAY_CONFIG_UNPARSEABLE'> {
  /** The file. */
  readonly path: string;
  /**
   * @param path - the file
   * @param detail - what the parser said, and where
   */
  constructor(path: string, detail: string) {
    super('ConfigParseError', 'SPILLWAY_CONFIG_UNPARSEABLE', `Cannot parse ${path} (${detail}); it was left untouched. Fix it (or move it away) and run setup again.`);
    this.path = path;
  }
}

/**
 * A parsed config that edits itself in place: every change goes through the parser's own
 * edit operations, so comments, key order and formatting outside the changed values stay
 * byte for byte.
 */
export interface ConfigDocument {
  /** The current value (a plain object). */
  value(): Record<string, unknown>;
  /** Sets the value at `path` (creating objects on the way); `undefined` removes it. */
  set(path: ConfigPath, value: unknown): void;
  /** Appends `value` to the array at `path`. */
  append(path: ConfigPath, value: unknown): void;
  /** The text now. */
  text(): string;
  /**
   * Runs `edit` on the object at each of `paths` as a document of its own, and puts the
   * results back: for JSON, in one pass over the file, so that wrapping many servers of a
   * large file costs one parse, not one per server. The objects must not nest.
   */
  editEach(paths: readonly ConfigPath[], edit: (sub: ConfigDocument, index: number) => void): void;
}

/** `doc` seen from the object at `at`: every path is taken from there. */
function within(doc: ConfigDocument, at: ConfigPath): ConfigDocument {
  const getAt = (value: unknown): Record<string, unknown> => {
    let target: unknown = value;
    for (const key of at) target = (target as Record<string | number, unknown> | undefined)?.[key];
    return (target ?? {}) as Record<string, unknown>;
  };
  return {
    value: () => getAt(doc.value()),
    set: (path, next) => {
      doc.set([...at, ...path], next);
    },
    append: (path, next) => {
      doc.append([...at, ...path], next);
    },
    text: () => doc.text(),
    editEach(paths, edit) {
      paths.forEach((path, index) => {
        edit(within(doc, [...at, ...path]), index);
      });
    },
  };
}

function lineEnding(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** The indentation the file already uses (two spaces when it shows none). */
function indentation(text: string): { insertSpaces: boolean; tabSize: number } {
  const match = /\n([ \t]+)\S/.exec(text);
  if (match?.[1] === undefined) return { insertSpaces: true, tabSize: 2 };
  if (match[1].startsWith('\t')) return { insertSpaces: false, tabSize: 1 };
  return { insertSpaces: true, tabSize: match[1].length };
}

function lineOf(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/**
 * The value of a parse tree node. Every key becomes an own property, `__proto__` too (a
 * plain assignment would set the prototype and hide the entry). A key that appears twice in
 * one object is refused: hosts read the last copy, so an edit could not say which one counts.
 */
function nodeValue(path: string, text: string, node: jsonc.Node): unknown {
  switch (node.type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const property of node.children ?? []) {
        const [keyNode, valueNode] = property.children ?? [];
        if (keyNode === undefined) continue;
        const key = String(keyNode.value);
        if (Object.hasOwn(out, key)) {
          throw new ConfigParseError(path, `the key ${JSON.stringify(key)} appears twice in one object (again at line ${lineOf(text, keyNode.offset)}); the host reads only the last copy, so remove the other one`);
        }
        Object.defineProperty(out, key, { value: valueNode === undefined ? undefined : nodeValue(path, text, valueNode), enumerable: true, writable: true, configurable: true });
      }
      return out;
    }
    case 'array':
      return (node.children ?? []).map((child) => nodeValue(path, text, child));
    default:
      return node.value as unknown;
  }
}

function parseJsonc(path: string, text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  const errors: jsonc.ParseError[] = [];
  const tree = jsonc.parseTree(text, errors, { allowTrailingComma: true, disallowComments: false });
  const first = errors[0];
  if (first !== undefined) {
    const before = text.slice(0, first.offset);
    const line = before.split('\n').length;
    const column = first.offset - before.lastIndexOf('\n');
    throw new ConfigParseError(path, `${jsonc.printParseErrorCode(first.error)} at line ${line}, column ${column}`);
  }
  const value = tree === undefined ? undefined : nodeValue(path, text, tree);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ConfigParseError(path, 'the top level is not an object');
  return value as Record<string, unknown>;
}

/** Whether `text` is strict JSON: no comments, no trailing commas. */
export function isStrictJson(text: string): boolean {
  if (text.trim() === '') return true;
  const errors: jsonc.ParseError[] = [];
  jsonc.parse(text, errors, { allowTrailingComma: false, disallowComments: true });
  return errors.length === 0;
}

/** A JSON-with-comments document (also plain JSON). */
export function jsoncDocument(path: string, original: string): ConfigDocument {
  return jsoncDocumentWith(path, original, undefined);
}

function jsoncDocumentWith(path: string, original: string, formatting: jsonc.FormattingOptions | undefined): ConfigDocument {
  let text = original;
  // Parsed again only when asked for after an edit: a run of edits costs one parse each
  // (jsonc-parser's own), not two.
  let value: Record<string, unknown> | undefined = parseJsonc(path, text);
  const eol = lineEnding(text);
  const formattingOptions = formatting ?? { ...indentation(text), eol };
  const apply = (edits: jsonc.EditResult): void => {
    text = jsonc.applyEdits(text, edits);
    value = undefined;
  };
  const current = (): Record<string, unknown> => (value ??= parseJsonc(path, text));
  return {
    value: current,
    set(at, next) {
      if (text.trim() === '') {
        // jsonc-parser needs a document to edit.
        text = `{}${eol}`;
      }
      apply(jsonc.modify(text, [...at], next, { formattingOptions }));
    },
    append(at, next) {
      let target: unknown = current();
      for (const key of at) target = (target as Record<string | number, unknown> | undefined)?.[key];
      const length = Array.isArray(target) ? target.length : 0;
      if (!Array.isArray(target)) {
        this.set(at, [next]);
        return;
      }
      apply(jsonc.modify(text, [...at, length], next, { formattingOptions, isArrayInsertion: true }));
    },
    text: () => text,
    editEach(paths, edit) {
      const tree = jsonc.parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
      const nodes = paths.map((at) => (tree === undefined ? undefined : jsonc.findNodeAtLocation(tree, [...at])));
      if (nodes.some((node) => node?.type !== 'object')) {
        // Not all of them objects (cannot happen for server entries): one at a time.
        paths.forEach((at, index) => {
          edit(within(this, at), index);
        });
        return;
      }
      const edits: jsonc.Edit[] = [];
      nodes.forEach((node, index) => {
        if (node === undefined) return;
        // The object's own text, after the indentation of the line it starts on, so that
        // what the edit adds is indented as it would be in the whole file.
        const lineStart = text.lastIndexOf('\n', node.offset - 1) + 1;
        const indent = /^[ \t]*/.exec(text.slice(lineStart, node.offset))?.[0] ?? '';
        const sub = jsoncDocumentWith(path, indent + text.slice(node.offset, node.offset + node.length), formattingOptions);
        edit(sub, index);
        edits.push({ offset: node.offset, length: node.length, content: sub.text().slice(indent.length) });
      });
      text = jsonc.applyEdits(text, edits);
      value = undefined;
    },
  };
}

function parseTomlText(path: string, text: string): Record<string, unknown> {
  try {
    return parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const detail = error instanceof Error ? error.message.split('\n')[0] ?? 'a syntax error' : 'a syntax error';
    throw new ConfigParseError(path, detail);
  }
}

function setIn(root: Record<string, unknown>, at: ConfigPath, next: unknown): void {
  let target: Record<string | number, unknown> = root;
  for (const key of at.slice(0, -1)) {
    const child = target[key];
    if (child === null || typeof child !== 'object') target[key] = {};
    target = target[key] as Record<string | number, unknown>;
  }
  const last = at[at.length - 1];
  if (last === undefined) return;
  if (next === undefined) {
    if (Array.isArray(target) && typeof last === 'number') target.splice(last, 1);
    // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- a config key, removed on purpose
    else delete target[last];
  } else {
    target[last] = next;
  }
}

/**
 * A TOML document. Edits go through `@decimalturn/toml-patch`, which re-parses the text
 * and changes only the values that differ, keeping comments and layout.
 */
export function tomlDocument(path: string, original: string): ConfigDocument {
  let text = original;
  let value = parseTomlText(path, text);
  const commit = (next: Record<string, unknown>): void => {
    text = patchToml(text, next);
    value = parseTomlText(path, text);
  };
  return {
    value: () => value,
    // The parsed value is edited in place (a clone would turn TOML dates into plain ones);
    // commit re-parses the patched text, so the value always matches the text.
    set(at, next) {
      setIn(value, at, next);
      commit(value);
    },
    append(at, next) {
      const copy = value;
      let target: unknown = copy;
      for (const key of at) target = (target as Record<string | number, unknown> | undefined)?.[key];
      if (Array.isArray(target)) target.push(next);
      else setIn(copy, at, [next]);
      commit(copy);
    },
    text: () => text,
    editEach(paths, edit) {
      paths.forEach((at, index) => {
        edit(within(this, at), index);
      });
    },
  };
}
