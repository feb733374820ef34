/**
 * Turns `EXPORT_DESTINATION` (or `--out`) into a `Destination`: `s3://bucket/prefix` for S3,
 * `file://` URLs or a local directory; a mistyped URL is refused (destination-target.ts).
 */
import { S3Client } from '@aws-sdk/client-s3';
import type { Destination } from './destination.js';
import { createLocalDestination } from './destination-local.js';
import { createS3Destination } from './destination-s3.js';
import { parseDestinationTarget, type DestinationTarget } from './destination-target.js';
import { awsClientConfig } from '../aws-clients.js';

export interface DestinationDeps {
  /** Used for `s3://` targets; default: a client configured from the environment (region, role). */
  readonly s3Client?: S3Client;
  /** Where the target came from, named in messages (`--out` for the CLI flag). @default 'EXPORT_DESTINATION' */
  readonly source?: string;
}

/**
 * The destination named by `target`. Touches no file and no network: the first write
 * creates folders (local) or fails with a message naming bucket and key (S3).
 */
export function openDestination(target: string, deps: DestinationDeps = {}): Destination {
  return openTarget(parseDestinationTarget(target, deps.source ?? 'EXPORT_DESTINATION'), deps);
}

/** The destination of an already parsed target (a caller that parsed it once for its own needs). */
export function openTarget(parsed: DestinationTarget, deps: Pick<DestinationDeps, 's3Client'> = {}): Destination {
  if (parsed.kind === 'local') return createLocalDestination(parsed.dir);
  return createS3Destination({ bucket: parsed.bucket, prefix: parsed.prefix, client: deps.s3Client ?? new S3Client(awsClientConfig()) });
}
