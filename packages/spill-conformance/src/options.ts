import { wholeNumberProblem } from '@spillway/core';
import type { SpillBackend, SpillRef, SpillSearcher } from '@spillway/core';

/** A value or a promise of it. */
export type Awaitable<T> = T | Promise<T>;

/**
 * What `create` returns: a fresh backend, isolated from every other fixture, and how to
 * dispose of it. Add any fields your hooks need (a root directory, a fault switch…);
 * the hooks receive the whole fixture.
 */
export interface SpillBackendFixture {
  /** The backend under test. Nothing else may use its storage while the test runs. */
  readonly backend: SpillBackend;
  /** Called once after the test, even when it failed: remove directories, close handles. */
  readonly cleanup?: () => Awaitable<void>;
}

/** Puts storage back after {@link SpillBackendHooks.breakStorage}. */
export type RestoreStorage = () => Awaitable<void>;

/**
 * What the suite cannot learn through the `SpillBackend` interface. Every hook is
 * optional; a test that needs a missing hook is skipped with a note saying which.
 *
 * @typeParam F - the fixture type returned by `create`
 */
export interface SpillBackendHooks<F extends SpillBackendFixture = SpillBackendFixture> {
  /**
   * Reads back a stored artifact for a backend without a `reader`: the exact text
   * stored, or its raw bytes (then compared byte for byte with the UTF-8 encoding).
   * With a `reader`, the suite reads through it instead and ignores this hook.
   */
  readonly readBack?: (ref: SpillRef, fixture: F) => Awaitable<string | Uint8Array>;
  /**
   * Makes the next saves on this fixture's backend fail at the storage level (a
   * read-only directory, a full disk, an injected fault) and returns a function that
   * repairs it. Used to prove that a storage failure rejects with a `SpillError` and
   * publishes nothing.
   */
  readonly breakStorage?: (fixture: F) => Awaitable<RestoreStorage>;
  /**
   * Lists where stored data physically lives, one string per stored object (a file
   * path relative to the root, an object key, a row id), with `/` between levels.
   * Include temporary objects; directories may be left out. The suite compares
   * snapshots: a successful save adds exactly one entry next to where a plainly named
   * artifact of the same session lands, and a failed save adds nothing.
   */
  readonly listStored?: (fixture: F) => Awaitable<readonly string[]>;
  /**
   * The largest artifact, in UTF-8 bytes, this backend accepts (for example the memory
   * backend's `maxBytes`). The suite then checks that exactly this size saves and one
   * byte more rejects with `SPILL_TOO_LARGE`, and sizes its large-content tests to fit.
   */
  readonly maxArtifactBytes?: number;
}

/** A searcher the search tests run, and how to let go of it. */
export type ConformanceSearcher = SpillSearcher & { close?(): Awaitable<void> };

/**
 * Makes a searcher over the fixture's backend for one search test; `close`, when there
 * is one, is called when the test ends.
 *
 * @typeParam F - the fixture type returned by `create`
 */
export type ConformanceSearchFactory<F extends SpillBackendFixture = SpillBackendFixture> = (backend: SpillBackend, fixture: F) => Awaitable<ConformanceSearcher>;

/** fast-check settings for the property-based tests. */
export interface PropertyOptions {
  /** Runs per property. Default 20: enough to catch the usual bugs in seconds. */
  readonly numRuns?: number;
  /** Runs of the model-based test (each a sequence of up to `maxCommands` commands). Default 10. */
  readonly modelRuns?: number;
  /** Most commands in one model-based run. Default 25. */
  readonly maxCommands?: number;
  /** A fixed seed, to replay a failure that fast-check reported. */
  readonly seed?: number;
  /** Stop at the first failure without shrinking it (faster, less readable). Default false. */
  readonly endOnFailure?: boolean;
}

/**
 * Options for {@link describeSpillBackend}.
 *
 * @typeParam F - the fixture type returned by `create`
 */
export interface DescribeSpillBackendOptions<F extends SpillBackendFixture = SpillBackendFixture> {
  /** Names the backend in test titles. */
  readonly name: string;
  /**
   * Makes a fresh, isolated backend. Called once per test (and once per property run),
   * so keep it cheap; each fixture's `cleanup` runs when its test ends.
   */
  readonly create: () => Awaitable<F>;
  /** What the suite cannot learn through the interface; see {@link SpillBackendHooks}. */
  readonly hooks?: SpillBackendHooks<F>;
  /** fast-check settings; see {@link PropertyOptions}. */
  readonly properties?: PropertyOptions;
  /** How many saves run at once in the concurrency test. Default 1000. */
  readonly concurrency?: number;
  /**
   * Size of the large-content tests, in UTF-8 bytes. Default 5 MiB. Lowered to
   * `hooks.maxArtifactBytes` when that is smaller.
   */
  readonly largeContentBytes?: number;
  /** Timeout of each test, in milliseconds. Default 60000. */
  readonly testTimeoutMs?: number;
  /**
   * The searcher the search tests run over a backend with a reader and a catalog.
   * Omitted: `createBackendSearch` of `@spillway/search` when that package is installed;
   * when it is not, the search tests are skipped with a note. `false` turns them off.
   */
  readonly search?: ConformanceSearchFactory<F> | false;
}

