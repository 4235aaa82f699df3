import { rmSync } from 'node:fs';
import { colorEnabled } from '@spillway/cli/internal';
import { runDemo } from './demo.js';

// `pnpm demo` entry point. An interrupted run still removes its temporary directory.
let tempDir: string | undefined;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    if (tempDir !== undefined) rmSync(tempDir, { recursive: true, force: true });
    process.exit(signal === 'SIGINT' ? 130 : 143);
  });
}

const summary = await runDemo({
  write: (text) => process.stdout.write(text),
  color: colorEnabled(process.stdout.isTTY, process.env),
  onTempDir: (dir) => {
    tempDir = dir;
  },
});
const mcpOk = summary.mcp === undefined || (summary.mcp.spilled && summary.mcp.needleFound);
const ok = mcpOk && summary.passes.every((p) => p.smallPassedThrough && p.bigSpilled && p.readLeftAlone && p.failureKeptInline && p.needleFoundAtLine !== undefined);
if (!ok) {
  process.stderr.write('spillway demo: a step did not behave as described above.\n');
  process.exitCode = 1;
}
