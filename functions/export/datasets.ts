/**
 * How each analytics dataset of the catalog (`warehouse/catalog.ts`: name, endpoint, paging,
 * limit, tables) is read: its response schema, and how a page becomes warehouse rows. The
 * export loop (`unit.ts`) knows none of them by name; adding an endpoint is a catalog entry,
 * a schema, its tables and an entry here (the catalog's header says it all).
 */
import type {
  AssistantPage,
  AssistantTurn,
  CallerStats,
  FeedbackByPage,
  FeedbackByPageRow,
  FeedbackPage,
  FeedbackRow,
  PageVisitors,
  SearchesPage,
  SearchRow,
  ViewsPage,
  VisitorsPage,
} from '../shared/api-types.js';
import { DATASET_CATALOG, type CatalogEntry, type DatasetName } from '../warehouse/catalog.js';
// The answers' schemas by their names in schemas.ts (api-types.ts infers the page types from the same names).
import * as schemas from '../shared/schemas.js';
import { unknownFieldsOf, unknownNestedFieldsOf, hasNestedFields, type KnownFields } from '../shared/open-objects.js';
import { stringifyJson } from '../shared/lossless-json.js';
import { rowKeyOf } from '../warehouse/column-policy.js';
import type {
  ASSISTANT_CALLER_STATS,
  ASSISTANT_CONVERSATIONS,
  FEEDBACK,
  FEEDBACK_BY_PAGE,
  SEARCHES,
  SEARCHES_TOTALS,
  VIEWS_PAGES,
  VIEWS_TOTALS,
  VISITORS_PAGES,
  VISITORS_TOTALS,
} from '../warehouse/tables.js';
import type { RowOf, TableDef } from '../warehouse/table-def.js';
import { unknownFieldsColumn, type PageDrift } from './drift.js';
import type { PageView } from './paging.js';
import { isErased, pageGovernor, type PageGovernor, type Privacy } from './privacy.js';

/** What every row of a unit shares. */
export interface RowContext {
  readonly projectId: string;
  /** The unit's UTC day, `YYYY-MM-DD`. */
  readonly date: string;
  /** One value per run, stamped into every row's `exported_at`. */
  readonly exportedAt: Date;
}

/** A row of a table, keys exactly its column names. */
export type TableRow = Record<string, unknown>;

/** What reading a page takes besides its body: its rows' context and the unit's personal-data policy. */
export interface ReadScope {
  /** The context of the page's rows (`exported_at`: the time of the run that fetched it). */
  readonly context: RowContext;
  readonly privacy: Privacy;
}

/**
 * A page read by its dataset's reader, once: everything the pager, the staging, the table
 * file and the drift need of it. Nothing downstream goes back to the dataset's definition.
 */
export interface ReadPage {
  /** The page as it is staged: parsed, the personal-data policy applied. */
  readonly body: object;
  /** What the pager checks. */
  readonly view: PageView;
  /** The rows of the main table, governed, with `unknown_fields`; a forgotten person's rows left out. */
  readonly rows: readonly TableRow[];
  /** What the page held that this version does not know (the rows' part: of the rows kept). */
  readonly drift: PageDrift;
  /**
   * Something odd but possibly legitimate about the page, worth a warning (not a failure), or
   * undefined. Never includes row data: the message goes to the log.
   */
  readonly oddity: string | undefined;
}

/**
 * One dataset: its catalog entry and its reader. The dataset's page and row types stay inside
 * its reader (`readerOf`); the export only ever holds a `ReadPage`.
 */
export interface DatasetDef extends Omit<CatalogEntry, 'name'> {
  readonly name: DatasetName;
  /**
   * The columns of `table` that hold what readers typed (a policy other than `keep` in
   * `tables.ts`), each with the field of the API row it comes from: the policy is applied to
   * that field as soon as a page is parsed, before the page is staged (`privacy.ts`).
   */
  readonly personalFields: Readonly<Record<string, string>>;
  /** Reads an answer's body: validates it (throws `MalformedResponseError`), applies the policy, extracts the rows. */
  read(body: unknown, scope: ReadScope): ReadPage;
  /**
   * Reads a page an earlier run staged (`ReadPage.body`, written back as JSON): already
   * validated and governed — under the same policy and key, which its checkpoint's
   * fingerprint vouches for — so only extracted, like a page read now.
   */
  replay(staged: unknown, scope: ReadScope): ReadPage;
  /** The summary table's row, from the first page's totals and the rows written. */
  summaryRow?(totals: Readonly<Record<string, number>>, rows: number, context: RowContext): TableRow;
}

/** How a dataset's answers are read, typed by its page and its row: what `readerOf` closes over. */
export interface DatasetSpec<
  Page extends object,
  Row extends object,
  Table extends TableDef = TableDef,
  Summary extends TableDef = TableDef,
  Totals extends string = string,
