/**
 * The report's tables in one DuckDB session (functions/warehouse/duckdb.ts), from a warehouse laid
 * out in a local folder (lake.ts): each table the columns the queries of queries/ read, of the
 * files of the days and projects asked for — named one by one, never by glob — so every
 * question runs on exactly those rows.
 *
 * A file DuckDB cannot read as Parquet (cut short, overwritten by something else) is left out
 * with a warning naming it, and the report is built from the others; the export redoes a unit
 * whose manifest is missing, and `status` shows the unit's state.
 */
import path from 'node:path';
import { DATASET_NAMES } from './catalog.js';
import { PROJECT_ID_PATTERN } from '../shared/validators.js';
import { duckDbType, emptyRelation, openDuckDb, parquetFiles, type DuckDbSession, type Row } from './duckdb.js';
import { fileList, sqlString } from './sql.js';
import { ASSISTANT_CONVERSATIONS, FEEDBACK, SEARCHES, SEARCHES_TOTALS, VIEWS_PAGES, VIEWS_TOTALS, VISITORS_TOTALS } from './tables.js';
import type { TableDef } from './table-def.js';
import { manifestsOf, parseManifestKey, STAGING_PREFIX } from './keys.js';
import { dayFolderName, monthOfDay, monthsRange } from './lake/layout.js';
import { fileKeys, list, rollupScopes, tableFiles, type TableFile } from './lake/files.js';
import { SUMMED_TABLES, type SummedMonths, summedMonths } from './lake/rollup-sums.js';
import type { LakeFiles } from './lake.js';

/** A column the report reads: its name, and the SQL that gives it when it is not the stored column as is. */
type ReadColumn = string | { readonly name: string; readonly sql: string; readonly reads: readonly string[] };

/**
 * The columns the report's questions read of each table (Parquet is columnar: the others are
 * never read — the feedback contact among them); `dt` comes from the folder.
 */
const COLUMNS: Readonly<Record<string, readonly ReadColumn[]>> = {
  visitors_totals: ['project_id', 'date', 'human', 'ai', 'total'],
  views_totals: ['project_id', 'date', 'total'],
  searches_totals: ['project_id', 'date', 'total_searches'],
  // The question's text only where the report shows it: unanswered questions.
  assistant_conversations: [
    'project_id',
    'date',
    'conversation_id',
    'asked_at',
    { name: 'query', sql: "CASE WHEN resolution_status = 'unanswered' THEN query END", reads: ['query', 'resolution_status'] },
    'resolution_status',
    'query_category',
  ],
  // A comment only where the report shows it: with a thumbs down.
  feedback: [
    'project_id',
    'date',
    'path',
    'helpful',
    'created_at',
    { name: 'comment', sql: 'CASE WHEN helpful = false THEN comment END', reads: ['comment', 'helpful'] },
  ],
  views_pages: ['project_id', 'date', 'path', 'human', 'ai', 'total'],
  searches: ['project_id', 'date', 'search_query', 'hits', 'ctr', 'top_clicked_page', 'last_searched_at'],
};

/** The tables the report reads, over the period and the one before it. */
export const REPORT_TABLES: readonly TableDef[] = [VISITORS_TOTALS, VIEWS_TOTALS, SEARCHES_TOTALS, ASSISTANT_CONVERSATIONS, FEEDBACK, VIEWS_PAGES, SEARCHES];

/** The tables of the daily totals (queries/daily-totals.sql): the headline, and the anomaly check's figures. */
export const DAILY_TABLES: readonly TableDef[] = [VISITORS_TOTALS, VIEWS_TOTALS, SEARCHES_TOTALS, ASSISTANT_CONVERSATIONS, FEEDBACK];

/** Tables read by one question only (the largest): a view over the files, not a copy in memory. */
const SINGLE_USE = new Set([VIEWS_PAGES.name, SEARCHES.name]);

export interface WarehouseScope {
  readonly days: readonly string[];
  readonly projects: readonly string[];
  readonly onWarning?: (line: string) => void;
  /** The tables to load (`gaps` reads three). @default REPORT_TABLES */
  readonly tables?: readonly TableDef[];
  /**
   * Days of some tables, by name, instead of `days` (the report loads the gap tables over its
   * own days and those its fixes look back over: one load serves both, each question asks its range).
   */
  readonly spans?: Readonly<Record<string, readonly string[]>>;
  /**
   * Tables, by name, the caller reads once (`gaps`: one question each): a view over the files
   * too, not a copy in memory (a day of 200,000 questions copied costs about 110 MB).
   */
  readonly readOnce?: readonly string[];
  /**
   * Every table a view over its files, none copied: each question then reads only the columns
   * it names and the row groups of its days (a roll-up's rows are in day order), where a copy
   * decodes every column of every row once and holds them. The report's session: over 90 days
   * of three projects DuckDB's CPU 3.8–4.0 s with copies, 2.2–2.3 s as views, and its memory
   * 290 MB against 165 MB (bench/README.md, "issue 50"). @default copies of the tables read by
   * several questions (`gaps`' effects)
   */
  readonly viewsOnly?: boolean;
  /** DuckDB's threads (duckdb.ts `threads`): one for a session that asks one large grouping. @default DuckDB's */
  readonly threads?: number;
}

