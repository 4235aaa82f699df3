/** A store URL split into its parts: `s3://bucket/prefix`. */
export interface S3StoreUrl {
  /** The bucket. */
  readonly bucket: string;
  /** The key prefix, `''` when the URL names the bucket only. */
  readonly prefix: string;
}

/**
 * Splits a store URL of the form `s3://<bucket>[/<prefix>]`, as the CLI's `--store` and
 * `SPILLWAY_STORE` take it. Answers `undefined` for anything that is not an `s3://` URL;
 * the bucket name and prefix are checked by `createS3Backend`.
 *
 * @example parseS3StoreUrl('s3://team-spill/agents/prod') // { bucket: 'team-spill', prefix: 'agents/prod' }
 */
export function parseS3StoreUrl(url: string): S3StoreUrl | undefined {
  if (!url.startsWith('s3://')) return undefined;
  const rest = url.slice('s3://'.length);
  const slash = rest.indexOf('/');
  if (slash === -1) return { bucket: rest, prefix: '' };
  return { bucket: rest.slice(0, slash), prefix: rest.slice(slash + 1) };
}
