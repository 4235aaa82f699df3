/**
 * The `spillway` command as a library: build the program, run it with injected I/O, or
 * reuse its pieces (exit codes, formatting, the child runner) in another CLI.
 *
 * @packageDocumentation
 */
export { main, processIO, wantsJson, type MainOptions } from './main.js';
export { buildProgram, COMMANDS, type RegisterCommand } from './program.js';
export {
  CliContext,
  addCommonOptions,
  localBackendFactory,
  type BackendFactory,
  type CliBackend,
  type CliIO,
  type CommonOptions,
  type OutputStream,
  type StoreFactory,
} from './context.js';
export { STORE_ENV, loadStoreSupport, openStore, resolveStore, type ResolvedStore } from './store.js';
export { CliError, describeError, oneLine, type CliErrorCode, type DescribedError } from './cli-error.js';
export { EXIT_CODES, exitCodeForSpillError } from './exit-codes.js';
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
  readTrailer,
  splitLines,
} from './format.js';
export { runChild, exitCodeOf, FORWARDED_SIGNALS, type ChildOutcome, type RunChildOptions, type SignalSource } from './child.js';
export type { ErrorJson, GrepJson, GrepMatchJson, LsEntryJson, ReadJson, RmJson, RunJson, SaveJson } from './json.js';
