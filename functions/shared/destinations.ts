/**
 * Turns `EXPORT_DESTINATION` (or `--out`) into a `Destination`: `s3://bucket/prefix` for S3,
 * anything else a local directory (`file://` URLs accepted too).
 */
import { S3Client } from '@aws-sdk/client-s3';
import { fileURLToPath } from 'node:url';
import type { Destination } from './destination.js';
import { createLocalDestination } from './destination-local.js';
import { createS3Destination, normalisePrefix } from './destination-s3.js';
import { ConfigError } from './errors.js';

export interface DestinationDeps {
  /** Used for `s3://` targets; default: a client configured from the environment (region, role). */
  readonly s3Client?: S3Client;
  /** Where the target came from, named in messages (`--out` for the CLI flag). @default 'EXPORT_DESTINATION' */
  readonly source?: string;
}

/** Parsed form of an `s3://` target. */
export interface S3Target {
  readonly bucket: string;
  /** `''` or a prefix ending in `/`. */
  readonly prefix: string;
}

// S3 general purpose bucket names: 3–63 of a-z 0-9 . -, starting and ending with a letter
// or digit, no "..", not an IPv4 address.
const BUCKET_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const SCHEME_PATTERN = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//;

/**
 * Parses `s3://bucket/prefix`. Throws `ConfigError` with a one-line fix for a missing or
 * invalid bucket name or a prefix with `.`/`..` parts.
 */
export function parseS3Target(target: string, source = 'EXPORT_DESTINATION'): S3Target {
  const rest = target.replace(SCHEME_PATTERN, '');
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const prefix = slash === -1 ? '' : rest.slice(slash + 1);
  if (bucket === '') {
    throw new ConfigError(`${source} "${target}" has no bucket: use s3://bucket/prefix`);
  }
  if (!BUCKET_PATTERN.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    throw new ConfigError(
      `${source} "${target}": "${bucket}" is not a valid bucket name: use 3-63 lowercase letters, digits, dots or hyphens`,
    );
  }
  if (prefix.split('/').some((part) => part === '.' || part === '..')) {
    throw new ConfigError(`${source} "${target}": the prefix may not contain "." or ".." parts`);
  }
  return { bucket, prefix: normalisePrefix(prefix) };
}

/**
 * The destination named by `target`. Touches no file and no network: the first write
 * creates folders (local) or fails with a message naming bucket and key (S3).
 */
export function openDestination(target: string, deps: DestinationDeps = {}): Destination {
  const source = deps.source ?? 'EXPORT_DESTINATION';
  const trimmed = target.trim();
  if (trimmed === '') {
    throw new ConfigError(`${source} is empty: use s3://bucket/prefix or a local directory such as ./data`);
  }
  const scheme = SCHEME_PATTERN.exec(trimmed)?.[1]?.toLowerCase();
  if (scheme === 's3') {
    const { bucket, prefix } = parseS3Target(trimmed, source);
    const client = deps.s3Client ?? new S3Client({});
    return createS3Destination({ bucket, prefix, client });
  }
  if (scheme === 'file') {
    return createLocalDestination(fileURLToPath(trimmed));
  }
  if (scheme !== undefined) {
    throw new ConfigError(
      `${source} "${trimmed}" uses an unsupported scheme "${scheme}://": use s3://bucket/prefix or a local directory`,
    );
  }
  return createLocalDestination(trimmed);
}
