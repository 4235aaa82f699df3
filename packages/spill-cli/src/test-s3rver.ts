// A real s3rver for this package's end-to-end tests (excluded from the build by its name).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { afterAll, beforeAll } from 'vitest';

/**
 * Before the calling file's tests: a fresh temporary directory named after `prefix` and a
 * real s3rver on 127.0.0.1 that keeps `bucket` under it; after them all, the server is
 * closed and the directory removed. `use` receives the directory and the environment that
 * points the AWS SDK at the server, with that directory as HOME so that no AWS config
 * file of the real home is read.
 */
export function s3rverPerFile(prefix: string, bucket: string, use: (dir: string, awsEnv: NodeJS.ProcessEnv) => void | Promise<void>): void {
  let dir: string | undefined;
  let server: S3rver | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), configureBuckets: [{ name: bucket }] });
    const { port } = (await server.run()) as { port: number };
    await use(dir, {
      HOME: dir,
      AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${String(port)}`,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
      AWS_EC2_METADATA_DISABLED: 'true',
    });
  });
  afterAll(async () => {
    await server?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });
}
