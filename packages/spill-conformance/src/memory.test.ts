import { createMemoryBackend } from '@spillway/memory';
import { describeSpillBackend } from './index.js';

// The suite against the real in-process backend. Its maxBytes is both the largest
// artifact it accepts and its total capacity, so it is set above everything one test
// stores (the 5 MiB large-content tests included).
const maxBytes = 8 * 1024 * 1024;
describeSpillBackend({
  name: '@spillway/memory',
  create: () => ({ backend: createMemoryBackend({ maxBytes }) }),
  hooks: { maxArtifactBytes: maxBytes },
});
