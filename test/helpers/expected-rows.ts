/**
 * Role: the one oracle of what the warehouse must hold. The contract's columns (names, order,
 * DuckDB types) and the rows a correct export of a unit writes, mapped here by hand from the
 * sandbox's own data (`sandbox.data`) — written out independently of
 * `functions/warehouse/tables.ts` and of the export's row mapping, so a drift in either fails a
 * test. Plus the assertions that hold what was read back against it.
 */
import { expect } from 'vitest';
import type { DatasetName } from '../../functions/warehouse/catalog.js';
import type { Destination } from '../../functions/shared/storage/destination.js';
import type { Sandbox, SandboxData } from '../../sandbox/index.js';
import { tableNames } from './layout.js';
import { readTable, type ExportedDay, type ParquetColumn, type ParquetContents, type PlainRow, type UnitTables } from './read-back.js';
import { hmacOf, maskPath, maskText } from '../../functions/shared/personal-data/index.js';
import { TEST_PERSONAL_DATA_KEY } from './run-deps.js';

/** `[name, DuckDB type]` pairs between `project_id`/`date` and `exported_at`, `unknown_fields`. */
function contract(...pairs: [string, string][]): ParquetColumn[] {
  return [['project_id', 'VARCHAR'], ['date', 'DATE'], ...pairs, ['exported_at', 'TIMESTAMP'], ['unknown_fields', 'VARCHAR']].map(([name, type]) => ({
    name: name as string,
    type: type as string,
  }));
}

/**
 * The columns DuckDB must report for each table, in file order (DESIGN "Every analytics
 * dataset…"; docs/design.md §2.3), written out independently of `functions/warehouse/tables.ts`.
 */
export const CONTRACT_COLUMNS: Readonly<Record<string, ParquetColumn[]>> = {
  visitors_totals: contract(['human', 'BIGINT'], ['ai', 'BIGINT'], ['total', 'BIGINT'], ['pages', 'BIGINT']),
  visitors_pages: contract(['path', 'VARCHAR'], ['human', 'BIGINT'], ['ai', 'BIGINT'], ['total', 'BIGINT']),
  views_totals: contract(['human', 'BIGINT'], ['ai', 'BIGINT'], ['total', 'BIGINT'], ['pages', 'BIGINT']),
  views_pages: contract(['path', 'VARCHAR'], ['human', 'BIGINT'], ['ai', 'BIGINT'], ['total', 'BIGINT']),
  searches_totals: contract(['total_searches', 'BIGINT'], ['terms', 'BIGINT']),
  searches: contract(['search_query', 'VARCHAR'], ['hits', 'BIGINT'], ['ctr', 'DOUBLE'], ['top_clicked_page', 'VARCHAR'], ['last_searched_at', 'TIMESTAMP']),
  feedback: contract(
    ['feedback_id', 'VARCHAR'],
    ['path', 'VARCHAR'],
    ['source', 'VARCHAR'],
    ['status', 'VARCHAR'],
    ['comment', 'VARCHAR'],
    ['created_at', 'TIMESTAMP'],
    ['helpful', 'BOOLEAN'],
    ['contact', 'VARCHAR'],
    ['code', 'VARCHAR'],
    ['filename', 'VARCHAR'],
    ['lang', 'VARCHAR'],
  ),
  feedback_by_page: contract(['path', 'VARCHAR'], ['thumbs_up', 'BIGINT'], ['thumbs_down', 'BIGINT'], ['code', 'BIGINT'], ['total', 'BIGINT']),
  assistant_conversations: contract(
    ['conversation_id', 'VARCHAR'],
    ['asked_at', 'TIMESTAMP'],
    ['query', 'VARCHAR'],
    ['response', 'VARCHAR'],
    ['response_type', 'VARCHAR'],
    ['resolution_status', 'VARCHAR'],
    ['query_category', 'VARCHAR'],
    ['page_url', 'VARCHAR'],
    ['source_count', 'BIGINT'],
    ['sources_json', 'VARCHAR'],
  ),
  assistant_caller_stats: contract(['web', 'BIGINT'], ['api', 'BIGINT'], ['other', 'BIGINT'], ['total', 'BIGINT']),
};

/** The visitors tables' columns, the first dataset's tests' names for them. */
export const PAGES_COLUMNS = CONTRACT_COLUMNS['visitors_pages'] as ParquetColumn[];
export const TOTALS_COLUMNS = CONTRACT_COLUMNS['visitors_totals'] as ParquetColumn[];