/** The options with every default filled in (see {@link DescribeSpillBackendOptions}). */
export interface ResolvedConformanceOptions<F extends SpillBackendFixture> {
  /** {@link DescribeSpillBackendOptions.name}. */
  readonly name: string;
  /** {@link DescribeSpillBackendOptions.create}. */
  readonly create: () => Awaitable<F>;
  /** The hooks given, or none. */
  readonly hooks: SpillBackendHooks<F>;
  /** {@link PropertyOptions.numRuns}. */
  readonly numRuns: number;
  /** {@link PropertyOptions.modelRuns}. */
  readonly modelRuns: number;
  /** {@link PropertyOptions.maxCommands}. */
  readonly maxCommands: number;
  /** {@link PropertyOptions.seed}, when given. */
  readonly seed: number | undefined;
  /** {@link PropertyOptions.endOnFailure}. */
  readonly endOnFailure: boolean;
  /** {@link DescribeSpillBackendOptions.concurrency}. */
  readonly concurrency: number;
  /** {@link DescribeSpillBackendOptions.largeContentBytes}, lowered to `hooks.maxArtifactBytes`. */
  readonly largeContentBytes: number;
  /** {@link DescribeSpillBackendOptions.testTimeoutMs}. */
  readonly testTimeoutMs: number;
  /** {@link DescribeSpillBackendOptions.search}: the factory given, `false`, or `undefined` for the default. */
  readonly search: ConformanceSearchFactory<F> | false | undefined;
}

const OPTION_KEYS = ['name', 'create', 'hooks', 'properties', 'concurrency', 'largeContentBytes', 'testTimeoutMs', 'search'];
const HOOK_KEYS = ['readBack', 'breakStorage', 'listStored', 'maxArtifactBytes'];
const PROPERTY_KEYS = ['numRuns', 'modelRuns', 'maxCommands', 'seed', 'endOnFailure'];

function optionError(message: string): TypeError {
  return new TypeError(`describeSpillBackend: ${message}`);
}

function checkKeys(what: string, value: object, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw optionError(`unknown ${what} "${key}"; the known ones are ${allowed.join(', ')}.`);
    }
  }
}

function checkObject(what: string, value: unknown): asserts value is Record<string, unknown> | undefined {
  if (value !== undefined && (typeof value !== 'object' || value === null || Array.isArray(value))) {
    throw optionError(`${what} must be an object when given.`);
  }
}

function positiveInteger(what: string, value: unknown, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  const problem = wholeNumberProblem(value, { min });
  if (problem !== undefined) throw optionError(`${what} ${problem}.`);
  return value as number;
}

/**
 * Checks the options of {@link describeSpillBackend} and fills in the defaults.
 *
 * @throws TypeError naming the bad option: a missing or empty `name`, a `create` that is
 * not a function, an unknown key (a typo would otherwise silently skip tests), a hook
 * that is not a function, a count that is not a positive integer, or a `search` that is
 * neither a function nor `false`.
 */
export function resolveConformanceOptions<F extends SpillBackendFixture>(options: DescribeSpillBackendOptions<F>): ResolvedConformanceOptions<F> {
  const raw: unknown = options;
  checkObject('the options', raw);
  if (raw === undefined) throw optionError('pass an options object with name and create.');
  checkKeys('option', raw, OPTION_KEYS);
  if (typeof raw.name !== 'string' || raw.name.trim() === '') {
    throw optionError('name must be a non-empty string naming the backend.');
  }
  if (typeof raw.create !== 'function') {
    throw optionError('create must be a function returning { backend, cleanup? }.');
  }
  const hooks = raw.hooks;
  checkObject('hooks', hooks);
  if (hooks !== undefined) {
    checkKeys('hook', hooks, HOOK_KEYS);
    for (const key of ['readBack', 'breakStorage', 'listStored']) {
      if (hooks[key] !== undefined && typeof hooks[key] !== 'function') {
        throw optionError(`hooks.${key} must be a function when given.`);
      }
    }
    positiveInteger('hooks.maxArtifactBytes', hooks.maxArtifactBytes, 1);
  }
  const properties = raw.properties;
  checkObject('properties', properties);
  if (properties !== undefined) {
    checkKeys('property option', properties, PROPERTY_KEYS);
    if (properties.endOnFailure !== undefined && typeof properties.endOnFailure !== 'boolean') {
      throw optionError('properties.endOnFailure must be a boolean when given.');
    }
    const seedProblem = properties.seed === undefined ? undefined : wholeNumberProblem(properties.seed, { min: Number.MIN_SAFE_INTEGER });
    if (seedProblem !== undefined) throw optionError(`properties.seed ${seedProblem}.`);
  }
  if (raw.search !== undefined && raw.search !== false && typeof raw.search !== 'function') {
    throw optionError('search must be a function (backend, fixture) => searcher, or false to turn the search tests off.');
  }
  const maxArtifactBytes = options.hooks?.maxArtifactBytes;
  const large = positiveInteger('largeContentBytes', raw.largeContentBytes, 5 * 1024 * 1024);
  return {
    name: options.name,
    create: options.create,
    hooks: options.hooks ?? {},
    numRuns: positiveInteger('properties.numRuns', properties?.numRuns, 20),
    modelRuns: positiveInteger('properties.modelRuns', properties?.modelRuns, 10),
    maxCommands: positiveInteger('properties.maxCommands', properties?.maxCommands, 25),
    seed: options.properties?.seed,
    endOnFailure: options.properties?.endOnFailure ?? false,
    concurrency: positiveInteger('concurrency', raw.concurrency, 1000, 2),
    largeContentBytes: maxArtifactBytes === undefined ? large : Math.min(large, maxArtifactBytes),
    testTimeoutMs: positiveInteger('testTimeoutMs', raw.testTimeoutMs, 60_000),
    search: options.search,
  };
}
