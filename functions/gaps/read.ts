/**
 * Reads gaps and the requests made for them from a warehouse laid out in a local folder (an
 * `s3://` one is mirrored first, warehouse/lake.ts):
 * - the evidence: the report's questions of queries/ over the gap tables, loaded in the shared
 *   DuckDB session as the report loads its own (warehouse/session.ts), for the period and
 *   projects asked for; a gap's figure per day: queries/gaps-figure-by-day.sql, a DuckDB-only question;
 * - what was done: `followup_outcomes` records with a `gap_id`, and the follow-up state records
 *   with a `gapId` that have not finished, where the state is reachable (see find.ts).
 */
import { TYPED_QUESTIONS } from '../../queries/questions.js';
import { ask, type ThumbsDownPageRow, type UnclickedSearchRow } from '../warehouse/questions.js';
import * as v from 'valibot';
import { GAP_OUTCOME } from '../warehouse/records.js';
import { scopeFieldsOf } from '../scope/records.js';
import type { FollowUpState } from '../follow-up/state.js';
import type { Destination } from '../shared/storage/destination.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { tableFiles as listTableFiles } from '../warehouse/lake/files.js';
import { loadWarehouse, type LoadedWarehouse } from '../warehouse/session.js';
import { addDays, dayStart, formatDay } from '../shared/dates.js';
import { displayText } from '../shared/display.js';
import { ID_PATTERN } from '../shared/validators.js';
import { sqlString } from '../warehouse/sql.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import { ASSISTANT_CONVERSATIONS, FEEDBACK, FOLLOWUP_OUTCOMES, SEARCHES } from '../warehouse/tables.js';
import type { TableDef } from '../warehouse/table-def.js';
import type { GapEvidence, GapKind, GapRequest, UnansweredEvidence } from './gaps.js';
import { bankOf, type QuestionBank, vocabularyOf } from './bank.js';
import { groupPacked, termsOfKey, topicMatcher } from './topics.js';
import type { Vocabulary } from './terms.js';

/** The tables gaps read (their folders are what a mirror of S3 needs). */
export const GAP_TABLES = [ASSISTANT_CONVERSATIONS, SEARCHES, FEEDBACK] as const;

/** The days and projects gaps look at. */
export interface GapScope {
  /** UTC days, in order. */
  readonly days: readonly string[];
  /** Projects; empty: every project with a file of a gap table on one of the days. */
  readonly projects: readonly string[];
  /** Told one line per file left out (not readable as Parquet). */
  readonly onWarning?: (line: string) => void;
}

export interface GapEvidenceRead {
  /** The projects read (given, or found). */
  readonly projects: readonly string[];
  /** Table files read (0: nothing exported for these days and projects). */
  readonly files: number;
  /** Days of the period with a file of a gap table for one of the projects: what "in N days" counts. */
  readonly daysWithData: number;
  readonly found: readonly { readonly projectId: string; readonly evidence: GapEvidence }[];
  /** Unanswered questions in no topic (topics.ts: no word to group by, or past the topics drawn), and the times they went unanswered. */
  readonly unplaced: Unplaced;
}

/** Unanswered questions no topic holds. */
export interface Unplaced {
  readonly questions: number;
  readonly unanswered: number;
}

/** The gap tables of some days and projects, loaded in the shared DuckDB session (warehouse/session.ts). */
export interface GapTables {
  /** The projects read (given, or found). */
  readonly projects: readonly string[];
  /** Table files of the days and projects (0: nothing exported for them). */
  readonly files: number;
  /** Days with a file of a gap table for one of the projects. */
  readonly daysWithData: number;
  /** The range the questions are asked for. */
  readonly params: { readonly from: string; readonly to: string; readonly projects: readonly string[] };
  readonly warehouse: LoadedWarehouse;
  close(): void;
}

/**
 * Loads the gap tables of `scope`'s days and projects (files named one by one, never by glob);
 * `readOnce`: each table is read by one question (`findGaps`), so views over the files, not copies.
 */
export async function openGapTables(lake: LakeFiles, scope: GapScope, readOnce = false): Promise<GapTables> {
  const found = await gapFiles(lake, scope);
  const warehouse = await loadWarehouse(lake, {
    days: scope.days,
    projects: found.projects,
    tables: GAP_TABLES,
    // Read once: views, and one DuckDB thread (the questions' grouping is held once, not per thread).
    ...(readOnce ? { readOnce: GAP_TABLES.map((table) => table.name), threads: 1 } : {}),
    ...(scope.onWarning ? { onWarning: scope.onWarning } : {}),
  });
  return { ...found, warehouse, close: () => warehouse.close() };
}

/**
 * The gap tables of `scope`'s days and projects in a session a caller loaded with them (the
 * report's: its days and projects hold these); closing them leaves the session to its owner.
 */
