/**
 * Every analytics table of the dataset contract (DESIGN "Every analytics dataset…"), written
 * with the export's Parquet writer and read back by DuckDB the way a warehouse would: exact
 * column names, order and types, and values (nulls, unicode, doubles, booleans) unchanged.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTableWriter } from '../../../../functions/export/parquet.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { InvalidRowError } from '../../../../functions/export/errors.js';
import {
  ASSISTANT_CALLER_STATS,
  ASSISTANT_CONVERSATIONS,
  FEEDBACK,
  FEEDBACK_BY_PAGE,
  SEARCHES,
  SEARCHES_TOTALS,
  VIEWS_PAGES,
  VIEWS_TOTALS,
  partitionKey,
} from '../../../../functions/warehouse/tables.js';
import type { TableDef } from '../../../../functions/warehouse/table-def.js';
import { DATASET_TABLES } from '../../../../functions/warehouse/catalog.js';
import { CONTRACT_COLUMNS } from '../../../helpers/expected-rows.js';
import { readParquet, type ParquetColumn } from '../../../helpers/read-back.js';
import { appendError } from '../../../helpers/errors.js';

const DAY = '2026-01-15';
const EXPORTED_AT = new Date('2026-01-16T03:05:07.089Z');

/**
 * The contract for the tables this file writes: the datasets helpers' copy, written out
 * independently of tables.ts so that a drift there fails here.
 */
const CONTRACT: ReadonlyMap<TableDef, ParquetColumn[]> = new Map(
  [VIEWS_TOTALS, VIEWS_PAGES, SEARCHES_TOTALS, SEARCHES, FEEDBACK, FEEDBACK_BY_PAGE, ASSISTANT_CONVERSATIONS, ASSISTANT_CALLER_STATS].map((table) => [
    table,
    CONTRACT_COLUMNS[table.name] ?? [],
  ]),
);

const SOURCES = [
  { title: 'Clés API — rotation', url: 'https://docs.example.com/fr/clés' },
  { title: 'API "keys"', url: '/api/keys?x=1&y=2' },
];

