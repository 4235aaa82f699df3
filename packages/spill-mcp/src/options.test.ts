import { describe, expect, it } from 'vitest';
import { checkOptions } from './options.js';

describe('createSpillProxy options', () => {
  const upstream = { command: 'node', args: ['server.mjs'] };

  it('refuses an unknown option at construction, with the options it accepts', () => {
    expect(() => checkOptions({ upstream, maxReadByte: 10 } as never)).toThrow(
      new TypeError(
        'createSpillProxy does not know the option "maxReadByte"; the options are upstream, backend, maxInlineBytes, sessionId, downstream, ' +
          'stderr, maxMessageBytes, requestTimeoutMs, maxReadBytes, maxGrepMatches, previewBytes, saveTimeoutMs, onEvent, search.',
      ),
    );
  });

  it('refuses a bad retrieval limit as the adapters do, naming createSpillProxy', () => {
    expect(() => checkOptions({ upstream, maxReadBytes: -1 })).toThrow(new TypeError('createSpillProxy: maxReadBytes must be a whole number, at least 1; got -1.'));
    expect(() => checkOptions({ upstream, maxGrepMatches: 0 })).toThrow(new TypeError('createSpillProxy: maxGrepMatches must be a whole number, at least 1; got 0.'));
  });

  it('takes every option it documents', () => {
    const resolved = checkOptions({
      upstream,
      backend: undefined,
      maxInlineBytes: 1,
      sessionId: 's',
      downstream: undefined,
      stderr: null,
      maxMessageBytes: 2048,
      requestTimeoutMs: 1,
      maxReadBytes: 1,
      maxGrepMatches: 1,
      previewBytes: 0,
      saveTimeoutMs: 1,
      onEvent: () => undefined,
      search: undefined,
    });
    expect(resolved).toMatchObject({ maxReadBytes: 1, maxGrepMatches: 1, label: 'node server.mjs' });
  });
});