export async function gapTablesIn(warehouse: LoadedWarehouse, lake: LakeFiles, scope: GapScope): Promise<GapTables> {
  return { ...(await gapFiles(lake, scope)), warehouse, close: () => undefined };
}

/** The projects, table files and question range of `scope`. */
async function gapFiles(lake: LakeFiles, scope: GapScope): Promise<Pick<GapTables, 'projects' | 'files' | 'daysWithData' | 'params'>> {
  const filesByTable = await Promise.all(GAP_TABLES.map((table) => tableFiles(lake, table, scope.days)));
  const projects = scope.projects.length > 0 ? [...scope.projects] : [...new Set(filesByTable.flat().map((f) => f.projectId))].sort();
  const wanted = new Set(projects);
  const present = filesByTable.flat().filter((file) => wanted.has(file.projectId));
  const files = present.length;
  const daysWithData = new Set(present.map((file) => file.day)).size;
  const first = scope.days[0] ?? '1970-01-01';
  const last = scope.days[scope.days.length - 1] ?? first;
  return { projects, files, daysWithData, params: { from: first, to: addDays(last, 1), projects } };
}

/**
 * Runs the three gap questions over the period's files in `lake`, each for its first `limit`
 * rows. DuckDB is closed before the topics are drawn: its memory (a day of 200,000 distinct
 * questions grouped: about 80 MB) is given back first, and the topics need only the bank.
 */
export async function readGapEvidence(lake: LakeFiles, scope: GapScope, limit = ALL_ROWS): Promise<GapEvidenceRead> {
  // Each gap table is read by one question here (the questions, the searches, the thumbs down).
  const tables = await openGapTables(lake, scope, true);
  let answers: Answers;
  try {
    if (tables.files === 0) return { projects: tables.projects, files: 0, daysWithData: 0, found: [], unplaced: { questions: 0, unanswered: 0 } };
    answers = await askEvidence(tables, limit);
  } finally {
    tables.close();
  }
  return { projects: tables.projects, files: tables.files, daysWithData: tables.daysWithData, ...evidenceFrom(answers, tables.params) };
}

/** Rows asked of a question when every gap is wanted. */
export const ALL_ROWS = 1_000_000;

/**
 * Every gap of the loaded tables, with its evidence: the report's own questions of queries/
 * (one definition of "searches nobody clicked" and "pages with thumbs down"), asked for their
 * first `limit` rows (ordered by their score: the ranking's first `limit` gaps are among them);
 * the unanswered questions grouped into topics by their words (topics.ts) from every question of
 * the period (queries/unanswered-questions-by-day.sql, read once per session: bank.ts).
 */
export async function evidenceOf(tables: GapTables, limit = ALL_ROWS): Promise<{ projectId: string; evidence: GapEvidence }[]> {
  return [...evidenceFrom(await askEvidence(tables, limit), tables.params).found];
}

/** What the gap questions answered: the bank of unanswered questions (and its vocabulary), the searches nobody clicked, the pages with thumbs down. */
interface Answers {
  readonly bank: QuestionBank;
  readonly vocabulary: Vocabulary;
  readonly searches: readonly UnclickedSearchRow[];
  readonly thumbs: readonly ThumbsDownPageRow[];
}

async function askEvidence(tables: GapTables, limit: number): Promise<Answers> {
  const params = { ...tables.params, limit };
  const [bank, searches, thumbs] = await Promise.all([
    bankOf(tables.warehouse, tables.params),
    ask(tables.warehouse, TYPED_QUESTIONS.searchesWithoutClicks, params),
    ask(tables.warehouse, TYPED_QUESTIONS.thumbsDownPages, params),
  ]);
  return { bank, vocabulary: vocabularyOf(tables.warehouse), searches, thumbs };
}

/** The gaps of `answers`, with the unanswered questions no topic holds. */
function evidenceFrom({ bank, vocabulary, searches, thumbs }: Answers, range: GapTables['params']): Pick<GapEvidenceRead, 'found' | 'unplaced'> {
  const topics = topicsOf(bank, range, vocabulary);
  const found = [
    ...topics.found,
    ...searches.map((r) => ({
      projectId: r.projectId,
      evidence: { kind: 'search_without_clicks' as const, query: r.query, searches: r.hits, days: r.days },
    })),
    ...thumbs.map((r) => ({
      projectId: r.projectId,
      evidence: { kind: 'thumbs_down_page' as const, path: r.path, thumbsDown: r.thumbsDown, thumbsUp: r.thumbsUp, comments: distinct(r.comments) },
    })),
  ];
  return { found, unplaced: topics.unplaced };
}