/** A few rows per table: nulls in every nullable column, unicode, extremes. */
const ROWS: ReadonlyMap<TableDef, Record<string, unknown>[]> = new Map<TableDef, Record<string, unknown>[]>([
  [VIEWS_TOTALS, [{ project_id: 'proj_ü', date: DAY, human: 2 ** 40, ai: 0, total: 2 ** 40 - 3, pages: 2, exported_at: EXPORTED_AT }]],
  [
    VIEWS_PAGES,
    [
      { project_id: 'proj_ü', date: DAY, path: '/ja/はじめに', human: 5, ai: 1, total: 6, exported_at: EXPORTED_AT },
      { project_id: 'proj_ü', date: DAY, path: '/emoji/🚀', human: 0, ai: 9, total: 9, exported_at: EXPORTED_AT },
    ],
  ],
  [SEARCHES_TOTALS, [{ project_id: 'proj_1', date: DAY, total_searches: 57, terms: 3, exported_at: EXPORTED_AT }]],
  [
    SEARCHES,
    [
      {
        project_id: 'proj_1',
        date: DAY,
        search_query: 'authentification ñ',
        hits: 42,
        ctr: 0.31,
        top_clicked_page: '/api/auth',
        last_searched_at: Date.UTC(2026, 0, 15, 10, 30, 0, 250),
        exported_at: EXPORTED_AT,
      },
      {
        project_id: 'proj_1',
        date: DAY,
        search_query: '検索',
        hits: 10,
        ctr: 87.5,
        top_clicked_page: null,
        last_searched_at: null,
        exported_at: EXPORTED_AT,
      },
      { project_id: 'proj_1', date: DAY, search_query: "o'clock", hits: 5, ctr: 0, exported_at: EXPORTED_AT },
    ],
  ],
  [
    FEEDBACK,
    [
      {
        project_id: 'proj_1',
        date: DAY,
        feedback_id: 'fb_1',
        path: '/quickstart',
        source: 'contextual',
        status: 'pending',
        comment: 'Ça ne marche pas 😞',
        created_at: Date.UTC(2026, 0, 15, 8, 0, 0),
        helpful: false,
        contact: 'ana@example.com',
        code: null,
        filename: null,
        lang: null,
        exported_at: EXPORTED_AT,
      },
      {
        project_id: 'proj_1',
        date: DAY,
        feedback_id: 'fb_2',
        path: 'https://docs.example.com/api',
        source: 'code_snippet',
        status: 'in_progress',
        comment: null,
        created_at: null,
        helpful: null,
        contact: null,
        code: 'curl -X POST "https://api.example.com"\n  -d \'{}\'',
        filename: 'example.sh',
        lang: 'bash',
        exported_at: EXPORTED_AT,
      },
      {
        project_id: 'proj_1',
        date: DAY,
        feedback_id: 'fb_3',
        path: '/a',
        source: 'contextual',
        status: 'resolved',
        helpful: true,
        exported_at: EXPORTED_AT,
      },
    ],
  ],
  [
    FEEDBACK_BY_PAGE,
    [
      { project_id: 'proj_1', date: DAY, path: '/quickstart', thumbs_up: 12, thumbs_down: 5, code: 2, total: 19, exported_at: EXPORTED_AT },
      { project_id: 'proj_1', date: DAY, path: '/Ü', thumbs_up: 0, thumbs_down: 0, code: 0, total: 0, exported_at: EXPORTED_AT },
    ],
  ],
  [
    ASSISTANT_CONVERSATIONS,
    [
      {
        project_id: 'proj_1',
        date: DAY,
        conversation_id: '01JH8Z3Q4V5W6X7Y8Z9A0B1C2D',
        asked_at: Date.UTC(2026, 0, 15, 10, 30, 0),
        query: 'Comment changer ma clé ?',
        response: 'Allez dans Réglages → Clés API.',
        response_type: 'answer',
        resolution_status: 'answered',
        query_category: 'authentication',
        page_url: 'https://docs.example.com/fr',
        source_count: 2,
        sources_json: JSON.stringify(SOURCES),
        exported_at: EXPORTED_AT,
      },
      {
        project_id: 'proj_1',
        date: DAY,
        conversation_id: '01JH8Z3Q4V5W6X7Y8Z9A0B1C2D',
        asked_at: Date.UTC(2026, 0, 15, 10, 31, 0),
        query: 'Which one?',
        response: '',
        response_type: 'clarifying_question',
        resolution_status: 'unanswered',
        query_category: null,
        page_url: null,
        source_count: 0,
        sources_json: '[]',
        exported_at: EXPORTED_AT,
      },
    ],
  ],
  [ASSISTANT_CALLER_STATS, [{ project_id: 'proj_1', date: DAY, web: 120, api: 30, other: 5, total: 156, exported_at: EXPORTED_AT }]],
]);

let dir: string;
let destination: Destination;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'parquet-datasets-'));
  destination = createLocalDestination(dir);
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * Writes `rows` to `key` and returns the file's path. The default key is outside any `dt=`
 * folder: DuckDB adds Hive partition columns on its own when a path has one.
 */
async function writeTable(table: TableDef, rows: readonly Record<string, unknown>[], key = `${table.name}.parquet`): Promise<string> {
  const writer = await openTableWriter(table, await destination.openWrite(key));
  for (const row of rows) await writer.append(row);
  const result = await writer.close();
  expect(result.rows).toBe(rows.length);
  return path.join(dir, ...key.split('/'));
}

/** What DuckDB returns for `row`: every column present, nulls for absent ones, timestamps as ISO. */
function expectedRow(table: TableDef, row: Record<string, unknown>): Record<string, unknown> {
  const expected: Record<string, unknown> = {};
  for (const column of table.columns) {
    const value = row[column.name] ?? null;
    if (column.type === 'timestamp_ms' && value !== null) {
      expected[column.name] = (value instanceof Date ? value : new Date(value as number)).toISOString();
    } else {
      expected[column.name] = value;
    }
  }
  return expected;
}

