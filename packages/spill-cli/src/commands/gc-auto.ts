import { Command } from 'commander';
import { autoGcDue, autoGcSettings, releaseAutoGcLock, takeAutoGcLock, touchAutoGcStamp } from '../auto-gc.js';
import type { CliContext, CommonOptions } from '../context.js';
import { gcSearchIndex } from '../search-support.js';

/**
 * Registers the hidden `spillway gc-auto --root DIR`: the bounded sweep that the proxy and
 * the hooks start in a detached child (see docs/retention.md). It holds the root's lock,
 * so concurrent starts never sweep together; it prints nothing and always exits 0.
 */
export function registerGcAuto(program: Command, ctx: CliContext): void {
  program
    .command('gc-auto', { hidden: true })
    .description('Sweep the root by the automatic retention settings (started by the proxy and the hooks).')
    .option('--root <dir>', 'storage root')
    .option('--locked', 'the starting process holds the lock on this sweep\'s behalf')
    .action(async (options: CommonOptions & { readonly locked?: boolean }) => {
      const root = ctx.root(options).path;
      const release = (): void => {
        if (options.locked === true) releaseAutoGcLock(root);
      };
      const { createRetention, parseByteSize, parseDuration } = await import('@spillway/retention');
      const settings = autoGcSettings(ctx.io.env, ctx.io.homedir, parseDuration, parseByteSize);
      // The same checks as any use of a root: another user's, a shared or a linked root is not swept or stamped.
      const { createLocalBackend } = await import('@spillway/local');
      try {
        await createLocalBackend({ root, createRoot: false }).root();
      } catch {
        release();
        return;
      }
      if (!settings.enabled || (options.locked !== true && !takeAutoGcLock(root))) {
        release();
        return;
      }
      try {
        // Another process may have swept between our start and the lock.
        if (!autoGcDue(root, settings)) return;
        touchAutoGcStamp(root);
        const backend = ctx.backend(options);
        const retention = createRetention({ catalog: backend.catalog, maxAgeMs: settings.maxAgeMs, maxTotalBytes: settings.maxTotalBytes });
        const signal = AbortSignal.timeout(settings.budgetMs);
        await retention.sweep({ signal });
        // What the sweep deleted leaves the search index too, when there is one (within the same budget).
        await gcSearchIndex(backend, ctx.searchIndexPlace(options) ?? (await ctx.searchIndexLocation(options, backend)), signal);
      } catch {
        // A sweep that fails waits for the next interval; nobody is waiting on this process.
      } finally {
        releaseAutoGcLock(root);
      }
    });
}
