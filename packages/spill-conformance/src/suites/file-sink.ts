import { spawn } from 'node:child_process';
import { fstatSync } from 'node:fs';
import { type SpillLocator, type SpillRef } from '@spillway/core';
import { fileSinkOf, type OpenFileSinkSpill, type SpillFileSink, type SpillFileSinkHandle } from '@spillway/core/file-sink';
import fc from 'fast-check';
import { describe, type TestContext } from 'vitest';
import { checkRef, describeError, expectAnySpillRejection, expectSpillRejection, fail, withHarness, type Harness, type PublishedSnapshot, type RequestOverrides } from '../harness.js';
import type { ResolvedFileSinkOptions } from '../file-sink-options.js';
import type { SpillBackendFixture } from '../options.js';
import { describeBytesDifference } from '../text.js';
import { AWKWARD_BYTES, collect, concat, storedBytes } from './bytes.js';
import { testDefiner } from './define-test.js';
import { MALFORMED_REQUESTS } from './failures.js';
import { fcParams } from './fc-params.js';

const ascii = (text: string): Uint8Array => new TextEncoder().encode(text);

/** The backend's file sink; a backend without one fails every test, saying how to offer it. */
function sinkOf<F extends SpillBackendFixture>(h: Harness<F>): SpillFileSink {
  const sink = fileSinkOf(h.backend);
  if (sink === undefined) {
    fail(`${h.backend.name} offers no file sink: fileSinkOf(backend) answered undefined. Offer it as the backend's fileSink member, an object with an open method (NodeSpillBackend of @spillway/core/file-sink).`);
  }
  return sink;
}

/** A valid open request: a save request without content. */
function openRequest<F extends SpillBackendFixture>(h: Harness<F>, overrides: RequestOverrides = {}): OpenFileSinkSpill {
  const { content: _content, ...request } = h.request('', overrides);
  return request;
}

/** Opens a sink, runs `body` with it, and always closes it (a close that rejects fails the test). */
async function withSink<F extends SpillBackendFixture>(h: Harness<F>, body: (handle: SpillFileSinkHandle) => Promise<void>, overrides: RequestOverrides = {}): Promise<void> {
  const handle = await sinkOf(h).open(openRequest(h, overrides));
  if (typeof handle !== 'object' || (handle as unknown) === null) fail(`open resolved with ${typeof handle === 'object' ? 'null' : typeof handle}, not a handle`);
  try {
    await body(handle);
  } finally {
    await handle.close();
  }
}

/**
 * Opens a sink that should be refused; one that opens anyway is closed, so that the failure
 * leaks nothing. Not async: a synchronous throw from `open` stays one, and fails as such.
 */
function openRefused(sink: SpillFileSink, request: OpenFileSinkSpill, signal?: AbortSignal): Promise<SpillFileSinkHandle> {
  return sink.open(request, signal === undefined ? undefined : { signal }).then(async (handle) => {
    await handle.close();
    return handle;
  });
}

/** `length` bytes read at `position` through the handle (fewer at the end). */
async function readAt(handle: SpillFileSinkHandle, position: number, length: number): Promise<Uint8Array> {
  const buffer = new Uint8Array(length);
  const n = await handle.read(buffer, 0, length, position);
  if (!Number.isSafeInteger(n) || n < 0 || n > length) fail(`read(buffer, 0, ${length}, ${position}) answered ${String(n)}; expected a byte count from 0 to ${length}`);
  return buffer.subarray(0, n);
}

/** Everything the handle's file holds, read back through `read`, checked against `expected` and `size()`. */
async function expectFileHolds(handle: SpillFileSinkHandle, expected: Uint8Array, what: string): Promise<void> {
  const size = await handle.size();
  if (size !== expected.length) fail(`${what}: size() answered ${String(size)}; ${expected.length} bytes were written`);
  const parts: Uint8Array[] = [];
  for (let position = 0; ; ) {
    const part = await readAt(handle, position, 4096);
    if (part.length === 0) break;
    parts.push(part);
    position += part.length;
    if (position > expected.length + 4096) fail(`${what}: read kept answering bytes past the file's ${expected.length}`);
  }
  const difference = describeBytesDifference(concat(parts), expected);
  if (difference !== undefined) fail(`${what}: the file read back through the handle differs from what was written: ${difference}`);
}

