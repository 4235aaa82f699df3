/**
 * The building blocks of the `spillway` command, for the project's own tools (the demo)
 * and for commands added to it: formatting, colour, the child runner, option parsers,
 * store resolution. Internal: names here may change in any release; the stable surface is
 * the package's main entry.
 *
 * @packageDocumentation
 */
export { wantsJson } from './main.js';
export { localBackendFactory } from './context.js';
export { STORE_ENV, loadStoreSupport, openStore, resolveStore, type OpenStoreOptions, type ResolvedStore } from './store.js';
export { BACKENDS_ENV, loadBackendScheme, openLoadedBackend, schemeOf } from './backend-registry.js';
export { CLI_ERROR_MARKER, describeError, oneLine, type DescribedError } from './cli-error.js';
export { exitCodeForSpillError } from './exit-codes.js';
export {
  DEFAULT_MAX_INLINE_BYTES,
  DEFAULT_SESSION_ID,
  ROOT_ENV,
  SESSION_ENV,
  locatorArgument,
  nonNegativeInt,
  positiveInt,
  resolveRoot,
  resolveSession,
  type ResolvedRoot,
  type RootSource,
} from './options.js';
export { colorEnabled, makeStyle, type ColorEnv, type Style } from './color.js';
export {
  formatBytes,
  formatGrepMatches,
  formatReadLines,
  formatTimestamp,
  grepTrailer,
  readStoppedNote,
  readTrailer,
  splitLines,
} from './format.js';
export { runChild, exitCodeOf, FORWARDED_SIGNALS, type ChildOutcome, type RunChildOptions, type SignalSource } from './child.js';