/** A session with the report's tables loaded; `tables` names each for `questionSql`. */
export interface LoadedWarehouse {
  readonly session: DuckDbSession;
  readonly tables: Readonly<Record<string, string>>;
  /**
   * The rows of a question over the loaded tables, asked once per session: the same SQL asked
   * again (the report's rankings and its fixes ask the same gap questions) gets the first answer.
   */
  ask(sql: string): Promise<Row[]>;
  /**
   * The relations question `id` (queries/, by id) reads over `[from, to)`: `tables`, but a table
   * with sums (lake/rollup-sums.ts) whose months wholly inside the range have valid sums read
   * from them — for the questions that only sum over the days (the top pages).
   */
  tablesFor?(id: string, range: { readonly from?: string | undefined; readonly to?: string | undefined }): Readonly<Record<string, string>>;
  /** The files left out because DuckDB cannot read them as Parquet (relative to the root; each also told to `onWarning`). */
  readonly unreadable: readonly string[];
  close(): void;
}

/** Loads the tables of `scope` from the files under the lake's folder, in one session. */
export async function loadWarehouse(lake: LakeFiles, scope: WarehouseScope): Promise<LoadedWarehouse> {
  const session = await openDuckDb({ root: lake.root, ...(scope.threads === undefined ? {} : { threads: scope.threads }) });
  const unreadable: string[] = [];
  const summed = new Map<string, SummedMonths>();
  try {
    for (const table of scope.tables ?? REPORT_TABLES) {
      const span = scope.spans?.[table.name];
      const sums = await loadTable(session, lake, table, span === undefined ? scope : { ...scope, days: span }, unreadable);
      if (sums !== undefined) summed.set(table.name, sums);
    }
  } catch (error) {
    session.close();
    throw error;
  }
  const answers = new Map<string, Promise<Row[]>>();
  const ask = (sql: string): Promise<Row[]> => {
    const known = answers.get(sql);
    if (known !== undefined) return known;
    const answer = session.query(sql);
    answers.set(sql, answer);
    return answer;
  };
  const tables: Record<string, string> = Object.fromEntries((scope.tables ?? REPORT_TABLES).map((t) => [t.name, t.name]));
  const tablesFor = (id: string, range: { readonly from?: string | undefined; readonly to?: string | undefined }) => {
    const { from, to } = range;
    if (from === undefined || to === undefined) return tables;
    let out = tables;
    for (const [name, sums] of summed) {
      const relation = SUMMED_TABLES[name]?.questions.includes(id) ? sums.relationFor(from, to) : undefined;
      if (relation !== undefined) out = { ...out, [name]: relation };
    }
    return out;
  };
  return {
    session,
    tables,
    ask,
    tablesFor,
    unreadable,
    close: () => session.close(),
  };
}

/** Loads one table as a view (or a copy) named after it; its sums' months when it has sums (lake/rollup-sums.ts). */
async function loadTable(
  session: DuckDbSession,
  lake: LakeFiles,
  table: TableDef,
  scope: WarehouseScope,
  unreadable: string[],
): Promise<SummedMonths | undefined> {
  // A streamed lake (the report's) may still be mirroring this table while the ones before it load (tableFiles waits).
  const listed = await tableFiles(lake, table.prefix, scope.days, new Set(scope.projects));
  const files = fileKeys(listed);
  const columns = COLUMNS[table.name] ?? table.columns.map((c) => c.name);
  const { files: readable, columns: stored } = await readableFiles(session, files, (file, line) => {
    if (!unreadable.includes(file)) unreadable.push(file);
    scope.onWarning?.(line);
  });
  const first = scope.days[0];
  const last = scope.days[scope.days.length - 1];
  const names = columns.map((c) => (typeof c === 'string' ? c : c.name));
  const good = new Set(readable);
  /** The table's rows of `some` of its readable files. */
  const rows = (some: readonly TableFile[]): string => {
    const keys = fileKeys(some).filter((key) => good.has(key));
    if (keys.length === 0 || first === undefined || last === undefined) return `SELECT * FROM ${emptyRelation(table, names)}`;
    // A column no file has yet (written by an older exporter, or a hand-made lake) reads as nulls.
    const select = columns.map((c) => {
      const name = typeof c === 'string' ? c : c.name;
      const reads = typeof c === 'string' ? [c] : c.reads;
      if (!reads.every((column) => stored.has(column))) return `${nullOf(table, name)} AS ${name}`;
      return typeof c === 'string' ? c : `${c.sql} AS ${name}`;
    });
    return `SELECT ${select.join(', ')}, dt FROM ${parquetFiles(keys, rollupScopes([...some]))} WHERE dt >= ${sqlString(first)} AND dt <= ${sqlString(last)}`;
  };
  const view = scope.viewsOnly === true || SINGLE_USE.has(table.name) || (scope.readOnce?.includes(table.name) ?? false);
  await session.run(`CREATE ${view ? 'VIEW' : 'TABLE'} ${table.name} AS ${rows(listed)}`);
  return rollupsRead(listed)
    ? summedMonths(
        session,
        lake.root,
        table,
        listed.filter((file) => good.has(file.key)),
        { first: first ?? '', last: last ?? '' },
        rows,
      )
    : undefined;
}

