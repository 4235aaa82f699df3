import type { RegisterCommand } from './program.js';

/**
 * Each command's register function by its name, loaded on demand: a process that runs one
 * command loads that command's module and what it imports, not every command's. `COMMANDS`
 * (commands.ts) is the whole list, for help and for an unknown name.
 */
export const COMMAND_LOADERS: Readonly<Record<string, () => Promise<RegisterCommand>>> = {
  run: async () => (await import('./commands/run.js')).registerRun,
  save: async () => (await import('./commands/save.js')).registerSave,
  read: async () => (await import('./commands/read.js')).registerRead,
  cat: async () => (await import('./commands/cat.js')).registerCat,
  grep: async () => (await import('./commands/grep.js')).registerGrep,
  search: async () => (await import('./commands/search.js')).registerSearch,
  ls: async () => (await import('./commands/ls.js')).registerLs,
  rm: async () => (await import('./commands/rm.js')).registerRm,
  gc: async () => (await import('./commands/gc.js')).registerGc,
  mcp: async () => (await import('./commands/mcp.js')).registerMcp,
  setup: async () => (await import('./commands/setup.js')).registerSetup,
  doctor: async () => (await import('./commands/doctor.js')).registerDoctor,
  hook: async () => (await import('./commands/hook.js')).registerHook,
  stats: async () => (await import('./commands/stats.js')).registerStats,
  audit: async () => (await import('./commands/audit.js')).registerAudit,
  'gc-auto': async () => (await import('./commands/gc-auto.js')).registerGcAuto,
  'index-auto': async () => (await import('./commands/index-auto.js')).registerIndexAuto,
  'spill-stdout': async () => (await import('./commands/spill-stdout.js')).registerSpillStdout,
};