export interface ExpectedOptions {
  /** The `exported_at` of every row, ISO with ms. Without it the rows have no `exported_at` (compare with rows read back without it). */
  readonly exportedAt?: string;
  /** The policy of feedback's `contact` (PERSONAL_DATA_POLICY). @default 'hmac' */
  readonly contact?: 'hmac' | 'keep' | 'drop';
  /** The personal-data key of the `hmac` columns. @default TEST_PERSONAL_DATA_KEY */
  readonly key?: string;
  /** Free text as the API sent it (a run with PERSONAL_DATA_POLICY keeping it). @default false: masked */
  readonly rawText?: boolean;
}

/** A timestamp as DuckDB reads it back: ISO with ms. */
const iso = (text: string | null): string | null => (text === null ? null : new Date(Date.parse(text)).toISOString());

/**
 * The rows each table of `unit` must hold, in API order, as DuckDB reads them back — from the
 * sandbox's data, mapped here by hand from the API fields to the contract's columns.
 * `sources_json` is the JSON text (compare parsed with `withParsedJson`).
 */
export function expectedTables(
  data: SandboxData,
  unit: { readonly dataset: DatasetName; readonly projectId: string; readonly day: string },
  options: ExpectedOptions = {},
): UnitTables {
  const { projectId, day } = unit;
  const head = { project_id: projectId, date: day };
  // The default policy (tables.ts): free text masked, contact as a keyed hash.
  const text = <T>(value: T): T => (options.rawText || typeof value !== 'string' ? value : (maskText(value) as T));
  // Page paths and URLs: the `path` policy (query string and fragment gone, a personal segment masked).
  const path = <T>(value: T): T => (options.rawText || typeof value !== 'string' ? value : (maskPath(value) as T));
  const contactOf = (value: string | null): string | null => {
    const policy = options.contact ?? 'hmac';
    if (value === null || policy === 'drop') return null;
    return policy === 'keep' ? value : hmacOf(options.key ?? TEST_PERSONAL_DATA_KEY, value);
  };
  // The sandbox sends no field this version does not know: `unknown_fields` is null.
  const tail = { ...(options.exportedAt === undefined ? {} : { exported_at: options.exportedAt }), unknown_fields: null };
  switch (unit.dataset) {
    case 'visitors':
    case 'views': {
      const { totals, rows } = data.day(unit.dataset, projectId, day);
      return {
        [`${unit.dataset}_totals`]: [{ ...head, human: totals.human, ai: totals.ai, total: totals.total, pages: rows.length, ...tail }],
        [`${unit.dataset}_pages`]: rows.map((row) => ({ ...head, path: path(row.path), human: row.human, ai: row.ai, total: row.total, ...tail })),
      };
    }
    case 'searches': {
      const { totalSearches, rows } = data.day('searches', projectId, day);
      return {
        searches_totals: [{ ...head, total_searches: totalSearches, terms: rows.length, ...tail }],
        searches: rows.map((row) => ({
          ...head,
          search_query: text(row.searchQuery),
          hits: row.hits,
          ctr: row.ctr,
          top_clicked_page: path(row.topClickedPage),
          last_searched_at: iso(row.lastSearchedAt),
          ...tail,
        })),
      };
    }
    case 'feedback':
      return {
        feedback: data.rows('feedback', projectId, day).map((row) => ({
          ...head,
          feedback_id: row.id,
          path: path(row.path),
          source: row.source,
          status: row.status,
          comment: text(row.comment),
          created_at: iso(row.createdAt),
          helpful: row.source === 'contextual' ? row.helpful : null,
          contact: row.source === 'contextual' ? contactOf(row.contact) : null,
          code: row.source === 'code_snippet' ? text(row.code) : null,
          filename: row.source === 'code_snippet' ? row.filename : null,
          lang: row.source === 'code_snippet' ? row.lang : null,
          ...tail,
        })),
      };
    case 'feedback_by_page':
      return {
        feedback_by_page: data.day('feedback_by_page', projectId, day).rows.map((row) => ({
          ...head,
          path: path(row.path),
          thumbs_up: row.thumbsUp,
          thumbs_down: row.thumbsDown,
          code: row.code,
          total: row.total,
          ...tail,
        })),
      };
    case 'assistant':
      return {
        assistant_conversations: data.rows('assistant', projectId, day).map((row) => ({
          ...head,
          conversation_id: row.id,
          asked_at: iso(row.timestamp),
          query: text(row.query),
          response: text(row.response),
          // Absent means `answer` (docs/design.md §1.1).
          response_type: row.responseType ?? 'answer',
          resolution_status: row.resolutionStatus,
          query_category: row.queryCategory,
          page_url: path(row.pageUrl),
          source_count: row.sources.length,
          sources_json: JSON.stringify(row.sources.map((source) => ({ title: text(source.title), url: text(source.url) }))),
          ...tail,
        })),
      };
    case 'caller_stats':
      return {
        assistant_caller_stats: data.rows('caller_stats', projectId, day).map((row) => ({
          ...head,
          web: row.web,
          api: row.api,
          other: row.other,
          total: row.total,
          ...tail,
        })),
      };
  }
}

