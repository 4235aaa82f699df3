import type { RegisterCommand } from './program.js';
import { registerAudit } from './commands/audit.js';
import { registerCat } from './commands/cat.js';
import { registerDoctor } from './commands/doctor.js';
import { registerGc } from './commands/gc.js';
import { registerGcAuto } from './commands/gc-auto.js';
import { registerGrep } from './commands/grep.js';
import { registerHook } from './commands/hook.js';
import { registerIndexAuto } from './commands/index-auto.js';
import { registerLs } from './commands/ls.js';
import { registerMcp } from './commands/mcp.js';
import { registerRead } from './commands/read.js';
import { registerRm } from './commands/rm.js';
import { registerRun } from './commands/run.js';
import { registerSave } from './commands/save.js';
import { registerSearch } from './commands/search.js';
import { registerSetup } from './commands/setup.js';
import { registerSpillStdout } from './commands/spill-stdout.js';
import { registerStats } from './commands/stats.js';

/** The commands of `spillway`, in the order `--help` lists them. */
export const COMMANDS: readonly RegisterCommand[] = [
  registerRun,
  registerSave,
  registerRead,
  registerCat,
  registerGrep,
  registerSearch,
  registerLs,
  registerRm,
  registerGc,
  registerMcp,
  registerSetup,
  registerDoctor,
  registerHook,
  registerStats,
  registerAudit,
  registerGcAuto,
  registerIndexAuto,
  registerSpillStdout,
];
