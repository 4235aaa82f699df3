// The CLI's backend types as this package's tests build doubles of them (excluded from the
// build by its name): the portable CLI backend plus the Node-only file sink, which the
// commands ask for through fileSinkOf and the tests replace, wrap or drop.
import type { NodeSpillBackend } from '@spillway/core/file-sink';
import { localBackendFactory as portableLocalBackendFactory, type CliBackend as PortableCliBackend } from './context.js';
import type { ResolvedRoot } from './options.js';

/** A backend the CLI can use, with the file sink a test may give, wrap or take away. */
export type CliBackend = PortableCliBackend & NodeSpillBackend;

/** Makes the backend for a command; what `main` takes as `backend`. */
export type BackendFactory = (root: ResolvedRoot) => CliBackend;

/** The CLI's default factory (the local backend, which has a file sink), typed with it. */
export const localBackendFactory: BackendFactory = portableLocalBackendFactory;