/** Checks that the published artifact holds exactly `expected`, through `readBytes` or `hooks.readBack`. */
async function expectPublished<F extends SpillBackendFixture>(h: Harness<F>, ctx: TestContext, ref: SpillRef, expected: Uint8Array, what: string): Promise<void> {
  checkRef(ref, expected.length, what);
  const stored = await storedBytes(h, ref);
  if (stored === undefined) return ctx.skip(`${h.backend.name}'s reader has no readBytes and no hooks.readBack was given, so published bytes cannot be checked`);
  const difference = describeBytesDifference(stored, expected);
  if (difference !== undefined) fail(`${what}: the artifact read back by its locator differs from the file: ${difference}`);
}

/** Checks that nothing changed since `before`, in the catalog and in `hooks.listStored`, noting what could not be seen. */
async function expectNoTrace<F extends SpillBackendFixture>(h: Harness<F>, ctx: TestContext, before: PublishedSnapshot, what: string): Promise<void> {
  if (h.options.hooks.listStored === undefined) await ctx.annotate(`no hooks.listStored: only the catalog shows whether ${what} left a file behind`);
  await h.expectNothingPublished(before, what, ctx);
}

/** Runs `sh -c script` with the descriptor as its stdout and stderr; resolves its exit code. */
function runChild(fd: number, script: string): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', ['-c', script], { stdio: ['ignore', fd, fd] });
    child.once('error', reject);
    child.once('close', (code) => {
      resolve(code);
    });
  });
}

/** A descriptor's identity, or `undefined` when it is closed. */
function identityOf(fd: number): string | undefined {
  try {
    const stats = fstatSync(fd);
    return `${stats.dev}:${stats.ino}`;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EBADF') return undefined;
    throw error;
  }
}

type SinkStep = { readonly kind: 'write'; readonly at: number; readonly bytes: Uint8Array } | { readonly kind: 'truncate'; readonly at: number };