/** Each project's topics of unanswered questions (topics.ts) on the range's days as gap evidence, the most unanswered topic first, and the questions no topic holds. */
function topicsOf(
  bank: QuestionBank,
  range: GapTables['params'],
  vocabulary: Vocabulary,
): { found: { projectId: string; evidence: UnansweredEvidence }[]; unplaced: Unplaced } {
  const unplaced = { questions: 0, unanswered: 0 };
  const wanted = new Set(range.projects);
  const projects = bank.projects.filter((p) => wanted.size === 0 || wanted.has(p)).sort();
  const found = projects.flatMap((projectId) => {
    const { topics, left } = groupPacked(bank.packed(projectId, range.from, range.to), vocabulary);
    unplaced.questions += left.questions;
    unplaced.unanswered += left.unanswered;
    return topics
      .map((topic) => ({
        projectId,
        evidence: {
          kind: 'unanswered_topic' as const,
          topic: topic.name,
          terms: topic.terms,
          unanswered: topic.unanswered,
          questions: topic.size,
          examples: topic.examples.map((q) => q.text),
          asked: topic.examples.map((q) => q.unanswered),
        },
      }))
      .sort((a, b) => b.evidence.unanswered - a.evidence.unanswered);
  });
  return { found, unplaced };
}

/** The values of `values` once each, in their order (the same comment left twice is one line of evidence). */
function distinct(values: readonly string[]): string[] {
  return [...new Set(values)];
}

/**
 * The figure of each of `gaps` per day (`queries/gaps-figure-by-day.sql`), as
 * `gapId → day → figure`; a day without a row is a day the figure was 0 or not exported.
 */
export async function dailyFigures(
  tables: GapTables,
  gaps: readonly { readonly gapId: string; readonly kind: GapKind; readonly projectId: string; readonly key: string }[],
): Promise<Map<string, Map<string, number>>> {
  const byGap = new Map<string, Map<string, number>>();
  if (gaps.length === 0) return byGap;
  const topics = gaps.filter((g) => g.kind === 'unanswered_topic');
  const others = gaps.filter((g) => g.kind !== 'unanswered_topic');
  for (const [gapId, days] of await topicFiguresByDay(tables, topics)) byGap.set(gapId, days);
  if (others.length === 0) return byGap;
  const { session } = tables.warehouse;
  const values = others.map((g) => `(${[g.gapId, g.kind, g.projectId, g.key].map(sqlString).join(', ')})`).join(', ');
  await session.run('DROP TABLE IF EXISTS wanted_gaps');
  await session.run(`CREATE TEMP TABLE wanted_gaps AS SELECT * FROM (VALUES ${values}) AS w(gap_id, kind, project_id, key)`);
  // Not `ask`: the answer changes with wanted_gaps, which the session does not see in the SQL.
  const { gapFigureByDay } = TYPED_QUESTIONS;
  for (const row of (await session.query(gapFigureByDay.sql(tables.warehouse.tables, {}))).map(gapFigureByDay.decode)) {
    const days = byGap.get(row.gapId) ?? new Map<string, number>();
    days.set(row.day, row.figure);
    byGap.set(row.gapId, days);
  }
  return byGap;
}

/**
 * Each topic gap's unanswered questions per day, as `gapId → day → figure`: every unanswered
 * question of the tables' days whose terms hold the topic's key terms (its `key`, topics.ts), so
 * a topic is counted alike on any day, before or after a fix. A day without an entry: no
 * question of the topic went unanswered (or the day is not exported).
 */
export async function topicFiguresByDay(
  tables: GapTables,
  gaps: readonly { readonly gapId: string; readonly projectId: string; readonly key: string }[],
): Promise<Map<string, Map<string, number>>> {
  if (gaps.length === 0) return new Map();
  const bank = await bankOf(tables.warehouse, tables.params);
  // By the keys' terms, not every gap for every question: a report counts hundreds of gaps over months of questions.
  const match = topicMatcher(
    vocabularyOf(tables.warehouse),
    gaps.map((g) => termsOfKey(g.key)),
  );
  return bank.figuresByDay(gaps, match, tables.params.from, tables.params.to);
}

/** How `readOutcomeRequests` checks the records at the door. */
export interface OutcomeReadOptions {
  /** Now (epoch ms): a record dated after tomorrow is implausible. @default Date.now() */
  readonly now?: number;
  /** Told one line per record skipped (its file named): not JSON, not a record, an odd id, a date outside 2020 to tomorrow. */
  readonly onSkipped?: (line: string) => void;
}

/** The first plausible moment of a record: the lake has nothing older. */
const PLAUSIBLE_FROM = Date.parse('2020-01-01T00:00:00Z');

/**
 * The finished requests of each gap (followup_outcomes records with a gap_id), the latest
 * first, read through the destination itself (a few small JSON files, on every day: a job of
 * last quarter still stands for its gap). Each record is parsed by a schema at the door: one that
 * is not JSON, not a gap's record, has an id that is not one, or a date before 2020 or after
 * tomorrow is skipped with one line naming its file (`onSkipped`), so one bad file never hides a
 * real verdict nor stops the read. A record without a gap is no gap's: left alone, silently.
 */
