import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDestination } from '../../../functions/shared/destinations.js';
import { ConfigError, DestinationError } from '../../../functions/shared/errors.js';
import { configErrorOf } from '../../helpers/errors.js';

async function failureOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

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
      const error = await failureOf(openDestination(path.join(mount.dir, 'data')).probe());
      expect(error).toBeInstanceOf(DestinationError);
      expect(error.message).toContain('(EROFS)');
      expect(error.message).toContain('read-only');
    } finally {
      mount.unmount();
    }
  });
});
