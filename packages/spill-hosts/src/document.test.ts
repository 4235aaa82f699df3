import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsoncDocument } from './document.js';

// editEach writes many entries of a large file in one pass. It must give the very text that
// setting each value in turn gives, comments and layout included.

const name = fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/);
const word = fc.stringMatching(/^[A-Za-z0-9./@-]{1,12}$/);

const entry = fc.record({
  command: word,
  args: fc.option(fc.array(word, { maxLength: 4 }), { nil: undefined }),
  env: fc.option(fc.dictionary(name, word, { maxKeys: 2 }), { nil: undefined }),
  comment: fc.boolean(),
  oneLine: fc.boolean(),
});

interface Entry {
  readonly command: string;
  readonly args: string[] | undefined;
  readonly env: Record<string, string> | undefined;
  readonly comment: boolean;
  readonly oneLine: boolean;
}

function render(servers: readonly (readonly [string, Entry])[], indent: string): string {
  const lines = servers.map(([key, e]) => {
    const fields = [`"command": ${JSON.stringify(e.command)}`];
    if (e.args !== undefined) fields.push(`"args": ${JSON.stringify(e.args)}`);
    if (e.env !== undefined) fields.push(`"env": ${JSON.stringify(e.env)}`);
    const body = e.oneLine ? `{ ${fields.join(', ')} }` : `{\n${fields.map((f) => `${indent}${indent}${indent}${f}`).join(',\n')}\n${indent}${indent}}`;
    return `${e.comment ? `${indent}${indent}// ${key}\n` : ''}${indent}${indent}${JSON.stringify(key)}: ${body}`;
  });
  return `{\n${indent}// my servers\n${indent}"mcpServers": {\n${lines.join(',\n')}\n${indent}},\n${indent}"theme": "dark"\n}\n`;
}

describe('editEach', () => {
  it('gives the same text as setting each entry in turn', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, entry), { minLength: 1, maxLength: 6, selector: ([key]) => key }), fc.constantFrom('  ', '    ', '\t'), fc.array(word, { minLength: 1, maxLength: 5 }), (servers, indent, newArgs) => {
        const text = render(servers, indent);
        const paths = servers.map(([key]) => ['mcpServers', key]);
        const one = jsoncDocument('config.json', text);
        for (const path of paths) {
          one.set([...path, 'command'], '/usr/bin/node');
          one.set([...path, 'args'], newArgs);
        }
        const batched = jsoncDocument('config.json', text);
        batched.editEach(paths, (sub) => {
          sub.set(['command'], '/usr/bin/node');
          sub.set(['args'], newArgs);
        });
        expect(batched.text()).toBe(one.text());
        expect(batched.value()).toEqual(one.value());
      }),
      { numRuns: 300 },
    );
  });
});
