import { describeSpillFileSink } from './file-sink.js';
import { createReferenceSinkFixture, referenceSinkHooks } from './__tests__/reference-file-sink.js';

// The file-sink suite against a correct sink with every hook: every test must pass, none
// may be skipped (catches-file-sink-bugs.e2e.test.ts checks that none is).
describeSpillFileSink({
  name: 'reference file sink',
  create: () => createReferenceSinkFixture(),
  hooks: referenceSinkHooks(),
});

// The same sink without hooks: the tests that need them skip or say what they could not see.
describeSpillFileSink({
  name: 'reference file sink without hooks',
  create: () => createReferenceSinkFixture(),
  properties: { numRuns: 5 },
});