> {
  /** Validates a response body (throws `MalformedResponseError`). */
  parse(body: unknown): Page;
  /** What the pager checks. */
  view(page: Page): PageView;
  rows(page: Page): readonly Row[];
  /** The table's row: a key per column of `Table` (`RowOf`: one missing, or one it lacks, does not compile). */
  toRow(row: Row, context: RowContext): RowOf<Table>;
  /** `DatasetDef.personalFields`: `column → field of the API row`; none when absent. */
  readonly personalFields?: Readonly<Record<string, string>>;
  /** The summary table's row, from the totals `view` gave of the first page (`Totals`: their names). */
  summaryRow?(totals: Readonly<Record<Totals, number>>, rows: number, context: RowContext): RowOf<Summary>;
  /**
   * The fields of an API row this version does not know, as sent (its `unknown_fields`), or
   * undefined. The reader adds the column: `toRow` never writes it.
   */
  unknownFields(row: Row): Record<string, unknown> | undefined;
  /**
   * Names of the fields this version does not know inside a row's known fields
   * (`sources[].score`): kept where the row keeps that field (as sent), named in the drift.
   */
  unknownNestedFields(row: Row): readonly string[];
  /** The unknown fields of a page's `totals` object (the summary row's `unknown_fields`). */
  totalsUnknownFields?(page: Page): Record<string, unknown> | undefined;
  /** Names of a page's top-level fields this version does not know (named in the manifest). */
  unknownTopLevelFields(page: Page): readonly string[];
  /** `ReadPage.oddity`. */
  oddity?(page: Page): string | undefined;
}

/**
 * A dataset's reader: its catalog entry, and `read` / `replay` closed over its page and row
 * types. Each page is walked once: the policy, `toRow`, `unknown_fields`, the erasures and the
 * drift per row in one pass.
 */
function readerOf<Page extends object, Row extends object, Table extends TableDef, Summary extends TableDef, Totals extends string>(
  name: DatasetName,
  spec: DatasetSpec<Page, Row, Table, Summary, Totals>,
): DatasetDef {
  const entry: CatalogEntry = DATASET_CATALOG[name];
  const table = entry.table;
  const personalFields = spec.personalFields ?? {};

  const extract = (page: Page, scope: ReadScope, governor: PageGovernor | undefined): ReadPage => {
    const topLevelFields = spec.unknownTopLevelFields(page);
    // The page is this process's own object (parsed now, or read back from staging).
    governor?.topLevel(page as Record<string, unknown>, topLevelFields);
    const rows: TableRow[] = [];
    let rowFields: Set<string> | undefined;
    for (const row of spec.rows(page)) {
      const unknown = spec.unknownFields(row);
      governor?.row(row as Record<string, unknown>, unknown);
      // toRow's object is new for each row: complete it rather than copy it (once per row of every page).
      const tableRow: TableRow = spec.toRow(row, scope.context);
      tableRow['unknown_fields'] = unknownFieldsColumn(unknown);
      // A forgotten person's rows are not written again (export/forget/), whatever the API sends.
      if (isErased(table, tableRow, scope.privacy)) continue;
      rows.push(tableRow);
      const nested = spec.unknownNestedFields(row);
      if (unknown === undefined && nested.length === 0) continue;
      rowFields ??= new Set();
      if (unknown !== undefined) for (const field of Object.keys(unknown)) rowFields.add(field);
      for (const field of nested) rowFields.add(field);
    }
    return {
      body: page,
      view: spec.view(page),
      rows,
      drift: { topLevelFields, rowFields: rowFields ? [...rowFields] : NO_FIELDS, totalsUnknown: spec.totalsUnknownFields?.(page) },
      oddity: spec.oddity?.(page),
    };
  };

  return {
    name,
    endpoint: entry.endpoint,
    route: entry.route,
    paging: entry.paging,
    maxLimit: entry.maxLimit,
    table,
    ...(entry.summaryTable ? { summaryTable: entry.summaryTable } : {}),
    typicalRowsPerDay: entry.typicalRowsPerDay,
    personalFields,
    ...(spec.summaryRow ? { summaryRow: spec.summaryRow } : {}),
    read: (body, scope) => extract(spec.parse(body), scope, pageGovernor(table, personalFields, scope.privacy)),
    // What was staged is what `read` made of a page of this dataset (JSON of its `body`).
    replay: (staged, scope) => extract(staged as Page, scope, undefined),
  };
}

