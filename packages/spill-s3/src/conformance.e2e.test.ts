import { GetObjectCommand } from '@aws-sdk/client-s3';
import { describeSpillBackend } from '@spillway/conformance';
import type { SpillBackendFixture } from '@spillway/conformance';
import { parseLocator } from './layout.js';
import { BUCKET, keysUnder, s3Fixture } from './test-helpers.js';
import type { S3TestFixture } from './test-helpers.js';

type Fixture = S3TestFixture & SpillBackendFixture;

describeSpillBackend<Fixture>({
  name: '@spillway/s3 (s3rver)',
  create: () => s3Fixture(),
  concurrency: 200,
  // Every call is an HTTP request to s3rver: the 200 concurrent saves take tens of seconds
  // on a loaded machine, more than the suite's default 60 s leaves room for.
  testTimeoutMs: 180_000,
  hooks: {
    readBack: async (ref, fixture) => {
      const { key } = parseLocator({ bucket: BUCKET, prefix: fixture.prefix }, ref.locator);
      const answer = await fixture.client.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
      return answer.Body?.transformToByteArray() ?? new Uint8Array(0);
    },
    // Every request answers 403 AccessDenied, as a bucket policy that denies the writer would.
    breakStorage: (fixture) => {
      fixture.shim.fault = () => ({ kind: 'error', status: 403, code: 'AccessDenied' });
      return () => {
        fixture.shim.fault = undefined;
      };
    },
    // Objects under the prefix, plus multipart uploads in progress (what a failed stream could leave).
    listStored: async (fixture) => {
      const keys = (await keysUnder(fixture.prefix)).map((k) => k.slice(fixture.prefix.length + 1));
      const uploads = [...fixture.shim.uploads.values()].map((u) => `${u.key.slice(fixture.prefix.length + 1)}#upload`);
      return [...keys, ...uploads];
    },
  },
});
