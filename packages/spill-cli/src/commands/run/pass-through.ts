import { runChild } from '../../child.js';
import type { CliContext } from '../../context.js';
import { finish } from './shared.js';

/** Runs the command with its output printed as it arrives, byte for byte, and nothing stored. */
export async function passThrough(ctx: CliContext, file: string, args: readonly string[], onSpawn: (child: { pid?: number | undefined }) => void): Promise<void> {
  // On the process's own stdout the child writes there directly (`2>&1` included).
  const fd = ctx.stdoutFd;
  const outcome =
    fd === undefined
      ? await runChild(file, args, { onData: (bytes) => ctx.printBytes(bytes), onSpawn })
      : await runChild(file, args, { outputFd: fd, onSpawn });
  await finish(ctx, file, outcome);
}
