/**
 * The `spillway` command as a library: run it with injected I/O ({@link main}), or build
 * the program with your own list of commands ({@link buildProgram}, {@link COMMANDS}), each
 * registered on the shared {@link CliContext}. The CLI's building blocks (formatting,
 * colour, the child runner, option parsers) are at `@spillway/cli/internal`, with no
 * promise of stability.
 *
 * @packageDocumentation
 */
export { main, processIO, type MainOptions } from './main.js';
export { buildProgram, type RegisterCommand } from './program.js';
export { COMMANDS } from './commands.js';
export {
  CliContext,
  addCommonOptions,
  type BackendFactory,
  type CliBackend,
  type CliIO,
  type CommonOptions,
  type OutputStream,
  type StoreFactory,
} from './context.js';
export { openBackendUrl, type BackendUrlContext, type BackendUrlFactory } from './backend-registry.js';
export { CliError, isCliError, type CliErrorCode } from './cli-error.js';
export { EXIT_CODES } from './exit-codes.js';
export type { ErrorJson, GrepJson, GrepMatchJson, LsEntryJson, ReadJson, RmJson, RunJson, SaveJson } from './json.js';
