import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FdOutput, type FallbackStream, type FdCalls } from './fd-output.js';

type Kind = 'fifo' | 'socket' | 'file' | 'tty' | 'null' | 'closed';

/** A stream standing in for process.stdout: keeps what it is given. */
class FakeStream extends EventEmitter {
  readonly got: Buffer[] = [];
  full = false;
  constructor(readonly isTTY: boolean) {
    super();
  }
  write(chunk: string | Uint8Array): boolean {
    this.got.push(Buffer.from(chunk));
    return !this.full;
  }
}

/** A descriptor of `kind` that takes at most `takes[i]` bytes on its i-th write, or fails with `fails[i]`. */
function fakeFd(kind: Kind, takes: readonly number[] = [], fails: ReadonlyMap<number, string> = new Map()) {
  const written: Buffer[] = [];
  let call = 0;
  let broken = 0;
  const calls: FdCalls = {
    fstat: () => {
      if (kind === 'closed') throw Object.assign(new Error('EBADF'), { code: 'EBADF' });
      return { isFIFO: () => kind === 'fifo', isSocket: () => kind === 'socket', isFile: () => kind === 'file' };
    },
    write: (_fd, buffer, offset, length) => {
      const i = call++;
      const code = fails.get(i);
      if (code !== undefined) throw Object.assign(new Error(code), { code });
      const n = Math.max(1, Math.min(length, takes[i % Math.max(1, takes.length)] ?? length));
      written.push(Buffer.from(buffer.subarray(offset, offset + n)));
      return n;
    },
    brokenPipe: () => {
      broken += 1;
      throw new Error('exited');
    },
  };
  return { calls, written, broken: () => broken };
}

const text = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 20 }));

describe('FdOutput', () => {
  it('writes a pipe, a socket or a file directly, every byte in order whatever each write takes', () => {
    fc.assert(
      fc.property(
        fc.constantFrom<Kind>('fifo', 'socket', 'file'),
        fc.array(text, { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 7 }), { maxLength: 5 }),
        (kind, chunks, takes) => {
          const fd = fakeFd(kind, takes);
          let built = 0;
          const out = new FdOutput(1, () => {
            built += 1;
            return new FakeStream(false) as unknown as FallbackStream;
          }, fd.calls);
          expect(out.isTTY).toBe(false);
          for (const chunk of chunks) expect(out.write(chunk)).toBe(true);
          expect(Buffer.concat(fd.written).toString('utf8')).toBe(chunks.join(''));
          expect(built).toBe(0);
        },
      ),
    );
  });

  it('hands the rest to the stream from the first write that fails (EAGAIN), and all that follows', () => {
    fc.assert(
      fc.property(fc.array(text, { minLength: 1, maxLength: 8 }), fc.nat({ max: 12 }), fc.array(fc.integer({ min: 1, max: 5 }), { maxLength: 4 }), (chunks, at, takes) => {
        const fd = fakeFd('fifo', takes, new Map([[at, 'EAGAIN']]));
        const stream = new FakeStream(false);
        const out = new FdOutput(1, () => stream as unknown as FallbackStream, fd.calls);
        for (const chunk of chunks) out.write(chunk);
        expect(Buffer.concat([...fd.written, ...stream.got]).toString('utf8')).toBe(chunks.join(''));
        if (stream.got.length > 0) expect(out.writesDirectly).toBe(false);
      }),
    );
  });

  it('returns what the stream returns once fallen back, and passes its drain on', () => {
    const fd = fakeFd('socket', [], new Map([[0, 'EAGAIN']]));
    const stream = new FakeStream(false);
    stream.full = true;
    const out = new FdOutput(1, () => stream as unknown as FallbackStream, fd.calls);
    expect(out.write('abc')).toBe(false);
    let drained = 0;
    out.on('drain', () => (drained += 1));
    stream.emit('drain');
    expect(drained).toBe(1);
    expect(Buffer.concat(stream.got).toString()).toBe('abc');
  });

  it('ends the process on EPIPE, a reader gone away', () => {
    const fd = fakeFd('fifo', [2], new Map([[1, 'EPIPE']]));
    const out = new FdOutput(1, () => new FakeStream(false) as unknown as FallbackStream, fd.calls);
    expect(() => out.write('abcdef')).toThrow('exited');
    expect(fd.broken()).toBe(1);
  });

  it('leaves a terminal, /dev/null or a descriptor fstat refuses to the stream, which knows isTTY', () => {
    for (const [kind, tty] of [['tty', true], ['null', false], ['closed', false]] as const) {
      const fd = fakeFd(kind);
      const stream = new FakeStream(tty);
      const out = new FdOutput(2, () => stream as unknown as FallbackStream, fd.calls);
      expect(out.isTTY).toBe(tty);
      expect(out.write('x\n')).toBe(true);
      expect(fd.written).toEqual([]);
      expect(Buffer.concat(stream.got).toString()).toBe('x\n');
    }
  });
});
