import type { SpillBackend } from './backend.js';
import { SpillError } from './errors.js';

/**
 * The version of the {@link SpillBackend} interface this release of core defines. Every
 * backend declares it as `specificationVersion`; consumers refuse any other value.
 */
export const SPILL_BACKEND_SPECIFICATION_VERSION = 'v1';

function describe(value: unknown): string {
  return typeof value === 'string' ? `'${value.slice(0, 40)}'` : value === undefined ? 'none' : typeof value;
}

/**
 * Checks that `backend` is an object that implements the seam version this release
 * speaks ({@link SPILL_BACKEND_SPECIFICATION_VERSION}). `consumer` names the caller in the
 * message, such as `'createSpillPolicy'`.
 *
 * @throws SpillError `SPILL_INVALID_INPUT` when `backend` is not an object, or declares
 * another `specificationVersion` or none; the message says which version is expected and
 * what to do.
 */
export function assertSpillBackendVersion(backend: unknown, consumer: string): asserts backend is SpillBackend {
  if (typeof backend !== 'object' || backend === null) {
    throw new SpillError('SPILL_INVALID_INPUT', `${consumer} needs a SpillBackend object; got ${backend === null ? 'null' : typeof backend}.`);
  }
  const { specificationVersion: version, name } = backend as { specificationVersion?: unknown; name?: unknown };
  if (version === SPILL_BACKEND_SPECIFICATION_VERSION) return;
  const who = typeof name === 'string' && name !== '' ? `The ${name.slice(0, 40)} backend` : 'The backend';
  throw new SpillError(
    'SPILL_INVALID_INPUT',
    `${who} declares specificationVersion ${describe(version)}, but ${consumer} speaks '${SPILL_BACKEND_SPECIFICATION_VERSION}'. ` +
      `Use a backend built for @spillway/core's '${SPILL_BACKEND_SPECIFICATION_VERSION}' seam (a backend written for it declares specificationVersion: '${SPILL_BACKEND_SPECIFICATION_VERSION}'), or upgrade the packages so that both speak the same version.`,
  );
}
