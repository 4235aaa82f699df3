/**
 * A small, correct file sink on top of the reference backend, used to test the file-sink
 * suite itself: the temporary file lives in a private directory, and publishing copies it
 * into the reference store. Each `bug` switches on one deliberate defect.
 */
import { randomBytes } from 'node:crypto';
import { closeSync, fstat as fstatCallback, ftruncate as ftruncateCallback, mkdtempSync, openSync, read, readdirSync, rmSync, statfs as statfsCallback, unlinkSync, write } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { SpillError, abortedError, assertSaveRequestEnvelope, type SpillBackend, type SpillCallOptions, type SpillRef } from '@spillway/core';
import type { NodeSpillBackend, OpenFileSinkSpill, SpillFileSink, SpillFileSinkHandle } from '@spillway/core/file-sink';
import type { SpillFileSinkHooks } from '../file-sink-options.js';
import { createReferenceFixture, listStoredReference, type ReferenceFixture } from './reference-backend.js';

/** The deliberate defects a reference file sink can carry. */
export const FILE_SINK_BUGS = [
  'visible-before-publish',
  'publish-size-from-writes',
  'close-leaves-temp',
  'publish-error-leaves-temp',
  'write-after-publish-accepted',
  'close-rejects-twice',
  'ignores-open-abort',
  'publish-as-text',
  'write-appends',
] as const;

/** One of {@link FILE_SINK_BUGS}. */
export type FileSinkBug = (typeof FILE_SINK_BUGS)[number];

/** A reference backend with a file sink, and the directory of its temporary files. */
export interface ReferenceSinkFixture extends ReferenceFixture {
  readonly backend: NodeSpillBackend & { readonly fileSink: SpillFileSink };
  /** Where the temporary files are. */
  readonly tempDir: string;
}

const TEMP_PREFIX = 'tmp/';

const fstat = promisify(fstatCallback);
const ftruncate = promisify(ftruncateCallback);
const statfs = promisify(statfsCallback);
// Positioned read and write on the raw descriptor, answering the byte count.
const readAt = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number> =>
  new Promise((resolve, reject) => {
    read(fd, buffer, offset, length, position, (error, n) => {
      if (error === null) resolve(n);
      else reject(error);
    });
  });
const writeAt = (fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): Promise<number> =>
  new Promise((resolve, reject) => {
    write(fd, buffer, offset, length, position, (error, n) => {
      if (error === null) resolve(n);
      else reject(error);
    });
  });

function failed(what: string, cause?: unknown): SpillError {
  return new SpillError('SPILL_STORAGE_FAILED', `The reference file sink could not ${what}.`, cause === undefined ? undefined : { cause });
}

/** Makes a fresh reference backend with a file sink carrying `bug`, if any. */
export function createReferenceSinkFixture(bug?: FileSinkBug): ReferenceSinkFixture {
  const base = createReferenceFixture();
  const tempDir = mkdtempSync(join(tmpdir(), 'spillway-reference-sink-'));
  const portable: SpillBackend = base.backend;
  const saveBytes = portable.saveBytesStream?.bind(portable);
  if (saveBytes === undefined) throw new Error('the reference backend lost saveBytesStream');

  const openHandle = async (input: OpenFileSinkSpill, options?: SpillCallOptions): Promise<SpillFileSinkHandle> => {
    assertSaveRequestEnvelope(input);
    if (bug !== 'ignores-open-abort' && options?.signal?.aborted === true) throw abortedError(options.signal, 'Opening the file sink');
    const path = join(tempDir, `.tmp-${randomBytes(8).toString('hex')}`);
    const fd = openSync(path, 'wx+', 0o600);
    // A sink that makes its artifact's entry at open, to fill it at publish.
    if (bug === 'visible-before-publish') await saveBytes({ ...input, content: [] });
    let published = false;
    let closed: Promise<void> | undefined;
    let written = 0;
    const live = (what: string, writing: boolean): void => {
      if (closed !== undefined) throw failed(`${what}: the sink is closed`);
      if (writing && published && !(bug === 'write-after-publish-accepted' && what === 'write')) throw failed(`${what}: the sink was published`);
    };
    const removeTemp = (): void => {
      try {
        unlinkSync(path);
      } catch {
        // Already gone.
      }
    };
    return {
      fd,
      async write(bytes, position) {
        live('write', true);
        for (let done = 0; done < bytes.length; ) {
          done += await writeAt(fd, bytes, done, bytes.length - done, bug === 'write-appends' ? null : position + done);
        }
        written += bytes.length;
      },
      async read(buffer, offset, length, position) {
        live('read', false);
        return readAt(fd, buffer, offset, length, position);
      },
      async size() {
        live('measure', false);
        return (await fstat(fd)).size;
      },
      async truncate(length) {
        live('truncate', true);
        await ftruncate(fd, length);
      },
      async freeBytes() {
        live('measure free space', false);
        const stats = await statfs(tempDir);
        return stats.bavail * stats.bsize;
      },
      async publish(callOptions) {
        live('publish', true);
        published = true;
        try {
          const size = (await fstat(fd)).size;
          const bytes = new Uint8Array(size);
          for (let at = 0; at < size; ) at += await readAt(fd, bytes, at, size - at, at);
          const signal = callOptions?.signal;
          const call = signal === undefined ? undefined : { signal };
          const ref: SpillRef =
            bug === 'publish-as-text'
              ? await portable.saveText({ ...input, content: new TextDecoder().decode(bytes) }, call)
              : await saveBytes({ ...input, content: [bytes] }, call);
          removeTemp();
          return bug === 'publish-size-from-writes' ? { ...ref, bytes: written } : ref;
        } catch (error) {
          if (bug !== 'publish-error-leaves-temp') removeTemp();
          throw error;
        }
      },
      close() {
        if (bug === 'close-rejects-twice' && closed !== undefined) return Promise.reject(failed('close: the descriptor is already closed'));
        closed ??= (async () => {
          if (!published && bug !== 'close-leaves-temp') removeTemp();
          closeSync(fd);
          await Promise.resolve();
        })();
        return closed;
      },
    };
  };

  const fileSink: SpillFileSink = {
    open(input, options) {
      return openHandle(input, options).catch((error: unknown) => {
        if (error instanceof SpillError) throw error;
        throw failed('open its temporary file', error);
      });
    },
  };
  const fixture = base as ReferenceFixture & { backend: ReferenceSinkFixture['backend']; tempDir: string; cleanup: () => void };
  fixture.backend = { ...base.backend, fileSink };
  fixture.tempDir = tempDir;
  fixture.cleanup = () => {
    rmSync(tempDir, { recursive: true, force: true });
  };
  return fixture;
}

/** Hooks for a reference sink fixture: all of them. */
export function referenceSinkHooks(): SpillFileSinkHooks<ReferenceSinkFixture> {
  return {
    listStored: (fixture) => [...listStoredReference(fixture), ...readdirSync(fixture.tempDir).map((name) => `${TEMP_PREFIX}${name}`)],
    locatorOf: (stored, fixture) => (stored.startsWith(TEMP_PREFIX) ? join(fixture.tempDir, stored.slice(TEMP_PREFIX.length)) : `ref://${stored}`),
    breakPublish: (fixture) => {
      fixture.broken = true;
      return () => {
        fixture.broken = false;
      };
    },
  };
}
