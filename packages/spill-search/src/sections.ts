/**
 * Section lines: the line that tells what the lines below it belong to, shown above a
 * snippet so that a hit in the middle of a `git log -p` or a `dpkg -s` says which commit,
 * file or package it is in.
 */

/** The longest section text kept, in UTF-16 code units. */
export const MAX_SECTION_LENGTH = 200;

const SECTION = new RegExp(
  [
    '^commit [0-9a-f]{7,64}\\b', // git log
    '^diff --git ', // git diff, git log -p
    '^Index: ', // svn diff
    '^(?:Package|Source): \\S', // dpkg -s, apt-cache show, Packages files
    '^==> .+ <==$', // head/tail over several files
    '^#{1,6} \\S', // Markdown headings
    '^\\S[^\\t]*:$', // ls -R directory headers, "Usage:"-style blocks
    '^\\[[^\\]\\s][^\\]]*\\]$', // INI sections
    '^(?:FAIL|PASS) \\S', // test runners
  ].join('|'),
);

/** True when a line opens a section. */
export function isSectionLine(line: string): boolean {
  return line.length <= 4 * MAX_SECTION_LENGTH && SECTION.test(line);
}

/** A section line as stored: cut to {@link MAX_SECTION_LENGTH}. */
export function sectionText(line: string): string {
  if (line.length <= MAX_SECTION_LENGTH) return line;
  const cut = line.slice(0, MAX_SECTION_LENGTH);
  // Never end on the first half of a surrogate pair.
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
