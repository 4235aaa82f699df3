/**
 * Makes a reader that goes away (`spillway read … | head`) end the process with its exit
 * code so far, instead of a stack trace: an `EPIPE` on stdout or stderr is not a failure.
 */
export function exitOnBrokenPipe(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
}
