import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTableWriter } from '../../../../functions/export/parquet.js';
import { InvalidRowError } from '../../../../functions/export/errors.js';
import type { Destination, PendingWrite } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { FOLLOWUP_OUTCOMES, VISITORS_PAGES, VISITORS_TOTALS } from '../../../../functions/warehouse/tables.js';
import { TOTALS_COLUMNS } from '../../../helpers/expected-rows.js';
import { listFiles } from '../../../helpers/files.js';
import { parquetRowGroups, readParquet } from '../../../helpers/read-back.js';
import { appendError } from '../../../helpers/errors.js';

const EXPORTED_AT = new Date('2026-01-31T02:15:30.123Z');

let dir: string;
let destination: Destination;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'parquet-test-'));
  destination = createLocalDestination(dir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('openTableWriter', () => {
  it('writes visitors_totals that DuckDB reads as VARCHAR, DATE, BIGINT and TIMESTAMP', async () => {
    const writer = await openTableWriter(VISITORS_TOTALS, await destination.openWrite('totals.parquet'));
    await writer.append({ project_id: 'proj_1', date: '2024-02-29', human: 120, ai: 30, total: 140, pages: 12, exported_at: EXPORTED_AT });
    await writer.close();

    const { columns } = await readParquet(path.join(dir, 'totals.parquet'));

    // Legacy TIMESTAMP_MILLIS is UTC-normalised; DuckDB maps it to a plain TIMESTAMP.
    expect(columns).toEqual(TOTALS_COLUMNS);
  });

  it('reads back every totals value as written, dates not shifted', async () => {
    const rows = [
      { project_id: 'proj_1', date: '2024-02-29', human: 120, ai: 30, total: 140, pages: 12, exported_at: EXPORTED_AT },
      { project_id: 'proj_2', date: '2025-12-31', human: 0, ai: 0, total: 0, pages: 0, exported_at: EXPORTED_AT },
      { project_id: 'proj_3', date: '1999-01-01', human: 2 ** 40, ai: 7, total: 2 ** 40 + 1, pages: 1, exported_at: EXPORTED_AT },
    ];
    const writer = await openTableWriter(VISITORS_TOTALS, await destination.openWrite('totals.parquet'));
    for (const row of rows) await writer.append(row);
    const result = await writer.close();

    const read = await readParquet(path.join(dir, 'totals.parquet'));

    expect(result.rows).toBe(3);
    expect(read.rows).toEqual(rows.map((row) => ({ ...row, exported_at: EXPORTED_AT.toISOString(), unknown_fields: null })));
  });

  it('reads back visitors_pages with unicode paths value for value', async () => {
    const paths = ['/', '/docs/quickstart', '/ja/はじめに', '/emoji/🚀-launch', '/ü/ß?q=a&b=c', '/space here', "/quote'd"];
    const rows = paths.map((pagePath, i) => ({
      project_id: 'proj_ü',
      date: '2025-12-31',
      path: pagePath,
      human: i * 10,
      ai: i,
      total: i * 10 + (i % 2),
      exported_at: EXPORTED_AT.getTime(),
      unknown_fields: i % 2 === 0 ? null : JSON.stringify({ sessions: i, tags: ['ü', { deep: [i] }] }),
    }));
    const writer = await openTableWriter(VISITORS_PAGES, await destination.openWrite('pages.parquet'));
    for (const row of rows) await writer.append(row);
    const { bytes } = await writer.close();

    const read = await readParquet(path.join(dir, 'pages.parquet'));

    expect(read.columns.map((column) => column.type)).toEqual(['VARCHAR', 'DATE', 'VARCHAR', 'BIGINT', 'BIGINT', 'BIGINT', 'TIMESTAMP', 'VARCHAR']);
    expect(read.rows).toEqual(rows.map((row) => ({ ...row, exported_at: EXPORTED_AT.toISOString() })));
    expect(bytes).toBeGreaterThan(0);
  });

  it('writes nulls for absent optional columns and values for present ones', async () => {
    const base = {
      request_id: 'r1',
      project_id: 'p',
      job_id: 'j',
      prompt_length: 5,
      prompt_sha256: 'ab',
      status: 'completed',
      finished_at: EXPORTED_AT,
      polls: 3,
      attempts: 1,
    };
    const writer = await openTableWriter(FOLLOWUP_OUTCOMES, await destination.openWrite('outcomes.parquet'));
    await writer.append({ ...base, pr_link: null });
    await writer.append({ ...base, request_id: 'r2', pr_link: 'https://github.com/o/r/pull/1', sent_at: EXPORTED_AT });
    await writer.close();

    const { rows } = await readParquet(path.join(dir, 'outcomes.parquet'), { orderBy: 'request_id' });

    expect(rows.map((row) => [row['pr_link'], row['sent_at'], row['detail']])).toEqual([
      [null, null, null],
      ['https://github.com/o/r/pull/1', EXPORTED_AT.toISOString(), null],
    ]);
  });

  it('writes a file with no rows that DuckDB reads as empty', async () => {
    const writer = await openTableWriter(VISITORS_PAGES, await destination.openWrite('empty.parquet'));
    const result = await writer.close();

    const read = await readParquet(path.join(dir, 'empty.parquet'));

    expect(result.rows).toBe(0);
    expect(read.rows).toEqual([]);
    expect(read.columns.map((column) => column.name)).toEqual(VISITORS_PAGES.columns.map((column) => column.name));
  });

  it('splits 50k rows into several row groups, flushing each before close', async () => {
    const pending = await destination.openWrite('big.parquet');
    let bytesBeforeClose = 0;
    const originalWrite = pending.stream.write.bind(pending.stream);
    pending.stream.write = ((chunk: Buffer, ...rest: never[]) => {
      bytesBeforeClose += chunk.length;
      return originalWrite(chunk, ...rest);
    }) as typeof pending.stream.write;
    const writer = await openTableWriter(VISITORS_PAGES, pending);
    for (let i = 0; i < 50_000; i++) {
      await writer.append({ project_id: 'proj_1', date: '2026-01-30', path: `/docs/page-${i}`, human: i, ai: i % 7, total: i, exported_at: EXPORTED_AT });
    }
    const flushedBeforeClose = bytesBeforeClose;
    await writer.close();

    const file = path.join(dir, 'big.parquet');
    const info = await parquetRowGroups(file);
    const [last] = (await readParquet(file, { orderBy: 'human DESC' })).rows;

    expect(info).toEqual({ rowGroups: 3, rows: 50_000 });
    // Two full row groups (40k rows) were already on disk: memory holds at most one.
    expect(flushedBeforeClose).toBeGreaterThan(40_000 * 8);
    expect(last).toMatchObject({ path: '/docs/page-49999', human: 49_999 });
  });

  it('honours a smaller rowGroupSize', async () => {
    const writer = await openTableWriter(VISITORS_PAGES, await destination.openWrite('small-groups.parquet'), { rowGroupSize: 10 });
    for (let i = 0; i < 25; i++) {
      await writer.append({ project_id: 'p', date: '2026-01-30', path: `/${i}`, human: i, ai: 0, total: i, exported_at: EXPORTED_AT });
    }
    await writer.close();

    expect(await parquetRowGroups(path.join(dir, 'small-groups.parquet'))).toEqual({ rowGroups: 3, rows: 25 });
  });
});

describe('row validation', () => {
  const good = { project_id: 'p', date: '2026-01-30', path: '/a', human: 1, ai: 2, total: 3, exported_at: EXPORTED_AT };

  const appendOne = (row: Record<string, unknown>) => appendError(VISITORS_PAGES, destination, row);

  it('refuses a string in an int64 column, naming the column', async () => {
    const error = await appendOne({ ...good, human: '12' });

    expect(error).toBeInstanceOf(InvalidRowError);
    expect((error as Error).message).toBe('visitors_pages row 0: column "human" (int64) got string "12": use an integer number (a safe integer, |n| < 2^53)');
  });

  it('refuses a fractional or unsafe int64 value', async () => {
    expect(await appendOne({ ...good, ai: 1.5 })).toBeInstanceOf(InvalidRowError);
    expect(await appendOne({ ...good, ai: 2 ** 53 })).toBeInstanceOf(InvalidRowError);
  });

  it('refuses a row missing a required column, naming it', async () => {
    const { total: _total, ...row } = good;

    const error = await appendOne(row);

    expect(error).toBeInstanceOf(InvalidRowError);
    expect((error as Error).message).toBe('visitors_pages row 0: required column "total" is missing');
  });

  it('refuses a column the table does not have', async () => {
    const error = await appendOne({ ...good, visits: 4 });

    expect((error as Error).message).toMatch(/unknown column\(s\) "visits"/);
  });

  it('refuses dates that are not existing YYYY-MM-DD days', async () => {
    for (const date of ['2026-02-30', '2026-1-30', '2026-01-30T00:00:00Z', new Date('2026-01-30T12:00:00Z')]) {
      const error = await appendOne({ ...good, date });
      expect(error, String(date)).toBeInstanceOf(InvalidRowError);
    }
  });

  it('refuses timestamps given as strings', async () => {
    const error = await appendOne({ ...good, exported_at: '2026-01-31T02:15:30Z' });

    expect((error as Error).message).toMatch(/column "exported_at" \(timestamp_ms\).*use a Date or integer epoch milliseconds/);
  });

  it('keeps the writer usable after a refused row', async () => {
    const writer = await openTableWriter(VISITORS_PAGES, await destination.openWrite('mixed.parquet'));
    await expect(writer.append({ ...good, human: 'x' })).rejects.toBeInstanceOf(InvalidRowError);
    await writer.append(good);
    await writer.close();

    const { rows } = await readParquet(path.join(dir, 'mixed.parquet'));

    expect(rows).toEqual([{ ...good, exported_at: EXPORTED_AT.toISOString(), unknown_fields: null }]);
  });

  it('leaves no file at all when a write with a bad row is aborted', async () => {
    const writer = await openTableWriter(VISITORS_PAGES, await destination.openWrite('dt=2026-01-30/proj.parquet'));
    for (let i = 0; i < 30_000; i++) await writer.append({ ...good, path: `/${i}` });
    await expect(writer.append({ ...good, human: undefined })).rejects.toThrow(/"human" is missing/);

    await writer.abort(new Error('bad row'));

    expect(await listFiles(dir)).toEqual([]);
    expect(await destination.exists('dt=2026-01-30/proj.parquet')).toBe(false);
  });

  it('keeps the previous file when a rewrite is aborted', async () => {
    const first = await openTableWriter(VISITORS_PAGES, await destination.openWrite('keep.parquet'));
    await first.append(good);
    await first.close();

    const second = await openTableWriter(VISITORS_PAGES, await destination.openWrite('keep.parquet'));
    await second.append({ ...good, path: '/b' });
    await second.abort();

    const { rows } = await readParquet(path.join(dir, 'keep.parquet'));
    expect(rows.map((row) => row['path'])).toEqual(['/a']);
    expect(await listFiles(dir)).toEqual(['keep.parquet']);
  });
});

describe('failures of the stream', () => {
  function failingPending(): { pending: PendingWrite; calls: string[] } {
    const calls: string[] = [];
    const stream = new Writable({
      write(_chunk, _encoding, callback) {
        callback(new Error('disk on fire'));
      },
    });
    const pending: PendingWrite = {
      stream,
      commit: async () => {
        calls.push('commit');
        return { bytes: 0 };
      },
      abort: async () => {
        calls.push('abort');
      },
    };
    return { pending, calls };
  }

  it('rejects append with a DestinationError naming the cause when the stream fails', async () => {
    const { pending } = failingPending();
    const writer = await openTableWriter(VISITORS_PAGES, pending, { rowGroupSize: 1 });

    const appended = writer.append({ project_id: 'p', date: '2026-01-30', path: '/a', human: 1, ai: 1, total: 1, exported_at: 0 });

    await expect(appended).rejects.toMatchObject({ name: 'DestinationError', message: expect.stringMatching(/disk on fire/) });
  });

  it('never commits after a stream failure, and aborts instead', async () => {
    const { pending, calls } = failingPending();
    const writer = await openTableWriter(VISITORS_PAGES, pending);
    await writer.append({ project_id: 'p', date: '2026-01-30', path: '/a', human: 1, ai: 1, total: 1, exported_at: 0 });

    await expect(writer.close()).rejects.toMatchObject({ name: 'DestinationError' });
    await writer.abort();

    expect(calls).toEqual(['abort']);
  });

  it('does not hang when the destination stream is destroyed mid-write', async () => {
    // A Transform never calls back writes that wait on a full buffer once destroyed.
    const { Transform } = await import('node:stream');
    const stream = new Transform({ highWaterMark: 16, transform: (chunk, _encoding, callback) => callback(null, chunk) });
    const pending: PendingWrite = { stream, commit: async () => ({ bytes: 0 }), abort: async () => undefined };
    const writer = await openTableWriter(VISITORS_PAGES, pending, { rowGroupSize: 1 });
    setTimeout(() => stream.destroy(new Error('upload failed')), 20);

    const appended = writer.append({ project_id: 'p', date: '2026-01-30', path: '/a', human: 1, ai: 1, total: 1, exported_at: 0 });

    await expect(appended).rejects.toThrow(/upload failed/);
  });
});
