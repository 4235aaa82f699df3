import { createS3Backend, parseS3StoreUrl, type S3Backend } from '@spillway/s3';
import type { BackendUrlContext } from './backend-registry.js';
import { CliError } from './cli-error.js';

/**
 * Runs `build` (which makes an S3 client) with the SDK's Node version warning switched
 * off unless `verbose` (`AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED`, which the SDK
 * reads when it builds a client). The switch is set only while the client is built and then put
 * back, so commands that `spillway run` starts see the environment they were given.
 */
function quietSdk<T>(verbose: boolean, build: () => T): T {
  if (verbose || process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED !== undefined) return build();
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
  try {
    return build();
  } finally {
    delete process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED;
  }
}

/**
 * Opens the S3 backend for an `s3://bucket/prefix` URL. Credentials, region and endpoint
 * come from the AWS SDK's standard chain (`AWS_ACCESS_KEY_ID`, `AWS_PROFILE`, `AWS_REGION`,
 * `AWS_ENDPOINT_URL_S3`, shared config files, instance roles…). With a custom endpoint
 * (`AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`), requests use path-style addressing, as
 * self-hosted stores need, and the region defaults to `us-east-1`;
 * `SPILLWAY_S3_PATH_STYLE=0` or `1` decides the addressing explicitly.
 *
 * @throws TypeError for a URL the S3 backend refuses (a bad bucket name, say)
 */
export function openS3Url(url: string, context: BackendUrlContext): S3Backend {
  const parsed = parseS3StoreUrl(url);
  if (parsed === undefined) throw new CliError('USAGE', `${context.setting ?? 'the store URL'} must be an s3://bucket/prefix URL, got '${url}'.`);
  const { env } = context;
  const endpoint = env.AWS_ENDPOINT_URL_S3 ?? env.AWS_ENDPOINT_URL;
  const custom = endpoint !== undefined && endpoint !== '';
  const pathStyle = env.SPILLWAY_S3_PATH_STYLE;
  const region = env.AWS_REGION ?? env.AWS_DEFAULT_REGION;
  return quietSdk(context.verbose === true, () => createS3Backend({
    bucket: parsed.bucket,
    prefix: parsed.prefix,
    ...(custom ? { endpoint } : {}),
    ...(pathStyle === '1' || (pathStyle !== '0' && custom) ? { forcePathStyle: true } : {}),
    ...(region === undefined && custom ? { region: 'us-east-1' } : {}),
  }));
}