export async function readOutcomeRequests(
  destination: Pick<Destination, 'list' | 'get'>,
  options: OutcomeReadOptions = {},
): Promise<Map<string, GapRequest[]>> {
  const byGap = new Map<string, GapRequest[]>();
  const keys = ((await destination.list?.(`${FOLLOWUP_OUTCOMES.prefix}/`)) ?? []).filter((key) => key.endsWith('.json'));
  const latest = dayStart(addDays(formatDay(options.now ?? Date.now()), 2));
  const records = await Promise.all(keys.map(async (key) => ({ key, parsed: parseOutcome(await destination.get(key), latest) })));
  for (const { key, parsed } of records) {
    if (typeof parsed === 'string') {
      options.onSkipped?.(`${displayText(key)}: ${parsed}: skipped`);
      continue;
    }
    if (parsed === undefined) continue;
    add(byGap, parsed.gapId, parsed.request);
  }
  for (const requests of byGap.values()) requests.sort((a, b) => (b.finishedAt ?? 0) - (a.finishedAt ?? 0));
  return byGap;
}

/** An outcome record's request when it has a gap; undefined when it has none; what is wrong with it (a string) when it cannot be taken. */
function parseOutcome(bytes: Uint8Array | undefined, latest: number): { gapId: string; request: GapRequest } | string | undefined {
  if (bytes === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return 'not JSON';
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'not an outcome record (a JSON object)';
  const gapId = (json as Record<string, unknown>)['gap_id'];
  if (gapId === undefined || gapId === null) return undefined;
  const parsed = v.safeParse(GAP_OUTCOME, json);
  if (!parsed.success) return 'not an outcome record (request_id and gap_id must be strings)';
  const record = parsed.output;
  if (!ID_PATTERN.test(record.gap_id)) return 'its gap_id is not an id (letters, digits, _ and -)';
  if (record.project_id !== undefined && !ID_PATTERN.test(record.project_id)) return 'its project_id is not an id (letters, digits, _ and -)';
  const when = (name: 'finished_at' | 'merged_at'): number | string | undefined => {
    const text = record[name];
    if (text === undefined) return undefined;
    const at = ISO_TIME.test(text) ? Date.parse(text) : Number.NaN;
    if (!Number.isFinite(at)) return `its ${name} is not an ISO 8601 time`;
    if (at < PLAUSIBLE_FROM || at >= latest) return `its ${name} ${text.slice(0, 10)} is outside 2020-01-01 to tomorrow`;
    return at;
  };
  const finishedAt = when('finished_at');
  if (typeof finishedAt === 'string') return finishedAt;
  const mergedAt = when('merged_at');
  if (typeof mergedAt === 'string') return mergedAt;
  return {
    gapId: record.gap_id,
    request: {
      requestId: record.request_id,
      ...(record.project_id !== undefined ? { projectId: record.project_id } : {}),
      state: 'done',
      ...(record.status !== undefined ? { status: record.status } : {}),
      ...(record.job_id !== undefined ? { jobId: record.job_id } : {}),
      ...(record.pr_link !== undefined ? { prLink: record.pr_link } : {}),
      ...(finishedAt !== undefined ? { finishedAt } : {}),
      ...scopeFieldsOf(json),
      ...(mergedAt !== undefined ? { mergedAt } : {}),
    },
  };
}

/** `YYYY-MM-DDTHH:MM…` with a four-digit year: what the writers write (a year ≥ 10000 is not a time of this lake). */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

/**
 * The unfinished requests of each gap in the follow-up state (records with a `gapId` not yet
 * `done`: an outcome row stands for the finished ones), added before the finished ones.
 */
export async function addStateRequests(byGap: Map<string, GapRequest[]>, store: Pick<SharedStore, 'list'>): Promise<void> {
  for (const { value } of await store.list<FollowUpState>('')) {
    if (value?.gapId === undefined || value.phase === 'done') continue;
    const requests = byGap.get(value.gapId) ?? [];
    if (requests.some((r) => r.requestId === value.requestId)) continue;
    byGap.set(value.gapId, [{ requestId: value.requestId, state: 'in_flight', ...(value.jobId === undefined ? {} : { jobId: value.jobId }) }, ...requests]);
  }
}

function add(map: Map<string, GapRequest[]>, key: string, request: GapRequest): void {
  const list = map.get(key);
  if (list) list.push(request);
  else map.set(key, [request]);
}

/** The day and project of each of the table's Parquet files of `days` (`<prefix>/dt=<day>/<project id>.parquet`). */
export async function tableFiles(lake: LakeFiles, table: TableDef, days: readonly string[]): Promise<{ day: string; projectId: string }[]> {
  return listTableFiles(lake, table.prefix, days);
}
