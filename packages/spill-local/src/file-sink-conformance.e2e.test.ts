import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SpillBackendFixture } from '@spillway/conformance';
import { describeSpillFileSink } from '@spillway/conformance/file-sink';
import { createLocalBackendWith } from './backend.js';
import { nodeFsOps } from './fs-ops.js';
import type { FsOps } from './fs-ops.js';
import type { LocalBackend } from './index.js';

interface LocalSinkFixture extends SpillBackendFixture {
  readonly backend: LocalBackend;
  readonly root: string;
  /** Switch for the injected failure of the publishing link. */
  readonly linkFault: { on: boolean };
}

function create(): LocalSinkFixture {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'spill-sink-conformance-'));
  fs.chmodSync(root, 0o700);
  const linkFault = { on: false };
  const ops: FsOps = {
    ...nodeFsOps,
    link: (...args) => (linkFault.on ? Promise.reject(Object.assign(new Error('EIO: injected'), { code: 'EIO' })) : nodeFsOps.link(...args)),
  };
  return {
    backend: createLocalBackendWith({ root }, { ops }),
    root,
    linkFault,
    cleanup: () => {
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}

// The Node-only file sink's own contract, beside the portable one (conformance.e2e.test.ts).
describeSpillFileSink<LocalSinkFixture>({
  name: '@spillway/local',
  create,
  hooks: {
    // Every file under the root, temporary ones included: the sink's temp file is one.
    listStored: (fixture) =>
      fs
        .readdirSync(fixture.root, { recursive: true, withFileTypes: true })
        .filter((d) => !d.isDirectory())
        .map((d) => path.relative(fixture.root, path.join(d.parentPath, d.name)).split(path.sep).join('/')),
    // A locator is the file's absolute path.
    locatorOf: (stored, fixture) => path.join(fixture.root, stored),
    breakPublish: (fixture) => {
      fixture.linkFault.on = true;
      return () => {
        fixture.linkFault.on = false;
      };
    },
  },
});
