/**
 * A bounded in-process spillway backend with a reader and a catalog, for tests,
 * browsers, edge runtimes and short-lived agents. It imports nothing from Node.
 *
 * @packageDocumentation
 */
export {
  DEFAULT_MEMORY_MAX_ARTIFACTS,
  DEFAULT_MEMORY_MAX_BYTES,
  DEFAULT_MEMORY_MAX_TOMBSTONES,
  MAX_TOOL_NAME_LENGTH,
  MEMORY_RETRIEVAL_HINT,
  createMemoryBackend,
} from './memory-backend.js';
export type {
  MemoryBackend,
  MemoryBackendOptions,
  MemoryBackendStats,
  MemoryCatalog,
  MemorySpillEntry,
} from './memory-backend.js';
/** The longest grep pattern accepted; the retrieval engine's limit, the same on every backend. */
