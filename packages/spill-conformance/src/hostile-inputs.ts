/**
 * Suggested names that try to steer where data goes or to break whatever turns a name
 * into a storage key: traversal, absolute paths, separators (ASCII, Windows and Unicode
 * look-alikes), reserved device names, control and bidi characters, lone surrogates and
 * over-long names. Each entry is `[label, name]`; the label is printable, for test titles.
 *
 * A backend must save every one of them, store the content verbatim, and put the
 * artifact where it would put one with a plain name.
 */
export const HOSTILE_SUGGESTED_NAMES: readonly (readonly [label: string, name: string])[] = [
  ['parent traversal ../x', '../x'],
  ['deep traversal to /etc/passwd', '../../../../../../../../etc/passwd'],
  ['absolute path /etc/passwd', '/etc/passwd'],
  ['nested a/b', 'a/b'],
  ['traversal after a NUL', 'a\u0000/../../x'],
  ['a single dot', '.'],
  ['two dots', '..'],
  ['three dots', '...'],
  ['the empty string', ''],
  ['a lone NUL', '\u0000'],
  ['a NUL inside', 'evil\u0000.txt'],
  ['a backslash', '\\'],
  ['Windows traversal ..\\..\\x', '..\\..\\windows\\win.ini'],
  ['control characters and an ANSI escape', '\u0001\u0002\u001b[31mred\u007f.txt'],
  ['a newline', 'line\nbreak.txt'],
  ['a carriage return', 'cr\rname.txt'],
  ['a tab only', '\t'],
  ['spaces only', '   '],
  ['a right-to-left override', '\u202Etxt.exe'],
  ['bidi isolates', '\u2066isolate\u2069.txt'],
  ['the device name CON', 'CON'],
  ['the device name nul.txt', 'nul.txt'],
  ['the device name COM1', 'COM1'],
  ['the device name aux.log', 'aux.log'],
  ['a trailing dot and space', 'name. '],
  ['Windows-reserved characters', '*?<>|:"'],
  ['a leading dash', '-rf'],
  ['a leading double dash', '--help'],
  ['a leading dot', '.hidden'],
  ['a dotfile', '.bashrc'],
  ['300 ASCII bytes', 'a'.repeat(300)],
  ['300 bytes of two-byte characters', '\u00e9'.repeat(150)],
  ['300 bytes of emoji', '\u{1F600}'.repeat(75)],
  ['4096 bytes', 'x'.repeat(4096)],
  ['a fullwidth solidus a\uFF0Fb', 'a\uFF0Fb'],
  ['fullwidth traversal ..\uFF0F..\uFF0Fx', '..\uFF0F..\uFF0Fetc\uFF0Fpasswd'],
  ['fullwidth dots \uFF0E\uFF0E/x', '\uFF0E\uFF0E/x'],
  ['a division slash', 'a\u2215b'],
  ['a fraction slash', 'a\u2044b'],
  ['a ligature that NFKC unfolds', '\uFB01le.txt'],
  ['a decomposed accent', 'e\u0301.txt'],
  ['URL-encoded traversal', '%2e%2e%2fx'],
  ['a home-directory path', '~/x'],
  ['a shell variable', '$HOME/x'],
  ['a file URL', 'file:///etc/passwd'],
  ['a locator look-alike', 'spill+memory://other-session/abc'],
  ['a lone high surrogate', '\uD800'],
  ['a lone low surrogate inside', 'a\uDFFFb'],
];

/**
 * Session ids that must each get their own, separate space: traversal, separators, NUL,
 * ids that differ only in a lone surrogate (`"s\uD800"` and `"s\uDFFF"` collide when
 * hashed as UTF-8), ids that are prefixes of each other, and a very long id.
 * Each entry is `[label, sessionId]`.
 */
export const HOSTILE_SESSION_IDS: readonly (readonly [label: string, sessionId: string])[] = [
  ['parent traversal ../x', '../x'],
  ['a slash', '/'],
  ['nested a/b', 'a/b'],
  ['a', 'a'],
  ['a single dot', '.'],
  ['two dots', '..'],
  ['a NUL', '\u0000'],
  ['a lone high surrogate s\\uD800', 's\uD800'],
  ['a lone low surrogate s\\uDFFF', 's\uDFFF'],
  ['U+FFFD, what a lone surrogate becomes in UTF-8', 's\uFFFD'],
  ['a right-to-left override', '\u202Esession'],
  ['the device name CON', 'CON'],
  ['a space', ' '],
  ['10000 characters', 's'.repeat(10_000)],
];

/**
 * The naming rule every backend shares, as examples: a suggested name and the safe name it
 * becomes after the random prefix (`<20 hex>-<name>`), written out by hand so that the
 * suite checks the rule rather than repeating its code. The extension is kept and never
 * added (`README` stays `README`), separators and other characters become `_`, and a name
 * that reduces to nothing becomes `result.txt`.
 */
export const NAMING_EXAMPLES: readonly (readonly [suggested: string, leafName: string])[] = [
  ['notes.md', 'notes.md'],
  ['page.html', 'page.html'],
  ['README', 'README'],
  ['build output (1).log', 'build_output_1.log'],
  ['../x', 'x'],
  ['/etc/passwd', 'etc_passwd'],
  ['', 'result.txt'],
  ['.hidden', 'hidden'],
  ['a\uFF0Fb.txt', 'a_b.txt'],
  ['Отчёт.txt', 'Отчёт.txt'],
];