/** `unknownFields` and `unknownNestedFields` of rows validated by `schema`. */
const unknownOf = (schema: KnownFields) => {
  // Most rows are flat: nothing nested to look into, every row (of ~800k in `npm start`) alike.
  const nested = hasNestedFields(schema);
  return {
    unknownFields: (row: object): Record<string, unknown> | undefined => unknownFieldsOf(row, schema),
    unknownNestedFields: (row: object): readonly string[] => (nested ? unknownNestedFieldsOf(row, schema) : NO_FIELDS),
  };
};

const NO_FIELDS: readonly string[] = Object.freeze([]);

/** `unknownTopLevelFields` of pages validated by `schema`. */
const topLevelOf =
  (schema: KnownFields) =>
  (page: object): readonly string[] =>
    Object.keys(unknownFieldsOf(page, schema) ?? {});

/** Cheap identity of an offset page (row count, first and last rows). */
function signatureOf(rows: readonly unknown[]): string {
  return rows.length === 0 ? 'empty' : stringifyJson([rows.length, rows[0], rows[rows.length - 1]]);
}

/** visitors' and views' page tables: the same columns (a spec writes either). */
type PathCountsTable = typeof VISITORS_PAGES | typeof VIEWS_PAGES;
type PathTotalsTable = typeof VISITORS_TOTALS | typeof VIEWS_TOTALS;

/** visitors and views: the same shape and paging, another array name. */
function pathCounts<Page extends { totals: { human: number; ai: number; total: number }; hasMore: boolean }>(spec: {
  parse: (body: unknown) => Page;
  pageSchema: KnownFields;
  rows: (page: Page) => readonly PageVisitors[];
}): DatasetSpec<Page, PageVisitors, PathCountsTable, PathTotalsTable, 'human' | 'ai' | 'total'> {
  return {
    parse: spec.parse,
    personalFields: { path: 'path' },
    rows: spec.rows,
    ...unknownOf(schemas.PathCountsRowSchema),
    totalsUnknownFields: (page) => unknownFieldsOf(page.totals, schemas.TotalsSchema),
    unknownTopLevelFields: topLevelOf(spec.pageSchema),
    view(page) {
      const rows = spec.rows(page);
      const { human, ai, total } = page.totals;
      return {
        rowCount: rows.length,
        hasMore: page.hasMore,
        totals: { human, ai, total },
        // A path's key as sent (paths the `path` policy made alike stay apart): column-policy.ts.
        rowKeys: () => rows.map((row) => rowKeyOf(row, 'path')),
        signature: () => signatureOf(rows),
      };
    },
    toRow(row, context) {
      return {
        project_id: context.projectId,
        date: context.date,
        path: row.path,
        human: row.human,
        ai: row.ai,
        total: row.total,
        exported_at: context.exportedAt,
      };
    },
    summaryRow(totals, rows, context) {
      return {
        project_id: context.projectId,
        date: context.date,
        human: totals.human,
        ai: totals.ai,
        total: totals.total,
        pages: rows,
        exported_at: context.exportedAt,
      };
    },
    // Approximate distinct counts may make a page count above the site's legitimate; a
    // warning lets someone look without failing the day.
    oddity(page) {
      const above = spec.rows(page).filter((row) => row.total > page.totals.total).length;
      return above === 0 ? undefined : `${above} row(s) have a total above the site total (${page.totals.total}); the API's counts are approximate`;
    },
  };
}

const visitors = pathCounts<VisitorsPage>({
  parse: schemas.parseVisitorsPage,
  pageSchema: schemas.VisitorsPageSchema,
  rows: (page) => page.visitors,
});

const views = pathCounts<ViewsPage>({
  parse: schemas.parseViewsPage,
  pageSchema: schemas.ViewsPageSchema,
  rows: (page) => page.views,
});

const searches: DatasetSpec<SearchesPage, SearchRow, typeof SEARCHES, typeof SEARCHES_TOTALS, 'totalSearches'> = {
  parse: schemas.parseSearchesPage,
  personalFields: { search_query: 'searchQuery', top_clicked_page: 'topClickedPage' },
  rows: (page) => page.searches,
  ...unknownOf(schemas.SearchRowSchema),
  unknownTopLevelFields: topLevelOf(schemas.SearchesPageSchema),
  // No `hasMore` on this endpoint: the cursor alone ends it.
  view: (page) => ({
    rowCount: page.searches.length,
    hasMore: null,
    nextCursor: page.nextCursor,
    totals: { totalSearches: page.totalSearches },
  }),
  toRow: (row, context) => ({
    project_id: context.projectId,
    date: context.date,
    search_query: row.searchQuery,
    hits: row.hits,
    ctr: row.ctr,
    top_clicked_page: row.topClickedPage,
    last_searched_at: row.lastSearchedAt,
    exported_at: context.exportedAt,
  }),
  summaryRow: (totals, rows, context) => ({
    project_id: context.projectId,
    date: context.date,
    total_searches: totals.totalSearches,
    terms: rows,
    exported_at: context.exportedAt,
  }),
};