describe('dataset tables in DuckDB', () => {
  it('covers every table of every dataset but visitors', () => {
    const tables = Object.entries(DATASET_TABLES)
      .filter(([dataset]) => dataset !== 'visitors')
      .flatMap(([, defs]) => defs);
    expect(new Set(tables)).toEqual(new Set(CONTRACT.keys()));
  });

  it.each([...CONTRACT].map(([table, expected]) => [table.name, table, expected] as const))(
    'writes %s with the contract column names, order and types',
    async (_name, table, expected) => {
      const file = await writeTable(table, ROWS.get(table) ?? []);

      const { columns: actual } = await readParquet(file);

      expect(actual).toEqual(expected);
    },
  );

  it.each([...ROWS].map(([table, rows]) => [table.name, table, rows] as const))(
    'reads %s back value for value, nulls and unicode included',
    async (_name, table, rows) => {
      const file = await writeTable(table, rows);

      const { rows: read } = await readParquet(file);

      expect(read).toEqual(rows.map((row) => expectedRow(table, row)));
    },
  );

  it.each([...CONTRACT].map(([table, expected]) => [table.name, table, expected] as const))(
    'writes an empty %s file that still has every column',
    async (_name, table, expected) => {
      const file = await writeTable(table, []);

      const read = await readParquet(file);

      expect(read).toEqual({ columns: expected, rows: [] });
    },
  );

  it('keeps ctr as a double, on whatever scale it came', async () => {
    const file = await writeTable(SEARCHES, ROWS.get(SEARCHES) ?? []);

    const { rows } = await readParquet(file, { orderBy: 'ctr' });

    expect(rows.map((row) => row['ctr'])).toEqual([0, 0.31, 87.5]);
  });

  it('stores sources_json so that a warehouse can parse it back into {title, url}', async () => {
    const file = await writeTable(ASSISTANT_CONVERSATIONS, ROWS.get(ASSISTANT_CONVERSATIONS) ?? []);

    const { rows } = await readParquet(file, { orderBy: 'asked_at' });

    expect(rows.map((row) => JSON.parse(String(row['sources_json'])))).toEqual([SOURCES, []]);
  });

  it('reads a table under its Hive layout with the dt partition', async () => {
    await writeTable(FEEDBACK_BY_PAGE, ROWS.get(FEEDBACK_BY_PAGE) ?? [], partitionKey(FEEDBACK_BY_PAGE, DAY, 'proj_1.parquet'));

    const { rows } = await readParquet(path.join(dir, FEEDBACK_BY_PAGE.prefix, '*', '*.parquet'), {
      hivePartitioning: true,
      orderBy: 'path',
    });

    expect(rows.map((row) => [row['dt'], row['path'], row['thumbs_down']])).toEqual([
      [DAY, '/quickstart', 5],
      [DAY, '/Ü', 0],
    ]);
  });
});

describe('double columns', () => {
  const good = ROWS.get(SEARCHES)?.[0] ?? {};

  const appendOne = (row: Record<string, unknown>) => appendError(SEARCHES, destination, row);

  it('refuses a number sent as a string, naming the column', async () => {
    const error = await appendOne({ ...good, ctr: '0.3' });

    expect(error).toBeInstanceOf(InvalidRowError);
    expect((error as Error).message).toBe('searches row 0: column "ctr" (double) got string "0.3": use a finite number');
  });

  it('refuses NaN and infinities', async () => {
    for (const ctr of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(await appendOne({ ...good, ctr }), String(ctr)).toBeInstanceOf(InvalidRowError);
    }
  });

  it('refuses a missing ctr, which is not nullable', async () => {
    const { ctr: _ctr, ...row } = good;

    expect(((await appendOne(row)) as Error).message).toBe('searches row 0: required column "ctr" is missing');
  });
});