/** Whether any of `listed` is read from a roll-up (only then may sums stand for rows). */
function rollupsRead(listed: readonly TableFile[]): boolean {
  return listed.some((file) => file.rollup === true);
}

function nullOf(table: TableDef, name: string): string {
  const column = table.columns.find((c) => c.name === name);
  return `NULL::${column ? duckDbType(column) : 'VARCHAR'}`;
}

/**
 * `files` without those DuckDB cannot read as Parquet, each told to `onUnreadable`, and the
 * columns the others hold. Their schemas are read at once (DuckDB reads the footers anyway to
 * unite the columns); only when that fails is each file tried alone, to name the bad ones.
 */
async function readableFiles(
  session: DuckDbSession,
  files: readonly string[],
  onUnreadable: (file: string, line: string) => void,
): Promise<{ readonly files: string[]; readonly columns: Set<string> }> {
  const columns = new Set<string>();
  if (files.length === 0) return { files: [], columns };
  const check = async (names: readonly string[]) => {
    for (const row of await session.query(`SELECT DISTINCT name FROM parquet_schema(${fileList(names)})`)) columns.add(String(row['name']));
  };
  try {
    await check(files);
    return { files: [...files], columns };
  } catch {
    const good: string[] = [];
    for (const file of files) {
      try {
        await check([file]);
        good.push(file);
      } catch (error) {
        const why = (error instanceof Error ? error.message : String(error)).split('\n')[0]?.replace(/^[A-Za-z ]+Error: /, '');
        onUnreadable(file, `left out ${file}: not a readable Parquet file (${why}); export its day again with --force to replace it`);
      }
    }
    return { files: good, columns };
  }
}

/**
 * Projects with a table file, a manifest or a staged unit on a day of `days`; names that are not
 * project ids are left out. The manifests are listed through the lake's `mirror` (a mirror of
 * S3 holds them in memory, not as files: lake/mirror.ts), the rest from the folder.
 */
export async function discoverProjects(lake: LakeFiles, days: readonly string[]): Promise<string[]> {
  const { root } = lake;
  const found = new Set<string>();
  const folders = [
    ...REPORT_TABLES.map((t) => ({ dir: t.prefix, suffix: '.parquet' })),
    ...DATASET_NAMES.map((d) => ({ dir: `${STAGING_PREFIX}/${d}`, suffix: '' })),
  ];
  const asked = new Set(days);
  const sorted = [...days].sort();
  const [first, last] = [sorted[0], sorted[sorted.length - 1]];
  const manifests = DATASET_NAMES.map(async (dataset) => {
    if (first === undefined || last === undefined) return;
    const folder = manifestsOf(dataset);
    for (const key of (await lake.mirror.list?.(folder, monthsRange(folder, monthOfDay(first), monthOfDay(last)))) ?? []) {
      const unit = parseManifestKey(dataset, key);
      if (unit !== undefined && asked.has(unit.day) && PROJECT_ID_PATTERN.test(unit.projectId)) found.add(unit.projectId);
    }
  });
  const wanted = new Set(days.map(dayFolderName));
  await Promise.all([
    ...manifests,
    ...folders.map(async ({ dir, suffix }) => {
      const present = (await list(path.join(root, dir))).filter((name) => wanted.has(name));
      await Promise.all(
        present.map(async (folder) => {
          for (const name of await list(path.join(root, dir, folder))) {
            if (suffix !== '' && !name.endsWith(suffix)) continue;
            const id = suffix === '' ? name : name.slice(0, -suffix.length);
            if (PROJECT_ID_PATTERN.test(id)) found.add(id);
          }
        }),
      );
    }),
  ]);
  return [...found].sort();
}
