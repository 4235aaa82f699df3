import type { SpillRef } from '@spillway/core';
import { resolveConformanceOptions, type Awaitable, type ResolvedConformanceOptions, type RestoreStorage, type SpillBackendFixture } from './options.js';

/**
 * What the file-sink suite cannot learn through the backend: where its files are. Every
 * hook is optional; a test that needs a missing one is skipped with a note saying which.
 *
 * @typeParam F - the fixture type returned by `create`
 */
export interface SpillFileSinkHooks<F extends SpillBackendFixture = SpillBackendFixture> {
  /**
   * Lists where stored data physically lives, one string per file (relative to the root,
   * `/` between levels), temporary files included: for a directory backend, every file
   * under its root. The suite compares snapshots to prove that a sink closed without
   * publishing, and one whose publish failed, leaves no file behind.
   */
  readonly listStored?: (fixture: F) => Awaitable<readonly string[]>;
  /**
   * The locator that would name a file `listStored` reported (for a directory backend
   * whose locators are paths, the file's absolute path). The suite asks the reader for the
   * temporary file of an open sink by it, and expects a refusal.
   */
  readonly locatorOf?: (stored: string, fixture: F) => Awaitable<string>;
  /**
   * The stored bytes of a published artifact, for a backend whose reader has no
   * `readBytes`. With `readBytes`, the suite reads through it and ignores this hook.
   */
  readonly readBack?: (ref: SpillRef, fixture: F) => Awaitable<Uint8Array>;
  /**
   * Makes the next publishes on this fixture's backend fail at the storage level (an
   * injected `link` or rename failure, a read-only directory that still lets the
   * temporary file be removed) and returns a function that repairs it.
   */
  readonly breakPublish?: (fixture: F) => Awaitable<RestoreStorage>;
}

/**
 * Options for `describeSpillFileSink`.
 *
 * @typeParam F - the fixture type returned by `create`
 */
export interface DescribeSpillFileSinkOptions<F extends SpillBackendFixture = SpillBackendFixture> {
  /** Names the backend in test titles. */
  readonly name: string;
  /**
   * Makes a fresh, isolated backend that offers a file sink (`fileSinkOf(backend)` of
   * `@spillway/core/file-sink` answers it). Called once per test and per property run.
   */
  readonly create: () => Awaitable<F>;
  /** Where the files are; see {@link SpillFileSinkHooks}. */
  readonly hooks?: SpillFileSinkHooks<F>;
  /** fast-check settings of the property: runs (default 20), a seed to replay, `endOnFailure`. */
  readonly properties?: { readonly numRuns?: number; readonly seed?: number; readonly endOnFailure?: boolean };
  /** Timeout of each test, in milliseconds. Default 60000. */
  readonly testTimeoutMs?: number;
}

/** The file-sink suite's options with the defaults filled in. */
export interface ResolvedFileSinkOptions<F extends SpillBackendFixture> {
  /** What the shared harness needs (name, create, `listStored`, `readBack`, fast-check settings). */
  readonly base: ResolvedConformanceOptions<F>;
  /** The hooks given, or none. */
  readonly hooks: SpillFileSinkHooks<F>;
}

const OPTION_KEYS = ['name', 'create', 'hooks', 'properties', 'testTimeoutMs'];
const HOOK_KEYS = ['listStored', 'locatorOf', 'readBack', 'breakPublish'];
const PROPERTY_KEYS = ['numRuns', 'seed', 'endOnFailure'];

function optionError(message: string): TypeError {
  return new TypeError(`describeSpillFileSink: ${message}`);
}

function plainObject(what: string, value: unknown): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw optionError(`${what} must be an object when given.`);
  return value as Record<string, unknown>;
}

function knownKeys(what: string, value: Record<string, unknown> | undefined, allowed: readonly string[]): void {
  for (const key of Object.keys(value ?? {})) {
    if (!allowed.includes(key)) throw optionError(`unknown ${what} "${key}"; the known ones are ${allowed.join(', ')}.`);
  }
}

/**
 * Checks the options of `describeSpillFileSink` and fills in the defaults.
 *
 * @throws TypeError naming the bad option: an unknown key (a typo would otherwise silently
 * skip tests), a hook that is not a function, a missing name or create, a bad count.
 */
export function resolveFileSinkOptions<F extends SpillBackendFixture>(options: DescribeSpillFileSinkOptions<F>): ResolvedFileSinkOptions<F> {
  const raw = plainObject('the options', options);
  if (raw === undefined) throw optionError('pass an options object with name and create.');
  knownKeys('option', raw, OPTION_KEYS);
  const hooks = plainObject('hooks', raw.hooks);
  knownKeys('hook', hooks, HOOK_KEYS);
  for (const key of HOOK_KEYS) {
    if (hooks?.[key] !== undefined && typeof hooks[key] !== 'function') throw optionError(`hooks.${key} must be a function when given.`);
  }
  knownKeys('property option', plainObject('properties', raw.properties), PROPERTY_KEYS);
  const given = options.hooks ?? {};
  let base: ResolvedConformanceOptions<F>;
  try {
    base = resolveConformanceOptions<F>({
      name: options.name,
      create: options.create,
      hooks: {
        ...(given.listStored === undefined ? {} : { listStored: given.listStored }),
        ...(given.readBack === undefined ? {} : { readBack: given.readBack }),
      },
      ...(options.properties === undefined ? {} : { properties: options.properties }),
      ...(options.testTimeoutMs === undefined ? {} : { testTimeoutMs: options.testTimeoutMs }),
    });
  } catch (error) {
    // The checks of name, create and the counts are describeSpillBackend's: say whose options they are.
    if (error instanceof TypeError) throw optionError(error.message.replace(/^describeSpillBackend: /, ''));
    throw error;
  }
  return { base, hooks: given };
}
