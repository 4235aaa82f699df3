import {
  callId,
  isSpillError,
  sessionId,
  utf8ByteLength,
  type SaveTextSpill,
  type SaveTextStreamSpill,
  type SpillBackend,
  type SpillEntry,
  type SpillErrorCode,
  type SpillLocator,
  type SpillReader,
  type SpillRef,
} from '@spillway/core';
import type { TestContext } from 'vitest';
import type { ResolvedConformanceOptions, SpillBackendFixture } from './options.js';
import { describeBytesDifference, describeTextDifference, toStoredText } from './text.js';

/** A failed conformance check. Its message says what the backend did and what was expected. */
export class ConformanceFailure extends Error {
  /** @param message - what went wrong */
  constructor(message: string) {
    super(message);
    this.name = 'ConformanceFailure';
  }
}

/** Throws a {@link ConformanceFailure}. */
export function fail(message: string): never {
  throw new ConformanceFailure(message);
}

/** A short description of a thrown value, for failure messages. */
export function describeError(error: unknown): string {
  if (isSpillError(error)) return `SpillError ${error.code} (${error.message})`;
  if (error instanceof Error) return `${error.name}: ${error.message}`;
  return `the non-error value ${String(error)}`;
}

/** How an async call ended. A synchronous throw is already a failure: async APIs reject. */
type Outcome = { readonly rejected: false; readonly value: unknown } | { readonly rejected: true; readonly error: unknown };

async function outcomeOf(what: string, call: () => PromiseLike<unknown>): Promise<Outcome> {
  let promise: PromiseLike<unknown>;
  try {
    promise = call();
  } catch (error) {
    return fail(`${what} threw synchronously (${describeError(error)}); it must return a rejected promise.`);
  }
  try {
    return { rejected: false, value: await promise };
  } catch (error) {
    return { rejected: true, error };
  }
}

/**
 * Calls `call` and expects the promise it returns to reject with a `SpillError` whose
 * code is one of `codes`. A synchronous throw is a failure too: callers of an async API
 * handle rejections, not throws.
 *
 * @returns the error, for further checks
 */
export async function expectSpillRejection(
  what: string,
  codes: SpillErrorCode | readonly SpillErrorCode[],
  call: () => PromiseLike<unknown>,
): Promise<Error> {
  const outcome = await outcomeOf(what, call);
  if (!outcome.rejected) {
    const wanted = typeof codes === 'string' ? [codes] : codes;
    return fail(`${what} resolved (${describeValue(outcome.value)}); expected a rejection with code ${wanted.join(' or ')}.`);
  }
  expectSpillErrorCode(what, outcome.error, codes);
  return outcome.error as Error;
}

/** Checks an error already caught: a `SpillError` with one of `codes`. */
export function expectSpillErrorCode(what: string, error: unknown, codes: SpillErrorCode | readonly SpillErrorCode[]): void {
  const wanted = typeof codes === 'string' ? [codes] : codes;
  if (!wanted.some((code) => isSpillError(error, code))) {
    fail(`${what} rejected with ${describeError(error)}; expected a SpillError with code ${wanted.join(' or ')}.`);
  }
}

/** Like {@link expectSpillRejection}, accepting any `SpillError` code. */
export async function expectAnySpillRejection(what: string, call: () => PromiseLike<unknown>): Promise<Error> {
  const outcome = await outcomeOf(what, call);
  if (!outcome.rejected) return fail(`${what} resolved; expected a rejection with a SpillError.`);
  if (isSpillError(outcome.error)) return outcome.error;
  return fail(`${what} rejected with ${describeError(outcome.error)}; expected a SpillError.`);
}

function describeValue(value: unknown): string {
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value).slice(0, 200);
    } catch {
      return 'an object';
    }
  }
  return String(value);
}

/** What a backend has published, as far as the suite can see it. */
export interface PublishedSnapshot {
  /** Every locator the catalog lists (all sessions), sorted; absent without a catalog. */
  readonly catalog?: readonly string[];
  /** What `hooks.listStored` reports, sorted; absent without the hook. */
  readonly stored?: readonly string[];
}

