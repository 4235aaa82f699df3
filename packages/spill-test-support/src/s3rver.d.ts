// s3rver ships no types; this is the part of its API the tests and benchmarks use. A script
// (no top-level import or export), so that the declaration is ambient wherever it is loaded.
declare module 's3rver' {
  /** How to start the server. */
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory?: string;
    configureBuckets?: { name: string }[];
  }
  /** A local S3-compatible server, on disk under `directory`. */
  export default class S3rver {
    /** A server not yet listening. */
    constructor(options: S3rverOptions);
    /** Starts listening and creates `configureBuckets`. */
    run(): Promise<unknown>;
    /** Stops listening. */
    close(): Promise<void>;
  }
}
