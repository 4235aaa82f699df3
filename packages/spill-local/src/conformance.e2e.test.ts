import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeSpillBackend } from '@spillway/conformance';
import type { SpillBackendFixture } from '@spillway/conformance';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import type { LocalBackend } from './index.js';

interface LocalFixture extends SpillBackendFixture {
  readonly backend: LocalBackend;
  readonly root: string;
  /** Switch for the injected storage fault. */
  readonly fault: { on: boolean };
}

/** Whether a read-only bind mount can be made here (root with CAP_SYS_ADMIN). */
const canMount = ((): boolean => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spill-probe-bind-'));
  try {
    if (spawnSync('mount', ['--bind', dir, dir], { stdio: 'ignore' }).status !== 0) return false;
    spawnSync('umount', [dir], { stdio: 'ignore' });
    return true;
  } finally {
    fs.rmdirSync(dir);
  }
})();

function create(): LocalFixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'spill-conformance-'));
  fs.chmodSync(root, 0o700);
  const fault = { on: false };
  const enospc = (): Promise<never> => Promise.reject(Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' }));
  const ops: FsOps = {
    ...nodeFsOps,
    write: (...args) => (fault.on ? enospc() : nodeFsOps.write(...args)),
  };
  return {
    backend: createLocalBackendWith({ root }, { ops }),
    root,
    fault,
    cleanup: () => {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

describeSpillBackend<LocalFixture>({
  name: '@spillway/local',
  create,
  hooks: {
    // Where the machine allows it, a real read-only bind mount (EROFS); otherwise an
    // injected ENOSPC on every write.
    breakStorage: (fixture) => {
      if (canMount) {
        execFileSync('mount', ['--bind', fixture.root, fixture.root]);
        execFileSync('mount', ['-o', 'remount,bind,ro', fixture.root]);
        return () => {
          execFileSync('umount', [fixture.root]);
        };
      }
      fixture.fault.on = true;
      return () => {
        fixture.fault.on = false;
      };
    },
    listStored: (fixture) =>
      fs
        .readdirSync(fixture.root, { recursive: true, withFileTypes: true })
        .filter((d) => !d.isDirectory())
        .map((d) => path.relative(fixture.root, path.join(d.parentPath, d.name)).split(path.sep).join('/')),
  },
});