const stepArbitrary: fc.Arbitrary<SinkStep> = fc.oneof(
  fc.record({ kind: fc.constant('write' as const), at: fc.nat(), bytes: fc.uint8Array({ maxLength: 300 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
);

/**
 * Registers the file-sink tests: the contract of `SpillFileSink` and `SpillFileSinkHandle`
 * in `@spillway/core/file-sink`, checked through the handle, the backend's reader and
 * catalog, the hooks, and a child process writing into the descriptor.
 */
export function describeFileSink<F extends SpillBackendFixture>(options: ResolvedFileSinkOptions<F>): void {
  const { base, hooks } = options;
  const test = testDefiner(base);

  describe('open', () => {
    test('open hands back a descriptor on an empty file, open for reading and writing', async (h) => {
      await withSink(h, async (handle) => {
        if (!Number.isSafeInteger(handle.fd) || handle.fd < 0) fail(`the handle's fd is ${String(handle.fd)}, not a descriptor`);
        if (!fstatSync(handle.fd).isFile()) fail('the descriptor is not on a regular file');
        const size = await handle.size();
        if (size !== 0) fail(`a fresh sink's size() answered ${String(size)}; expected 0`);
        if ((await readAt(handle, 0, 16)).length !== 0) fail('a fresh sink read back bytes');
        const free = await handle.freeBytes();
        if (free !== undefined && (!Number.isSafeInteger(free) || free < 0)) fail(`freeBytes() answered ${String(free)}; expected a byte count or undefined`);
      });
    });

    test('the temporary file is invisible until publish: the catalog does not list it and its locator reads nothing', async (h, ctx) => {
      const reader = h.backend.reader;
      const { listStored, locatorOf } = hooks;
      const byLocator = reader !== undefined && listStored !== undefined && locatorOf !== undefined;
      if (h.backend.catalog === undefined && !byLocator) return ctx.skip(`${h.backend.name} has no catalog, and hooks.listStored and hooks.locatorOf (with a reader) are not all given`);
      const before = await h.snapshot();
      await withSink(h, async (handle) => {
        await handle.write(ascii('not yet published\n'), 0);
        if (before.catalog !== undefined) {
          const now = (await h.list()).map((e) => String(e.locator));
          const listed = now.filter((l) => !before.catalog?.includes(l));
          if (listed.length > 0) fail(`the catalog lists ${JSON.stringify(listed)} while the sink is open and unpublished`);
        }
        if (reader === undefined || listStored === undefined || locatorOf === undefined) {
          await ctx.annotate('no hooks.listStored and hooks.locatorOf: the temporary file was not asked for by locator');
          return;
        }
        const added = [...(await listStored(h.fixture))].filter((s) => !(before.stored ?? []).includes(s));
        for (const stored of added) {
          const locator = (await locatorOf(stored, h.fixture)) as SpillLocator;
          await expectSpillRejection(`reader.read of the open sink's ${stored} (${locator})`, ['SPILL_INVALID_LOCATOR', 'SPILL_NOT_FOUND'], () => reader.read(locator));
          const readBytes = reader.readBytes?.bind(reader);
          if (readBytes !== undefined) {
            await expectSpillRejection(`reader.readBytes of the open sink's ${stored}`, ['SPILL_INVALID_LOCATOR', 'SPILL_NOT_FOUND'], () => collect(readBytes(locator)));
          }
        }
      });
    });

    test('an already-aborted signal makes open reject with SPILL_ABORTED and leaves nothing behind', async (h, ctx) => {
      const sink = sinkOf(h);
      const before = await h.snapshot();
      await expectSpillRejection('open with an aborted signal', 'SPILL_ABORTED', () => openRefused(sink, openRequest(h), AbortSignal.abort()));
      await expectNoTrace(h, ctx, before, 'the aborted open');
    });

    test('open refuses malformed requests with SPILL_INVALID_INPUT and leaves nothing behind', async (h, ctx) => {
      const sink = sinkOf(h);
      const before = await h.snapshot();
      for (const [label, make] of MALFORMED_REQUESTS) {
        const request = make({ ...openRequest(h) }) as OpenFileSinkSpill;
        await expectSpillRejection(`open of a request with ${label}`, 'SPILL_INVALID_INPUT', () => openRefused(sink, request));
      }
      await expectNoTrace(h, ctx, before, 'the refused opens');
    });
  });

  describe('writing', () => {
    test('positioned writes land where they are told, and reads answer any position', async (h) => {
      await withSink(h, async (handle) => {
        await handle.write(ascii('hello'), 0);
        await handle.write(ascii('-----'), 5);
        await handle.write(ascii('WORLD'), 5);
        await handle.write(ascii('L'), 2);
        await handle.write(new Uint8Array(0), 10);
        await expectFileHolds(handle, ascii('heLloWORLD'), 'after writes at 0, 5, 5 again and 2');
        const into = new Uint8Array(8).fill(0x2e);
        const n = await handle.read(into, 3, 4, 4);
        if (n !== 4 || new TextDecoder().decode(into) !== '...oWOR.') fail(`read(buffer, 3, 4, 4) answered ${String(n)} and the buffer ${JSON.stringify(new TextDecoder().decode(into))}; expected 4 and "...oWOR."`);
        const tail = await readAt(handle, 8, 100);
        if (new TextDecoder().decode(tail) !== 'LD') fail(`a read over the end answered ${JSON.stringify(new TextDecoder().decode(tail))}; expected "LD"`);
        if ((await readAt(handle, 10, 5)).length !== 0) fail('a read at the end answered bytes; expected 0');
      });
    });

    test('a positioned write leaves the descriptor at offset 0, where a child writing to it starts', async (h, ctx) => {
      await withSink(h, async (handle) => {
        await handle.write(ascii('abcdef'), 0);
        const code = await runChild(handle.fd, 'printf XY');
        if (code !== 0) fail(`the child exited with ${String(code)}`);
        await expectFileHolds(handle, ascii('XYcdef'), 'after write("abcdef", 0) and a child printing XY');
        await expectPublished(h, ctx, await handle.publish(), ascii('XYcdef'), 'publish');
      });
    });

    test('size follows the writes and truncate cuts the file', async (h) => {
      await withSink(h, async (handle) => {
        await handle.write(ascii('0123456789'), 0);
        await handle.truncate(4);
        await expectFileHolds(handle, ascii('0123'), 'after truncate(4)');
        await handle.write(ascii('xy'), 4);
        await expectFileHolds(handle, ascii('0123xy'), 'after writing again at the new end');
        await handle.truncate(0);
        await expectFileHolds(handle, new Uint8Array(0), 'after truncate(0)');
      });
    });

    test('a child process writes its stdout and stderr straight into the descriptor, in write order (> file 2>&1)', async (h, ctx) => {
      await withSink(h, async (handle) => {
        const code = await runChild(handle.fd, "printf one; printf two >&2; printf '\\000\\377\\n'; printf three >&2");
        if (code !== 0) fail(`the child exited with ${String(code)}`);
        const expected = concat([ascii('onetwo'), Uint8Array.of(0x00, 0xff, 0x0a), ascii('three')]);
        await expectFileHolds(handle, expected, 'after the child wrote');
        await expectPublished(h, ctx, await handle.publish(), expected, "publish of the child's output");
      });
    });
  });

  describe('publish', () => {
    test('publish answers the exact size and a locator the reader reads back byte for byte, invalid UTF-8 and NUL included', async (h, ctx) => {
      const session = 'file-sink-session';
      await withSink(
        h,
        async (handle) => {
          await handle.write(AWKWARD_BYTES.subarray(0, 7), 0);
          await handle.write(AWKWARD_BYTES.subarray(7), 7);
          const ref = await handle.publish();
          await expectPublished(h, ctx, ref, AWKWARD_BYTES, 'publish');
          if (h.backend.catalog !== undefined) {
            const listed = (await h.list(session)).filter((e) => e.locator === ref.locator);
            if (listed.length !== 1 || listed[0]?.bytes !== AWKWARD_BYTES.length) {
              fail(`the catalog lists the published artifact ${listed.length} times, with bytes ${String(listed[0]?.bytes)}; expected once, with ${AWKWARD_BYTES.length}`);
            }
          }
        },
        { sessionId: session },
      );
    });

    test('publishing an empty file stores an empty artifact', async (h, ctx) => {
      await withSink(h, async (handle) => {
        await expectPublished(h, ctx, await handle.publish(), new Uint8Array(0), 'publish of an empty file');
      });
    });

    test('after publish, read still works, write rejects with SPILL_STORAGE_FAILED, truncate is refused, and the artifact stays as published', async (h, ctx) => {
      await withSink(h, async (handle) => {
        const content = ascii('published once\n');
        await handle.write(content, 0);
        const ref = await handle.publish();
        await expectFileHolds(handle, content, 'read after publish');
        await expectSpillRejection('write after publish', 'SPILL_STORAGE_FAILED', () => handle.write(ascii('changed'), 0));
        await expectAnySpillRejection('truncate after publish', () => handle.truncate(0));
        await expectPublished(h, ctx, ref, content, 'the artifact after the refused write and truncate');
      });
    });

    test('a publish with an aborted signal rejects with SPILL_ABORTED, publishes nothing and removes the temporary file', async (h, ctx) => {
      const before = await h.snapshot();
      await withSink(h, async (handle) => {
        await handle.write(ascii('never published\n'), 0);
        await expectSpillRejection('publish with an aborted signal', 'SPILL_ABORTED', () => handle.publish({ signal: AbortSignal.abort() }));
        // Before close: the failed publish itself removes the file.
        await expectNoTrace(h, ctx, before, 'the aborted publish');
      });
      await expectNoTrace(h, ctx, before, 'the aborted publish and its close');
    });

    test('a storage failure at publish rejects with a SpillError, publishes nothing and removes the temporary file', async (h, ctx) => {
      const breakPublish = hooks.breakPublish;
      if (breakPublish === undefined) return ctx.skip('no hooks.breakPublish');
      const before = await h.snapshot();
      await withSink(h, async (handle) => {
        await handle.write(ascii('never published\n'), 0);
        const restore = await breakPublish(h.fixture);
        try {
          await expectAnySpillRejection('publish on broken storage', () => handle.publish());
        } finally {
          await restore();
        }
        await expectNoTrace(h, ctx, before, 'the failed publish');
      });
      await withSink(h, async (handle) => {
        await handle.write(ascii('after the repair\n'), 0);
        await expectPublished(h, ctx, await handle.publish(), ascii('after the repair\n'), 'publish after the repair');
      });
    });

    test('sinks open at once get distinct locators and keep their own bytes', async (h, ctx) => {
      const sink = sinkOf(h);
      const handles = await Promise.all(Array.from({ length: 8 }, () => sink.open(openRequest(h))));
      try {
        const contents = handles.map((_, i) => ascii(`sink ${i}\n`.repeat(i + 1)));
        await Promise.all(handles.map((handle, i) => handle.write(contents[i] ?? new Uint8Array(0), 0)));
        const refs = await Promise.all(handles.map((handle) => handle.publish()));
        if (new Set(refs.map((r) => r.locator)).size !== refs.length) fail(`8 sinks published to ${new Set(refs.map((r) => r.locator)).size} distinct locators`);
        for (const [i, ref] of refs.entries()) await expectPublished(h, ctx, ref, contents[i] ?? new Uint8Array(0), `sink ${i}`);
      } finally {
        await Promise.all(handles.map((handle) => handle.close()));
      }
    });
  });

  describe('close', () => {
    test('close without publish leaves nothing behind, in the catalog or in storage', async (h, ctx) => {
      const before = await h.snapshot();
      const handle = await sinkOf(h).open(openRequest(h));
      await handle.write(ascii('a draft\n'), 0);
      await runChild(handle.fd, 'printf "more draft"');
      await handle.close();
      await expectNoTrace(h, ctx, before, 'a sink closed without publishing');
    });

    test('close is idempotent, never rejects, and closes the descriptor', async (h) => {
      const sink = sinkOf(h);
      for (const publish of [false, true]) {
        const handle = await sink.open(openRequest(h));
        await handle.write(ascii('x'), 0);
        if (publish) await handle.publish();
        const open = identityOf(handle.fd);
        const outcomes = await Promise.allSettled([handle.close(), handle.close()]);
        outcomes.push(...(await Promise.allSettled([handle.close()])));
        const rejected = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        if (rejected[0] !== undefined) fail(`close ${publish ? 'after publish' : 'without publish'}, called three times, rejected: ${describeError(rejected[0].reason)}`);
        if (identityOf(handle.fd) === open) fail(`after close ${publish ? 'after publish' : 'without publish'}, the descriptor is still open on the file`);
      }
    });
  });

  describe('properties', () => {
    test('any positioned writes and truncations publish exactly the bytes they left', async (h, ctx) => {
      sinkOf(h);
      if (h.backend.reader?.readBytes === undefined && hooks.readBack === undefined) return ctx.skip('no readBytes and no hooks.readBack: published bytes cannot be checked');
      await fc.assert(
        fc.asyncProperty(fc.array(stepArbitrary, { maxLength: 10 }), async (steps) => {
          await withHarness(base, async (run) => {
            let model = new Uint8Array(0);
            await withSink(run, async (handle) => {
              for (const step of steps) {
                const at = step.at % (model.length + 1);
                if (step.kind === 'truncate') {
                  await handle.truncate(at);
                  model = model.slice(0, at);
                } else {
                  await handle.write(step.bytes, at);
                  const next = new Uint8Array(Math.max(model.length, at + step.bytes.length));
                  next.set(model);
                  next.set(step.bytes, at);
                  model = next;
                }
              }
              await expectFileHolds(handle, model, `after ${steps.length} steps`);
              await expectPublished(run, ctx, await handle.publish(), model, 'publish');
            });
          });
        }),
        fcParams(base, base.numRuns),
      );
    });
  });
}
