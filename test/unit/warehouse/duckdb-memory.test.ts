/**
 * DuckDB's memory in a Lambda function (issue 50, the year's report): openDuckDb sets a
 * `memory_limit` of the function's memory's share and a temp folder to spill to, so a table larger
 * than the limit is kept on disk rather than ending the invocation; outside Lambda it sets neither.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { duckDbDefaults, LAMBDA_DUCKDB_SHARE, openDuckDb } from '../../../functions/warehouse/duckdb.js';

let spill: string;
beforeAll(async () => {
  spill = await mkdtemp(path.join(tmpdir(), 'duckdb-spill-'));
});
afterAll(async () => {
  await rm(spill, { recursive: true, force: true });
});

describe('DuckDB within a function’s memory', () => {
  it('takes its share of the Lambda function’s memory and a temp folder there; nothing elsewhere or on a value it cannot read', () => {
    const first = duckDbDefaults({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024' });
    expect(first).toEqual({ memoryLimitMb: 1024 * LAMBDA_DUCKDB_SHARE, tempDirectory: expect.stringContaining(path.join(tmpdir(), `duckdb-${process.pid}-`)) });
    // Each session its own folder: two instances' temp files in one would collide.
    expect(duckDbDefaults({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '1024' }).tempDirectory).not.toBe(first.tempDirectory);
    expect(duckDbDefaults({})).toEqual({});
    for (const odd of ['', '0', '-128', '1.5', 'lots']) expect(duckDbDefaults({ AWS_LAMBDA_FUNCTION_MEMORY_SIZE: odd }), odd).toEqual({});
  });

  it('keeps a table larger than its limit by spilling it to the temp folder', async () => {
    const session = await openDuckDb({ memoryLimitMb: 64, tempDirectory: spill });
    try {
      const [setting] = await session.query("SELECT current_setting('memory_limit') AS memory_limit");
      expect(setting?.['memory_limit']).toBe('61.0 MiB');
      // About 150 MB of text, over twice the limit.
      await session.run('CREATE TABLE big AS SELECT range AS n, repeat(chr(65 + (range % 26)::INT), 120) || range::VARCHAR AS s FROM range(1200000)');
      const [held] = await session.query('SELECT count(*) AS n, sum(length(s)) AS bytes FROM big');
      expect(held).toEqual({ n: 1_200_000, bytes: expect.any(Number) });
      expect(Number(held?.['bytes'])).toBeGreaterThan(2 * 64 * 1024 * 1024);
      const [spilled] = await session.query('SELECT count(*) AS files, coalesce(sum(size), 0) AS size FROM duckdb_temporary_files()');
      expect(Number(spilled?.['files'])).toBeGreaterThan(0);
    } finally {
      session.close();
    }
  });
});
