// Run by catches-file-sink-bugs.e2e.test.ts in a child vitest: the file-sink suite against
// the reference file sink once without a bug (every test must pass) and once per
// deliberate bug (the tests aimed at it must fail).
import { describeSpillFileSink } from '../describe-spill-file-sink.js';
import { FILE_SINK_CONTROL_NAME, fileSinkMutantName } from './file-sink-mutants.js';
import { FILE_SINK_BUGS, createReferenceSinkFixture, referenceSinkHooks, type FileSinkBug } from './reference-file-sink.js';

// A fixed seed draws the same property runs every time, so the self-test never flickers.
const properties = { numRuns: 10, endOnFailure: true, seed: 20_240_601 };

function register(name: string, bug?: FileSinkBug): void {
  describeSpillFileSink({ name, create: () => createReferenceSinkFixture(bug), hooks: referenceSinkHooks(), properties });
}

register(FILE_SINK_CONTROL_NAME);
for (const bug of FILE_SINK_BUGS) register(fileSinkMutantName(bug), bug);