const feedback: DatasetSpec<FeedbackPage, FeedbackRow, typeof FEEDBACK> = {
  parse: schemas.parseFeedbackPage,
  personalFields: { path: 'path', comment: 'comment', contact: 'contact', code: 'code' },
  rows: (page) => page.feedback,
  ...unknownOf(schemas.FeedbackRowSchema),
  unknownTopLevelFields: topLevelOf(schemas.FeedbackPageSchema),
  view: (page) => ({ rowCount: page.feedback.length, hasMore: page.hasMore, nextCursor: page.nextCursor }),
  toRow: (row, context) => ({
    project_id: context.projectId,
    date: context.date,
    feedback_id: row.id,
    path: row.path,
    source: row.source,
    status: row.status,
    comment: row.comment,
    created_at: row.createdAt,
    helpful: row.helpful,
    // Personal data: already governed by its column's policy (privacy.ts), like comment and code.
    contact: row.contact,
    code: row.code,
    filename: row.filename,
    lang: row.lang,
    exported_at: context.exportedAt,
  }),
};

const feedbackByPage: DatasetSpec<FeedbackByPage, FeedbackByPageRow, typeof FEEDBACK_BY_PAGE> = {
  parse: schemas.parseFeedbackByPage,
  personalFields: { path: 'path' },
  rows: (page) => page.feedback,
  ...unknownOf(schemas.FeedbackByPageRowSchema),
  unknownTopLevelFields: topLevelOf(schemas.FeedbackByPageSchema),
  view: (page) => ({ rowCount: page.feedback.length, hasMore: page.hasMore }),
  toRow: (row, context) => ({
    project_id: context.projectId,
    date: context.date,
    path: row.path,
    thumbs_up: row.thumbsUp,
    thumbs_down: row.thumbsDown,
    code: row.code,
    total: row.total,
    exported_at: context.exportedAt,
  }),
};

const assistant: DatasetSpec<AssistantPage, AssistantTurn, typeof ASSISTANT_CONVERSATIONS> = {
  parse: schemas.parseAssistantPage,
  personalFields: { query: 'query', response: 'response', query_category: 'queryCategory', sources_json: 'sources', page_url: 'pageUrl' },
  rows: (page) => page.conversations,
  ...unknownOf(schemas.AssistantTurnSchema),
  unknownTopLevelFields: topLevelOf(schemas.AssistantPageSchema),
  view: (page) => ({ rowCount: page.conversations.length, hasMore: page.hasMore, nextCursor: page.nextCursor }),
  toRow: (row, context) => ({
    project_id: context.projectId,
    date: context.date,
    conversation_id: row.id,
    asked_at: row.timestamp,
    query: row.query,
    response: row.response,
    response_type: row.responseType,
    resolution_status: row.resolutionStatus,
    query_category: row.queryCategory,
    page_url: row.pageUrl,
    source_count: row.sources.length,
    // Each source as sent, the fields this version does not know included.
    sources_json: stringifyJson(row.sources),
    exported_at: context.exportedAt,
  }),
};

const callerStats: DatasetSpec<CallerStats, CallerStats, typeof ASSISTANT_CALLER_STATS> = {
  parse: schemas.parseCallerStats,
  rows: (page) => [page],
  // A single-object answer: its unknown fields are the row's (a new caller kind), none top-level.
  ...unknownOf(schemas.CallerStatsSchema),
  unknownTopLevelFields: () => [],
  view: () => ({ rowCount: 1, hasMore: false }),
  toRow: (row, context) => ({
    project_id: context.projectId,
    date: context.date,
    web: row.web,
    api: row.api,
    other: row.other,
    total: row.total,
    exported_at: context.exportedAt,
  }),
};

/**
 * Every dataset's typed definition, by name: what its reader is made of, for a test or a
 * benchmark that exercises one part (`toRow` of a row, `view` of a page).
 */
export const DATASET_SPECS = {
  visitors,
  views,
  searches,
  feedback,
  feedback_by_page: feedbackByPage,
  assistant,
  caller_stats: callerStats,
} as const;

/** Every dataset, by name: its catalog entry and its reader. */
export const DATASETS: Readonly<Record<DatasetName, DatasetDef>> = {
  visitors: readerOf('visitors', visitors),
  views: readerOf('views', views),
  searches: readerOf('searches', searches),
  feedback: readerOf('feedback', feedback),
  feedback_by_page: readerOf('feedback_by_page', feedbackByPage),
  assistant: readerOf('assistant', assistant),
  caller_stats: readerOf('caller_stats', callerStats),
};