/** Overrides for the requests the harness builds. */
export interface RequestOverrides {
  /** The owner's session id. Default {@link DEFAULT_SESSION}. */
  readonly sessionId?: string;
  /** The suggested name. Default `result.txt`. */
  readonly suggestedName?: string;
  /** The source's tool name. Default `conformance_tool`. */
  readonly toolName?: string;
}

/** Page sizes used to read a whole artifact back through a reader. */
export interface PageSize {
  /** `limit` of each read. */
  readonly lines: number;
  /** `maxBytes` of each read (doubled while one line does not fit). */
  readonly bytes: number;
}

const DEFAULT_PAGE: PageSize = { lines: 500, bytes: 64 * 1024 };

/** The session the harness uses when a test does not pick one. */
export const DEFAULT_SESSION = 'conformance-session';

/**
 * One test's view of a fixture: request builders, read-back, and snapshots of what is
 * published. Tests get a fresh one from {@link withHarness}.
 */
export class Harness<F extends SpillBackendFixture> {
  /** The backend under test (the fixture's). */
  readonly backend: SpillBackend;
  private calls = 0;

  /**
   * @param options - the suite's resolved options (hooks included)
   * @param fixture - what `create` returned for this test
   */
  constructor(
    /** The suite's resolved options. */
    readonly options: ResolvedConformanceOptions<F>,
    /** What `create` returned for this test. */
    readonly fixture: F,
  ) {
    this.backend = fixture.backend;
  }

  /** A valid `saveText` request; each gets its own call id. */
  request(content: string, overrides: RequestOverrides = {}): SaveTextSpill {
    this.calls++;
    return {
      owner: { sessionId: sessionId(overrides.sessionId ?? DEFAULT_SESSION) },
      source: { toolName: overrides.toolName ?? 'conformance_tool', callId: callId(`call-${this.calls}`), label: 'conformance suite' },
      suggestedName: overrides.suggestedName ?? 'result.txt',
      content,
    };
  }

  /** A valid `saveTextStream` request. */
  streamRequest(content: Iterable<string> | AsyncIterable<string>, overrides: RequestOverrides = {}): SaveTextStreamSpill {
    return { ...this.request('', overrides), content };
  }

  /** Saves `content` and checks the ref it gets back (shape, exact `bytes`, hint). */
  async save(content: string, overrides: RequestOverrides = {}): Promise<SpillRef> {
    const ref = await this.backend.saveText(this.request(content, overrides));
    checkRef(ref, utf8ByteLength(content), 'saveText');
    return ref;
  }

  /** True when the suite can read artifacts back (a reader, or the `readBack` hook). */
  get canReadBack(): boolean {
    return this.backend.reader !== undefined || this.options.hooks.readBack !== undefined;
  }

  /** Skips the running test unless artifacts can be read back. */
  requireReadBack(ctx: TestContext): void {
    if (!this.canReadBack) ctx.skip(`${this.backend.name} has no reader and no hooks.readBack, so stored content cannot be checked`);
  }

  /** Skips the running test unless the backend has a reader, and returns it. */
  requireReader(ctx: TestContext): SpillReader {
    const reader = this.backend.reader;
    if (reader === undefined) return ctx.skip(`${this.backend.name} declares no reader`);
    return reader;
  }

  /** Skips the running test unless the backend has a catalog. */
  requireCatalog(ctx: TestContext): NonNullable<SpillBackend['catalog']> {
    const catalog = this.backend.catalog;
    if (catalog === undefined) return ctx.skip(`${this.backend.name} declares no catalog`);
    return catalog;
  }

  /**
   * Checks that the artifact behind `ref` holds exactly `content` as UTF-8 (lone
   * surrogates as U+FFFD): through the reader, read in pages, or through `readBack`.
   */
  async expectStored(ref: SpillRef, content: string, what = 'the artifact'): Promise<void> {
    const expected = toStoredText(content);
    const reader = this.backend.reader;
    if (reader !== undefined) {
      const text = await readWhole(reader, ref.locator, this.pageFor(ref.bytes));
      const difference = describeTextDifference(text, expected);
      if (difference !== undefined) fail(`${what} read back through the reader differs from what was saved: ${difference}`);
      return;
    }
    const readBack = this.options.hooks.readBack;
    if (readBack === undefined) fail('expectStored needs a reader or hooks.readBack');
    const stored = await readBack(ref, this.fixture);
    if (typeof stored === 'string') {
      const difference = describeTextDifference(stored, expected);
      if (difference !== undefined) fail(`${what} read back through hooks.readBack differs from what was saved: ${difference}`);
    } else if (stored instanceof Uint8Array) {
      const difference = describeBytesDifference(stored, new TextEncoder().encode(expected));
      if (difference !== undefined) fail(`${what} read back through hooks.readBack differs from the UTF-8 of what was saved: ${difference}`);
    } else {
      fail('hooks.readBack must return a string or a Uint8Array');
    }
  }