/** Rows with `sources_json` parsed (it must be valid JSON); other tables unchanged. */
export function withParsedJson(rows: readonly PlainRow[]): PlainRow[] {
  return rows.map((row) => (typeof row['sources_json'] === 'string' ? { ...row, sources_json: JSON.parse(row['sources_json']) as unknown } : { ...row }));
}

// --- holding what was read back against the oracle ----------------------------------------------

/**
 * Asserts that every table of the unit reads back with the contract's columns (names, order,
 * DuckDB types) and exactly the expected rows, in order. Returns what was read, by table.
 */
export async function expectUnitMatches(
  destination: Destination,
  data: SandboxData,
  unit: { readonly dataset: DatasetName; readonly projectId: string; readonly day: string },
  options: ExpectedOptions,
): Promise<Record<string, ParquetContents>> {
  const expected = expectedTables(data, unit, options);
  const read: Record<string, ParquetContents> = {};
  for (const table of tableNames(unit.dataset)) {
    const contents = await readTable(destination, table, unit.day, unit.projectId);
    read[table] = contents;
    expect(contents.columns, `${table} columns`).toEqual(CONTRACT_COLUMNS[table]);
    expect(contents.rows.length, `${table} row count`).toBe(expected[table]?.length);
    expect(withParsedJson(contents.rows), `${table} rows`).toEqual(withParsedJson(expected[table] ?? []));
  }
  return read;
}

/**
 * Asserts that an exported visitors day equals the sandbox's data value for value: every page
 * row in API order, the site totals, the page count, one `exported_at` for the totals and none
 * later on a page row, and the types. Returns the `exported_at` the totals row carries.
 */
export function expectDayMatches(exported: ExportedDay, sandbox: Pick<Sandbox, 'data'>, projectId: string, day: string): string {
  const expected = expectedTables(sandbox.data, { dataset: 'visitors', projectId, day });
  exported = { pages: withoutPartition(exported.pages, day), totals: withoutPartition(exported.totals, day) };
  expect(exported.pages.columns).toEqual(PAGES_COLUMNS);
  expect(exported.totals.columns).toEqual(TOTALS_COLUMNS);
  const exportedAt = exported.totals.rows[0]?.['exported_at'];
  expect(typeof exportedAt).toBe('string');
  const pages = expected['visitors_pages'] ?? [];
  expect(exported.pages.rows.length).toBe(pages.length);
  // A resumed unit's rows carry the time of the run that fetched their page: never later than
  // the run that committed the day (the totals row's).
  expect(exported.pages.rows).toEqual(pages.map((row) => ({ ...row, exported_at: expect.any(String) })));
  for (const row of exported.pages.rows) expect(String(row['exported_at']) <= String(exportedAt)).toBe(true);
  expect(exported.totals.rows).toEqual((expected['visitors_totals'] ?? []).map((row) => ({ ...row, exported_at: exportedAt })));
  return exportedAt as string;
}

/**
 * DuckDB adds the Hive partition column `dt` on its own when a file's path has `dt=…`
 * folders: check it is the DATE of the day, then drop it so the table columns compare.
 */
function withoutPartition(contents: ParquetContents, day: string): ParquetContents {
  const partition = contents.columns.find((column) => column.name === 'dt');
  if (!partition) return contents;
  expect(partition.type).toBe('DATE');
  for (const row of contents.rows) expect(row['dt']).toBe(day);
  return {
    columns: contents.columns.filter((column) => column.name !== 'dt'),
    rows: contents.rows.map(({ dt: _dt, ...rest }) => rest),
  };
}
