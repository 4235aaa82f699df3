import { describeSpillBackend } from './index.js';
import { createReferenceFixture, listStoredReference, readBackReference, referenceHooks } from './__tests__/reference-backend.js';

// The suite against a correct backend with every capability and every hook: every test
// must pass, none may be skipped.
const maxArtifactBytes = 6 * 1024 * 1024;
describeSpillBackend({
  name: 'reference backend',
  create: () => createReferenceFixture({ maxArtifactBytes }),
  hooks: referenceHooks({ maxArtifactBytes }),
});

// The same backend without reader and catalog: round trips go through hooks.readBack and
// the capability tests skip themselves.
describeSpillBackend({
  name: 'reference backend without reader or catalog',
  create: () => createReferenceFixture({ reader: false, catalog: false }),
  hooks: { readBack: readBackReference, listStored: listStoredReference },
  concurrency: 200,
  largeContentBytes: 1024 * 1024,
  properties: { numRuns: 10, modelRuns: 5 },
});