  private pageFor(bytes: number): PageSize {
    // Big artifacts are read in big pages so that megabytes take tens of reads, not thousands.
    return bytes > 1024 * 1024 ? { lines: 100_000, bytes: 1024 * 1024 } : DEFAULT_PAGE;
  }

  /** Every catalog entry, optionally of one session. */
  async list(session?: string, signal?: AbortSignal): Promise<SpillEntry[]> {
    const catalog = this.backend.catalog;
    if (catalog === undefined) fail('list needs a catalog');
    const entries: SpillEntry[] = [];
    const options = {
      ...(session === undefined ? {} : { sessionId: sessionId(session) }),
      ...(signal === undefined ? {} : { signal }),
    };
    for await (const entry of catalog.list(options)) entries.push(entry);
    return entries;
  }

  /** True when the suite can see whether a failed save published something. */
  get observesPublishing(): boolean {
    return this.backend.catalog !== undefined || this.options.hooks.listStored !== undefined;
  }

  /** What is published now, through the catalog and `hooks.listStored`. */
  async snapshot(): Promise<PublishedSnapshot> {
    const catalog = this.backend.catalog === undefined ? undefined : (await this.list()).map((e) => String(e.locator)).sort();
    const listStored = this.options.hooks.listStored;
    const stored = listStored === undefined ? undefined : [...(await listStored(this.fixture))].sort();
    return { ...(catalog === undefined ? {} : { catalog }), ...(stored === undefined ? {} : { stored }) };
  }

  /**
   * Checks that nothing was published since `before`: the catalog lists the same
   * locators and `listStored` reports the same objects (so no temporary file was left).
   * Notes on the test when neither is available.
   */
  async expectNothingPublished(before: PublishedSnapshot, what: string, ctx: TestContext): Promise<void> {
    if (!this.observesPublishing) {
      await ctx.annotate(`${this.backend.name} has no catalog and no hooks.listStored: could not check that ${what} published nothing`);
      return;
    }
    const after = await this.snapshot();
    compareSets(before.catalog, after.catalog, `after ${what}, the catalog`);
    compareSets(before.stored, after.stored, `after ${what}, hooks.listStored`);
  }
}

function compareSets(before: readonly string[] | undefined, after: readonly string[] | undefined, what: string): void {
  if (before === undefined || after === undefined) return;
  const old = new Set(before);
  const now = new Set(after);
  const added = after.filter((x) => !old.has(x));
  const removed = before.filter((x) => !now.has(x));
  if (added.length > 0 || removed.length > 0) {
    fail(`${what} changed: added ${JSON.stringify(added.slice(0, 5))}, removed ${JSON.stringify(removed.slice(0, 5))}`);
  }
}

/** Checks the shape of a ref and its exact `bytes`. */
export function checkRef(ref: SpillRef, expectedBytes: number, what: string): void {
  if (typeof ref !== 'object' || (ref as unknown) === null) fail(`${what} resolved with ${describeValue(ref)}, not a SpillRef`);
  if (typeof ref.locator !== 'string' || ref.locator.length === 0) {
    fail(`${what} returned locator ${describeValue(ref.locator)}; expected a non-empty string`);
  }
  if (ref.bytes !== expectedBytes) fail(`${what} reported bytes ${String(ref.bytes)}; the content is exactly ${expectedBytes} UTF-8 bytes`);
  if (typeof ref.retrievalHint !== 'string' || ref.retrievalHint.trim().length === 0) {
    fail(`${what} returned retrievalHint ${describeValue(ref.retrievalHint)}; expected a non-empty sentence`);
  }
}

