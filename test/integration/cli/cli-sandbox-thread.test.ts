import { threadId } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { startEmbeddedSandbox } from '../../../functions/cli/sandbox-thread.js';
import { runSpawnedCli } from '../../helpers/cli.js';
import { makeTempDir } from '../../helpers/files.js';

describe('the CLI’s embedded sandbox', () => {
  it('serves the API from a worker thread of its own, so that the export has a core to itself', async () => {
    const sandbox = await startEmbeddedSandbox({ stderr: process.stderr });
    try {
      expect(sandbox.threadId).toBeTypeOf('number');
      expect(sandbox.threadId).not.toBe(threadId);
      expect(sandbox.projectIds).toEqual(['proj_small', 'proj_medium', 'proj_large']);

      const response = await fetch(`${sandbox.url}/v1/analytics/proj_small/visitors?dateFrom=2026-11-20&dateTo=2026-11-21`, {
        headers: { authorization: `Bearer ${sandbox.apiKey}` },
      });

      expect(response.status).toBe(200);
      expect(((await response.json()) as { visitors: unknown[] }).visitors.length).toBeGreaterThan(0);
    } finally {
      await sandbox.close();
    }
  });

  it('stops listening once closed (twice is fine)', async () => {
    const sandbox = await startEmbeddedSandbox({ stderr: process.stderr });
    await sandbox.close();
    await sandbox.close();

    await expect(fetch(`${sandbox.url}/v1/analytics/proj_small/visitors`, { headers: { authorization: `Bearer ${sandbox.apiKey}` } })).rejects.toThrow();
  });

  it.each(['bin', 'source'] as const)('lets the real CLI (%s) export and exit 0 once the thread is closed', async (entry) => {
    const out = await makeTempDir('sandbox-thread');

    const run = await runSpawnedCli(['export', '--date', '2026-11-20', '--project', 'proj_small', '--dataset', 'caller_stats', '--out', out], {}, { entry });

    expect(run.stderr).toContain('using the embedded sandbox API');
    expect(run.stdout).toContain('1 of 1 unit(s) exported');
    expect(run.code).toBe(0);
  });
});
