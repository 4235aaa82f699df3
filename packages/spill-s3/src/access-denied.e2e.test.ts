// Wrong keys against a real store (the suite's s3rver): the error must say what was
// refused, put the keys first among the causes, and name real IAM actions.
import { S3Client } from '@aws-sdk/client-s3';
import { callId, isSpillError, sessionId } from '@spillway/core';
import { describe, expect, it } from 'vitest';
import { createS3Backend } from './backend.js';
import { IAM_ACTIONS } from './errors.js';
import { BUCKET, freshPrefix, s3Endpoint } from './test-helpers.js';

// The example keys of the AWS documentation: well formed, known to no store.
const WRONG_KEYS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

function backendWithWrongKeys(): ReturnType<typeof createS3Backend> {
  const client = new S3Client({ endpoint: s3Endpoint(), region: 'us-east-1', forcePathStyle: true, credentials: WRONG_KEYS, maxAttempts: 1 });
  return createS3Backend({ client, bucket: BUCKET, prefix: freshPrefix('denied'), retry: { attempts: 1 } });
}

async function failure(run: () => Promise<unknown>): Promise<Error> {
  const error: unknown = await run().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(isSpillError(error, 'SPILL_STORAGE_FAILED')).toBe(true);
  return error as Error;
}

describe('access denied', () => {
  it('for the bucket check says HeadBucket was refused, keys first, and names s3:ListBucket, never s3:HeadBucket', async () => {
    const error = await failure(() => backendWithWrongKeys().root());
    const { message } = error;
    expect(message).toContain('refused HeadBucket on bucket "spillway-test"');
    expect(message).not.toContain('s3:HeadBucket');
    expect(message).toContain('s3:ListBucket');
    const keys = message.indexOf('credentials');
    const endpoint = message.indexOf('endpoint or region');
    const permission = message.indexOf('missing permission');
    expect(keys).toBeGreaterThan(0);
    expect(endpoint).toBeGreaterThan(keys);
    expect(permission).toBeGreaterThan(endpoint);
    expect(message).toContain('docs/s3.md');
    expect(error.cause).toBeDefined();
  });

  it('for a save names the operation and the IAM action it needs', async () => {
    const error = await failure(() =>
      backendWithWrongKeys().saveText({ owner: { sessionId: sessionId('s') }, source: { toolName: 't', callId: callId('c') }, suggestedName: 'notes.md', content: 'x\n' }),
    );
    expect(error.message).toContain('refused PutObject on bucket "spillway-test"');
    expect(error.message).toContain('s3:PutObject');
  });

  it('maps every operation to an action that IAM has', () => {
    const actions = new Set(['s3:ListBucket', 's3:PutObject', 's3:GetObject', 's3:DeleteObject', 's3:AbortMultipartUpload', 's3:ListBucketMultipartUploads', 's3:ListMultipartUploadParts']);
    for (const action of Object.values(IAM_ACTIONS)) expect(actions.has(action)).toBe(true);
  });
});