/**
 * Reads a whole artifact through `reader`, page by page, following `nextOffset`; a line
 * longer than a page is re-read with a doubled `maxBytes`. Checks every page's
 * invariants on the way (offsets, the byte cap, a constant `totalBytes`).
 */
export async function readWhole(reader: SpillReader, locator: SpillLocator, page: PageSize = DEFAULT_PAGE): Promise<string> {
  const parts: string[] = [];
  let offset = 1;
  let maxBytes = page.bytes;
  let totalBytes: number | undefined;
  let read = 0;
  for (let requests = 0; ; requests++) {
    if (requests > 1_000_000) fail('reading the artifact back did not finish after a million reads');
    const r = await reader.read(locator, { offset, limit: page.lines, maxBytes });
    if (typeof r.text !== 'string') fail(`read returned text ${typeof r.text}`);
    const bytes = utf8ByteLength(r.text);
    if (r.startLine !== offset) fail(`read({ offset: ${offset} }) answered startLine ${r.startLine}`);
    if (bytes > maxBytes) fail(`read({ maxBytes: ${maxBytes} }) answered ${bytes} bytes`);
    if (totalBytes !== undefined && r.totalBytes !== totalBytes) fail(`totalBytes changed between reads: ${totalBytes} then ${r.totalBytes}`);
    totalBytes = r.totalBytes;
    if (r.nextOffset !== undefined && page.lines > 0 && r.nextOffset <= offset) {
      fail(`read({ offset: ${offset}, maxBytes: ${maxBytes} }) offered nextOffset ${r.nextOffset}: paging by it would never end`);
    }
    if (r.hasMore && (r.nextOffset === undefined || r.text === '')) {
      // The line at `offset` is longer than the page: widen the page and read it again.
      if (maxBytes > r.totalBytes + 4) fail(`read at offset ${offset} made no progress even with maxBytes ${maxBytes}`);
      maxBytes *= 2;
      continue;
    }
    parts.push(r.text);
    read += bytes;
    if (!r.hasMore) break;
    if (r.nextOffset !== r.endLine + 1) fail(`read answered endLine ${r.endLine} but nextOffset ${String(r.nextOffset)}`);
    offset = r.nextOffset;
    maxBytes = page.bytes;
  }
  if (totalBytes !== read) fail(`the reads returned ${read} bytes in total, but totalBytes is ${String(totalBytes)}`);
  return parts.join('');
}

function checkFixture(fixture: unknown): asserts fixture is SpillBackendFixture {
  const bad = (why: string): never => {
    throw new TypeError(`describeSpillBackend: create() must resolve to { backend, cleanup? }; ${why}.`);
  };
  if (typeof fixture !== 'object' || fixture === null) bad(`it resolved to ${String(fixture)}`);
  const { backend, cleanup } = fixture as { backend?: unknown; cleanup?: unknown };
  if (cleanup !== undefined && typeof cleanup !== 'function') bad('cleanup is not a function');
  if (typeof backend !== 'object' || backend === null) bad('backend is missing');
  const b = backend as Record<string, unknown>;
  if (typeof b.name !== 'string' || b.name === '') bad('backend.name is not a non-empty string');
  if (typeof b.saveText !== 'function' || typeof b.saveTextStream !== 'function') bad('backend lacks saveText or saveTextStream');
}

/**
 * Creates a fixture, runs `body` with a {@link Harness} on it, and always cleans up. When
 * both the body and the cleanup fail, the body's error wins (it is the interesting one).
 */
export async function withHarness<F extends SpillBackendFixture>(
  options: ResolvedConformanceOptions<F>,
  body: (harness: Harness<F>) => Promise<void>,
): Promise<void> {
  const fixture = await options.create();
  checkFixture(fixture);
  let failure: { readonly error: unknown } | undefined;
  try {
    await body(new Harness(options, fixture));
  } catch (error) {
    failure = { error };
  }
  try {
    await fixture.cleanup?.();
  } catch (error) {
    // A failing cleanup only surfaces when the test itself passed.
    if (failure === undefined) throw error;
  }
  if (failure !== undefined) throw failure.error;
}
