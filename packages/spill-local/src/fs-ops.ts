import fs from 'node:fs';
import type { Dir, Stats } from 'node:fs';

/**
 * The file-system calls the backend makes, on raw descriptors. Everything goes through
 * this table so that tests can inject faults (partial writes, ENOSPC, EIO at fsync…)
 * where the machine cannot provoke them. It is internal: not exported from the package.
 */
export interface FsOps {
  open(path: string, flags: number, mode?: number): Promise<number>;
  close(fd: number): Promise<void>;
  /** Positioned write; may write fewer bytes than asked, like the system call. */
  write(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  /** Positioned read; 0 means end of file. */
  read(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): Promise<number>;
  fstat(fd: number): Promise<Stats>;
  fchmod(fd: number, mode: number): Promise<void>;
  fsync(fd: number): Promise<void>;
  ftruncate(fd: number, length: number): Promise<void>;
  lstat(path: string): Promise<Stats>;
  stat(path: string): Promise<Stats>;
  mkdir(path: string, mode: number): Promise<void>;
  rmdir(path: string): Promise<void>;
  link(existing: string, created: string): Promise<void>;
  unlink(path: string): Promise<void>;
  realpath(path: string): Promise<string>;
  mkdtemp(prefix: string): Promise<string>;
  opendir(path: string): Promise<Dir>;
  /** Bytes free for this user on the volume holding `path` (`statfs`: bavail × bsize). */
  freeBytes(path: string): Promise<number>;
}

function call<T>(fn: (cb: (err: NodeJS.ErrnoException | null, value: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    fn((err, value) => {
      if (err) reject(err);
      else resolve(value);
    });
  });
}

function callVoid(fn: (cb: (err: NodeJS.ErrnoException | null) => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    fn((err) => {
      if (err) reject(err);
      else resolve();
    });
  });
}

/** The real implementation over Node's callback API (no FileHandle: raw fds are cheaper). */
export const nodeFsOps: FsOps = {
  open: (path, flags, mode) => call<number>((cb) => { fs.open(path, flags, mode ?? 0o600, cb); }),
  close: (fd) => callVoid((cb) => { fs.close(fd, cb); }),
  write: (fd, buffer, offset, length, position) =>
    call<number>((cb) => { fs.write(fd, buffer, offset, length, position, cb); }),
  read: (fd, buffer, offset, length, position) =>
    call<number>((cb) => { fs.read(fd, buffer, offset, length, position, cb); }),
  fstat: (fd) => call<Stats>((cb) => { fs.fstat(fd, cb); }),
  fchmod: (fd, mode) => callVoid((cb) => { fs.fchmod(fd, mode, cb); }),
  fsync: (fd) => callVoid((cb) => { fs.fsync(fd, cb); }),
  ftruncate: (fd, length) => callVoid((cb) => { fs.ftruncate(fd, length, cb); }),
  lstat: (path) => call<Stats>((cb) => { fs.lstat(path, cb); }),
  stat: (path) => call<Stats>((cb) => { fs.stat(path, cb); }),
  mkdir: (path, mode) => callVoid((cb) => { fs.mkdir(path, { mode }, (err) => { cb(err); }); }),
  rmdir: (path) => callVoid((cb) => { fs.rmdir(path, cb); }),
  link: (existing, created) => callVoid((cb) => { fs.link(existing, created, cb); }),
  unlink: (path) => callVoid((cb) => { fs.unlink(path, cb); }),
  realpath: (path) => call<string>((cb) => { fs.realpath(path, cb); }),
  mkdtemp: (prefix) => call<string>((cb) => { fs.mkdtemp(prefix, cb); }),
  opendir: (path) => fs.promises.opendir(path, { bufferSize: 64 }),
  freeBytes: async (path) => {
    const st = await fs.promises.statfs(path);
    return st.bavail * st.bsize;
  },
};

/** Writes up to this size are made synchronously by {@link syncMetadataFsOps}. */
const SYNC_WRITE_MAX_BYTES = 64 * 1024;

function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error: unknown) {
    // fs throws Errors (a NUL in a path is a TypeError); anything else is wrapped.
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/**
 * {@link nodeFsOps} with the metadata calls (open, close, stat, chmod, mkdir, link,
 * unlink, realpath…) and small writes made synchronously, returned as settled promises.
 * Each of them takes microseconds on a local disk, far less than a hop through libuv's
 * thread pool (a futex wake and an event-loop wake-up each way), which is what a small
 * save is made of. Reads, fsync, truncation, large writes and directory listing stay
 * asynchronous. The price: while one of these calls runs, the event loop waits for it
 * (milliseconds on a slow network file system).
 */
export const syncMetadataFsOps: FsOps = {
  ...nodeFsOps,
  open: (path, flags, mode) => settle(() => fs.openSync(path, flags, mode ?? 0o600)),
  close: (fd) => settle(() => { fs.closeSync(fd); }),
  write: (fd, buffer, offset, length, position) =>
    length <= SYNC_WRITE_MAX_BYTES ? settle(() => fs.writeSync(fd, buffer, offset, length, position)) : nodeFsOps.write(fd, buffer, offset, length, position),
  fstat: (fd) => settle(() => fs.fstatSync(fd)),
  fchmod: (fd, mode) => settle(() => { fs.fchmodSync(fd, mode); }),
  lstat: (path) => settle(() => fs.lstatSync(path)),
  stat: (path) => settle(() => fs.statSync(path)),
  mkdir: (path, mode) => settle(() => { fs.mkdirSync(path, { mode }); }),
  rmdir: (path) => settle(() => { fs.rmdirSync(path); }),
  link: (existing, created) => settle(() => { fs.linkSync(existing, created); }),
  unlink: (path) => settle(() => { fs.unlinkSync(path); }),
  realpath: (path) => settle(() => fs.realpathSync(path)),
};

/** Open flags used throughout, with 0 for any flag this platform lacks. */
export const FLAGS = {
  RDONLY: fs.constants.O_RDONLY,
  WRONLY: fs.constants.O_WRONLY,
  CREAT: fs.constants.O_CREAT,
  EXCL: fs.constants.O_EXCL,
  NOFOLLOW: fs.constants.O_NOFOLLOW,
  DIRECTORY: fs.constants.O_DIRECTORY,
  NONBLOCK: fs.constants.O_NONBLOCK,
  NOCTTY: fs.constants.O_NOCTTY,
} as const;

/** Flags that open an existing directory without following a final symlink. */
export const DIR_OPEN_FLAGS = FLAGS.RDONLY | FLAGS.DIRECTORY | FLAGS.NOFOLLOW;

/** Flags that create a private temp file: exclusive, no-follow, write-only. */
export const TEMP_CREATE_FLAGS = FLAGS.WRONLY | FLAGS.CREAT | FLAGS.EXCL | FLAGS.NOFOLLOW | FLAGS.NOCTTY;

/** {@link TEMP_CREATE_FLAGS}, open for reading too: a file sink reads its head and tail back. */
export const SINK_CREATE_FLAGS = (TEMP_CREATE_FLAGS & ~FLAGS.WRONLY) | fs.constants.O_RDWR;

/** Flags for opening an artifact to read: no-follow, and a FIFO cannot block the open. */
export const READ_OPEN_FLAGS = FLAGS.RDONLY | FLAGS.NOFOLLOW | FLAGS.NONBLOCK | FLAGS.NOCTTY;
