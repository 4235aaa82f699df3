/**
 * Agent host configuration for spillway: `setupHost` wraps every MCP server a host is
 * configured with and installs spillway's output hook where the host has one; `undoHost`
 * takes exactly that back. Edits go through parsers that keep comments and formatting.
 *
 * @packageDocumentation
 */
export { setupHost, undoHost, type SetupOptions } from './setup.js';
export { undoRecordPath } from './undo-records.js';
export {
  diagnoseHost,
  type DiagnosedFile,
  type DiagnosedHook,
  type DiagnosedServer,
  type DiagnosedSetting,
  type DiagnosisCode,
  type ForeignHook,
  type HostDiagnosis,
} from './diagnosis.js';
export { MAX_CONFIG_BYTES } from './limits.js';
export { HOSTS, hostFiles } from './hosts.js';
export { ConfigParseError } from './document.js';
export { wrapCommand, unwrapCommand, parseWrapper, hookCommandLine, claudeCodeShellScript, type CommandLine, type SpillwayWrapper, shellQuote } from './command.js';
export {
  HOST_IDS,
  isHostId,
  type ConfigFileSpec,
  type ConfigPath,
  type FileReport,
  type HostDefinition,
  type HostId,
  type HookSpec,
  type SetupEnvironment,
  type SetupReport,
  type SpillwayCommand,
} from './types.js';
