import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, spillway } from './test-bin.js';
import { privateRootPerFile } from './test-temp-dirs.js';

// `spillway run` stores output byte for byte through the local file sink, yet its preview
// is the policy's: the error deep in the middle of a long log is excerpted with its line
// number, where a plain head and tail would leave it out.

let base: string;
let root: string;

beforeAll(() => {
  ensureBuilt();
});
privateRootPerFile('spillway-cli-run-preview-', (dirs) => {
  ({ base, root } = dirs);
});

const ERROR_LINE = 'src/app.ts(12345,7): error TS2322: Type "string" is not assignable to type "number".';

/** A node one-liner printing 40,000 info lines with the error at line 20,001. */
function script(): string {
  return `for (let i = 1; i <= 40000; i++) console.log(i === 20001 ? ${JSON.stringify(ERROR_LINE)} : 'info: built module ' + i);`;
}

describe('spillway run: the preview excerpts salient lines', () => {
  it('shows the error from the middle of the output with its line number, on the file-sink route', async () => {
    const r = await spillway(['run', '--max-inline-bytes', '8192', '--', process.execPath, '-e', script()], {
      env: { PATH: process.env.PATH, HOME: base, SPILLWAY_ROOT: root, NO_COLOR: '1', SPILLWAY_USAGE: 'off', SPILLWAY_AUTO_GC: 'off' },
    });
    expect(r.code).toBe(0);
    expect(Buffer.byteLength(r.out)).toBeLessThanOrEqual(8192 + 1); // the cap, plus the newline for the prompt
    expect(r.out).toContain(`[20001] ${ERROR_LINE}`);
    expect(r.out).toContain('info: built module 1\n');
    expect(r.out).toContain('info: built module 40000');
    expect(r.out).toMatch(/\(Omitted \d+ bytes\. Full formatted result stored at: /);
  });

  it('keeps the plain head and tail for an output with nothing salient', async () => {
    const plain = "for (let i = 1; i <= 40000; i++) console.log('info: built module ' + i);";
    const r = await spillway(['run', '--max-inline-bytes', '8192', '--', process.execPath, '-e', plain], {
      env: { PATH: process.env.PATH, HOME: base, SPILLWAY_ROOT: root, NO_COLOR: '1', SPILLWAY_USAGE: 'off', SPILLWAY_AUTO_GC: 'off' },
    });
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/^\[\d+\] /m);
    expect(r.out).toContain('info: built module 1\n');
    expect(r.out).toContain('info: built module 40000');
  });
});
