import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDestination } from '../../../functions/shared/storage/destinations.js';
import { DestinationError } from '../../../functions/shared/errors.js';
import { configErrorOf, rejectionOf } from '../../helpers/errors.js';

describe('openDestination', () => {
  it('names the source it was given when the target is empty', () => {
    const error = configErrorOf(() => openDestination('', { source: '--out' }));
    expect(error.message).toMatch(/^--out is empty: /);
  });

  it('names the source it was given when an s3:// target has no bucket', () => {
    expect(configErrorOf(() => openDestination('s3://', { source: '--out' })).message).toBe('--out "s3://" has no bucket: use s3://bucket/prefix');
  });

  it('names EXPORT_DESTINATION when no source is given', () => {
    expect(configErrorOf(() => openDestination('  ')).message).toMatch(/^EXPORT_DESTINATION is empty: /);
  });
});

/**
 * A read-only file system needs a mount: root with CAP_SYS_ADMIN (a container like the
 * development machine's). Elsewhere the test is skipped, and says so.
 */
function readOnlyMount(): { readonly dir: string; unmount(): void } | undefined {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return undefined;
  const dir = mkdtempSync(path.join(tmpdir(), 'mintlify-ro-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    rmdirSync(dir);
    return undefined;
  }
  return {
    dir,
    unmount: () => {
      execFileSync('umount', [dir], { stdio: 'ignore' });
      rmdirSync(dir);
    },
  };
}

describe('a local destination on a read-only file system', () => {
  const probe = readOnlyMount();
  probe?.unmount();

  it.runIf(probe !== undefined)('fails its probe naming EROFS and saying the file system is read-only, not ENOENT', async () => {
    const mount = readOnlyMount();
    if (!mount) throw new Error('the read-only mount worked a moment ago');
    try {
      const error = await rejectionOf(openDestination(path.join(mount.dir, 'data')).probe());
      expect(error).toBeInstanceOf(DestinationError);
      expect(error.message).toContain('(EROFS)');
      expect(error.message).toContain('read-only');
    } finally {
      mount.unmount();
    }
  });
});

describe('a target that looks like a mistyped URL is refused with the correct form', () => {
  it.each([
    [
      's3:/bucket/exports',
      '--out "s3:/bucket/exports" is not an S3 URL: write s3://bucket/exports (two slashes); for a local folder of that name write ./s3:/bucket/exports',
    ],
    ['s3:bucket', '--out "s3:bucket" is not an S3 URL: write s3://bucket (two slashes); for a local folder of that name write ./s3:bucket'],
    ['s3:', '--out "s3:" is not an S3 URL: write s3://bucket/prefix (two slashes); for a local folder of that name write ./s3:'],
    ['S3://bucket/x', '--out "S3://bucket/x" is not an S3 URL: write s3://bucket/x (lowercase s3); for a local folder of that name write ./S3://bucket/x'],
  ])('%s', (target, message) => {
    expect(configErrorOf(() => openDestination(target, { source: '--out' })).message).toBe(message);
  });

  it('turns an https URL of an S3 bucket into its s3:// form', () => {
    expect(configErrorOf(() => openDestination('https://my-bucket.s3.eu-west-1.amazonaws.com/exports/mintlify')).message).toBe(
      'EXPORT_DESTINATION "https://my-bucket.s3.eu-west-1.amazonaws.com/exports/mintlify" is a web address, not a destination: write s3://my-bucket/exports/mintlify',
    );
    expect(configErrorOf(() => openDestination('https://s3.us-east-1.amazonaws.com/my-bucket/x')).message).toContain('write s3://my-bucket/x');
  });

  it('refuses any other https URL, saying what a destination is', () => {
    expect(configErrorOf(() => openDestination('https://example.com/data', { source: '--out' })).message).toBe(
      '--out "https://example.com/data" is a web address, not a destination: write s3://bucket/prefix or a local directory such as ./data',
    );
  });

  it('refuses another scheme, keeping ./ as the way to name a local folder with a colon', () => {
    expect(configErrorOf(() => openDestination('gs:/bucket', { source: '--out' })).message).toBe(
      '--out "gs:/bucket" uses an unsupported scheme "gs:": write s3://bucket/prefix or a local directory (./gs:/bucket for a local folder of that name)',
    );
  });

  it('accepts ./ before a name with a colon, s3:// and file:// targets', () => {
    expect(openDestination('./s3:/bucket').url).toBe(path.resolve('s3:/bucket'));
    expect(openDestination('s3://bucket/x').url).toBe('s3://bucket/x');
    expect(openDestination('file:///srv/data').url).toBe('/srv/data');
  });
});
