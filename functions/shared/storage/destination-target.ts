/**
 * What `EXPORT_DESTINATION` (or `--out`) names, parsed without touching a file or the network:
 * `s3://bucket/prefix`, `file://…`, or a local directory. Anything that looks like a mistyped
 * URL (`s3:/bucket`, `s3:bucket`, `S3://…`, an `https://` address) is refused with the form
 * that was meant: written as a local folder it would export to a folder named `s3:` and
 * report success. A folder whose name really has a colon is written `./s3:…`.
 */
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';

export type DestinationTarget =
  | { readonly kind: 's3'; readonly bucket: string /** `''` or a prefix ending in `/`. */; readonly prefix: string }
  | { readonly kind: 'local'; readonly dir: string };

/** Parsed form of an `s3://` target. */
export interface S3Target {
  readonly bucket: string;
  /** `''` or a prefix ending in `/`. */
  readonly prefix: string;
}

// S3 general purpose bucket names: 3–63 of a-z 0-9 . -, starting and ending with a letter
// or digit, no "..", not an IPv4 address.
const BUCKET_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** A scheme of two characters or more and its colon (one letter is a drive, `C:`). */
const SCHEME_PATTERN = /^([A-Za-z][A-Za-z0-9+.-]+):/;
/** `bucket.s3.amazonaws.com`, `bucket.s3.<region>.amazonaws.com`, `bucket.s3-<region>.amazonaws.com`. */
const VIRTUAL_HOSTED = /^(.+)\.s3(?:[.-][a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?$/;
/** `s3.amazonaws.com`, `s3.<region>.amazonaws.com`, `s3-<region>.amazonaws.com` (path style). */
const PATH_STYLE = /^s3(?:[.-][a-z0-9-]+)?\.amazonaws\.com(?:\.cn)?$/;

/** `''` or `a/b/`: no leading slash, no empty segments, exactly one trailing slash. */
export function normalisePrefix(prefix: string): string {
  const parts = prefix.split('/').filter((part) => part !== '');
  return parts.length === 0 ? '' : `${parts.join('/')}/`;
}

/**
 * Parses `s3://bucket/prefix`. Throws `ConfigError` with a one-line fix for a missing or
 * invalid bucket name or a prefix with `.`/`..` parts.
 */
export function parseS3Target(target: string, source = 'EXPORT_DESTINATION'): S3Target {
  const rest = target.replace(/^s3:\/\//i, '');
  const slash = rest.indexOf('/');
  const bucket = slash === -1 ? rest : rest.slice(0, slash);
  const prefix = slash === -1 ? '' : rest.slice(slash + 1);
  if (bucket === '') {
    throw new ConfigError(`${source} "${target}" has no bucket: use s3://bucket/prefix`);
  }
  if (!BUCKET_PATTERN.test(bucket) || bucket.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(bucket)) {
    throw new ConfigError(`${source} "${target}": "${bucket}" is not a valid bucket name: use 3-63 lowercase letters, digits, dots or hyphens`);
  }
  if (prefix.split('/').some((part) => part === '.' || part === '..')) {
    throw new ConfigError(`${source} "${target}": the prefix may not contain "." or ".." parts`);
  }
  return { bucket, prefix: normalisePrefix(prefix) };
}

/**
 * The destination `target` names. `source` (the variable or flag it came from) is named in
 * every message.
 * @throws ConfigError for an empty target, a mistyped URL, an unsupported scheme or a bad bucket.
 */
export function parseDestinationTarget(target: string, source = 'EXPORT_DESTINATION'): DestinationTarget {
  const trimmed = target.trim();
  if (trimmed === '') {
    throw new ConfigError(`${source} is empty: use s3://bucket/prefix or a local directory such as ./data`);
  }
  const scheme = SCHEME_PATTERN.exec(trimmed)?.[1];
  if (scheme === undefined) return { kind: 'local', dir: trimmed };
  const rest = trimmed.slice(scheme.length + 1);
  const quoted = `${source} "${trimmed}"`;
  const local = `./${trimmed}`;
  if (scheme === 's3' && rest.startsWith('//')) return { kind: 's3', ...parseS3Target(trimmed, source) };
  if (scheme.toLowerCase() === 's3') {
    const path = rest.replace(/^\/+/, '');
    const why = scheme === 's3' ? 'two slashes' : 'lowercase s3';
    throw new ConfigError(
      `${quoted} is not an S3 URL: write s3://${path === '' ? 'bucket/prefix' : path} (${why}); for a local folder of that name write ${local}`,
    );
  }
  if (scheme === 'file' && rest.startsWith('//')) {
    try {
      return { kind: 'local', dir: fileURLToPath(trimmed) };
    } catch {
      throw new ConfigError(`${quoted} is not a file URL of this machine: write file:///absolute/path or the directory itself`);
    }
  }
  if (/^https?$/i.test(scheme)) {
    throw new ConfigError(
      `${quoted} is a web address, not a destination: write ${s3FormOf(trimmed) ?? 's3://bucket/prefix or a local directory such as ./data'}`,
    );
  }
  const shown = rest.startsWith('//') ? `${scheme}://` : `${scheme}:`;
  throw new ConfigError(
    `${quoted} uses an unsupported scheme "${shown}": write s3://bucket/prefix or a local directory (${local} for a local folder of that name)`,
  );
}

/** The `s3://bucket/prefix` an S3 web address (virtual-hosted or path style) stands for. */
function s3FormOf(address: string): string | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  const path = url.pathname.split('/').filter((part) => part !== '');
  const hosted = VIRTUAL_HOSTED.exec(url.hostname)?.[1];
  const parts = hosted !== undefined ? [hosted, ...path] : PATH_STYLE.test(url.hostname) ? path : [];
  return parts.length > 0 ? `s3://${parts.map(decodeURIComponent).join('/')}` : undefined;
}
