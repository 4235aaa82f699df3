// Run by catches-bugs.e2e.test.ts in a child vitest: the suite against the reference backend
// once without a bug (every test must pass) and once per deliberate bug (some must fail).
import { describeSpillBackend } from '../describe-spill-backend.js';
import { CONTROL_NAME, mutantName } from './mutants.js';
import { REFERENCE_BUGS, createReferenceFixture, referenceHooks, type ReferenceBug } from './reference-backend.js';

const maxArtifactBytes = 256 * 1024;
// Small sizes keep twenty full runs of the suite (the control and one per bug) to seconds each.
// A fixed seed makes which property runs are drawn the same in every run: with a fresh seed
// each time, eight runs of a property sometimes drew no input that meets a bug, and the
// self-test failed now and then for no change at all.
const fast = {
  concurrency: 100,
  largeContentBytes: 64 * 1024,
  properties: { numRuns: 8, modelRuns: 4, maxCommands: 20, endOnFailure: true, seed: 20_240_601 },
};

function register(name: string, bug?: ReferenceBug): void {
  const options = { maxArtifactBytes, ...(bug === undefined ? {} : { bug }) };
  describeSpillBackend({ name, create: () => createReferenceFixture(options), hooks: referenceHooks(options), ...fast });
}

register(CONTROL_NAME);
for (const bug of REFERENCE_BUGS) register(mutantName(bug), bug);
