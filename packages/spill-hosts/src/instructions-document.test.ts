import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ConfigParseError } from './document.js';
import { INSTRUCTIONS_KEY, instructionsDocument } from './instructions-document.js';

const BODY = '## Long command output\n\nRun it through spillway.\n';

describe('instructionsDocument', () => {
  it('appends the block after a blank line, replaces its body in place, and takes it out with that line', () => {
    const doc = instructionsDocument('AGENTS.md', '# Mine\n\nKeep tests green.\n');
    expect(doc.value()).toEqual({});
    doc.set([INSTRUCTIONS_KEY], BODY);
    expect(doc.text()).toBe(`# Mine\n\nKeep tests green.\n\n<!-- spillway:begin -->\n${BODY}<!-- spillway:end -->\n`);
    expect(doc.value()).toEqual({ [INSTRUCTIONS_KEY]: BODY });
    doc.set([INSTRUCTIONS_KEY], 'new body');
    expect(doc.text()).toBe('# Mine\n\nKeep tests green.\n\n<!-- spillway:begin -->\nnew body\n<!-- spillway:end -->\n');
    doc.set([INSTRUCTIONS_KEY], undefined);
    expect(doc.text()).toBe('# Mine\n\nKeep tests green.\n');
  });

  it('keeps what a person wrote after the block when the block changes or goes', () => {
    const doc = instructionsDocument('AGENTS.md', `intro\n\n<!-- spillway:begin -->\nold\n<!-- spillway:end -->\nafter, added by hand\n`);
    doc.set([INSTRUCTIONS_KEY], BODY);
    expect(doc.text()).toBe(`intro\n\n<!-- spillway:begin -->\n${BODY}<!-- spillway:end -->\nafter, added by hand\n`);
    doc.set([INSTRUCTIONS_KEY], undefined);
    expect(doc.text()).toBe('intro\nafter, added by hand\n');
  });

  it('refuses a file whose markers are unpaired, doubled or inside a line', () => {
    for (const text of ['<!-- spillway:begin -->\nno end\n', 'no begin\n<!-- spillway:end -->\n', 'x <!-- spillway:begin -->\n<!-- spillway:end -->\n', '<!-- spillway:begin -->\n<!-- spillway:end -->\n<!-- spillway:begin -->\n<!-- spillway:end -->\n']) {
      expect(() => instructionsDocument('AGENTS.md', text), text).toThrow(ConfigParseError);
    }
  });

  it('gives back any text without markers byte for byte once the block is set and taken out (property)', () => {
    const line = fc.string({ maxLength: 40 }).filter((s) => !s.includes('spillway:') && !s.includes('\n'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 8 }), fc.constantFrom('', '\n'), fc.string({ minLength: 1, maxLength: 60 }).filter((s) => !s.includes('<!--')), (lines, end, body) => {
        const text = lines.join('\n') + end;
        const doc = instructionsDocument('AGENTS.md', text);
        doc.set([INSTRUCTIONS_KEY], body);
        const withBlock = doc.text();
        expect(instructionsDocument('AGENTS.md', withBlock).value()).toEqual({ [INSTRUCTIONS_KEY]: body.endsWith('\n') ? body : `${body}\n` });
        doc.set([INSTRUCTIONS_KEY], body);
        expect(doc.text()).toBe(withBlock);
        doc.set([INSTRUCTIONS_KEY], undefined);
        // Text that did not end in a newline gets one before the blank line: that one stays.
        expect(doc.text()).toBe(text === '' || text.endsWith('\n') ? text : `${text}\n`);
      }),
    );
  });
});
