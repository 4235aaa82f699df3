import { describe, expect, it } from 'vitest';
import type { SpillBackend } from './backend.js';
import { fileSinkOf, type SpillFileSink } from './file-sink.js';
import * as portable from './index.js';

const reject = (): Promise<never> => Promise.reject(new Error('not called'));
const base: SpillBackend = { specificationVersion: 'v1', name: 'plain', saveText: reject, saveTextStream: reject };

describe('fileSinkOf', () => {
  it("answers the backend's fileSink member when it is an object with an open method", () => {
    const sink: SpillFileSink = { open: reject };
    expect(fileSinkOf({ ...base, fileSink: sink } as SpillBackend)).toBe(sink);
  });

  it('answers undefined for a backend without one, or with a member that is not a sink', () => {
    expect(fileSinkOf(base)).toBeUndefined();
    for (const fileSink of [undefined, null, 0, 'sink', {}, { open: 'not a function' }, () => undefined]) {
      expect(fileSinkOf({ ...base, fileSink } as unknown as SpillBackend)).toBeUndefined();
    }
  });

  it('is not on the portable entry, which stays free of descriptors', () => {
    expect(Object.keys(portable)).not.toContain('fileSinkOf');
  });
});
