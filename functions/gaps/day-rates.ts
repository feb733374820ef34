/**
 * The day counts a fix is judged by, read from the warehouse for effect.ts (which judges them
 * with verdict.ts): each wanted gap's signal and exposure per UTC day — pages and terms by
 * queries/gap-rates-by-day.sql, unanswered topics from every question asked (the unanswered ones
 * from the session's bank, the others from the files) — and, per project
 * and gap kind, the days that were exported (a day never exported is left out of a side, not
 * counted as 0).
 *
 * The questions answered are many (every turn of 90 days and more) and a topic's key holds few
 * of them: DuckDB lets through only the candidates (`topicCandidateMacro`, a condition that holds
 * for every question the key terms can be found in, and for some more), and only their words are
 * read, by the exact matcher of topics.ts.
 */
import { TYPED_QUESTIONS } from '../../queries/questions.js';
import { daysBetween, formatDay } from '../shared/dates.js';
import { DAY_MS } from '../shared/time.js';
import { parquetFiles } from '../warehouse/duckdb.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { fileKeys, rollupScopes, tableFiles } from '../warehouse/lake/files.js';
import { sqlString } from '../warehouse/sql.js';
import { ASSISTANT_CONVERSATIONS, FEEDBACK, SEARCHES, VIEWS_PAGES } from '../warehouse/tables.js';
import type { TableDef } from '../warehouse/table-def.js';
import type { GapKind } from './gaps.js';
import { bankOf, vocabularyOf } from './bank.js';
import { tableFiles as gapTableFiles, type GapTables } from './read.js';
import { isCount, refusedCount, type DailyRates, type RateGap } from './rates.js';
import { termsOfKey, topicMatcher } from './topics.js';
import type { DayCount } from './verdict.js';

/**
 * `gapId → day → {signal, exposure}` of `gaps`: pages and terms by queries/gap-rates-by-day.sql;
 * unanswered topics from every question asked — the unanswered ones from the session's bank
 * (gaps/bank.ts), the others by queries/answered-questions-by-day.sql over the table's files in
 * `lake` — each counted in the topics whose key terms it holds (topics.ts `inTopic`, as the
 * topic's figure is counted: read.ts `topicFiguresByDay`).
 */
export async function dailyRates(tables: GapTables, all: readonly RateGap[], lake: LakeFiles): Promise<DailyRates> {
  const byGap = await topicRates(
    tables,
    lake,
    all.filter((g) => g.kind === 'unanswered_topic'),
  );
  const refused = new Map<string, string>();
  const gaps = all.filter((g) => g.kind !== 'unanswered_topic');
  if (gaps.length === 0) return { rates: byGap, refused };
  const { session } = tables.warehouse;
  const values = gaps.map((g) => `(${[g.gapId, g.kind, g.projectId, g.key].map(sqlString).join(', ')})`).join(', ');
  await session.run('DROP TABLE IF EXISTS rate_gaps');
  await session.run(`CREATE TEMP TABLE rate_gaps AS SELECT * FROM (VALUES ${values}) AS w(gap_id, kind, project_id, key)`);
  // Not `ask`: the answer changes with rate_gaps, which the session does not see in the SQL.
  const { gapRatesByDay } = TYPED_QUESTIONS;
  const byId = new Map(gaps.map((g) => [g.gapId, g]));
  for (const row of (await session.query(gapRatesByDay.sql(tables.warehouse.tables, {}))).map(gapRatesByDay.decode)) {
    const gap = byId.get(row.gapId);
    const bad = !isCount(row.signal) ? ('signal' as const) : !isCount(row.exposure) ? ('exposure' as const) : undefined;
    if (gap !== undefined && bad !== undefined) {
      if (!refused.has(row.gapId)) refused.set(row.gapId, refusedCount(gap, row.day, bad, row[bad]));
      continue;
    }
    const days = byGap.get(row.gapId) ?? new Map<string, DayCount>();
    days.set(row.day, { signal: row.signal, exposure: row.exposure });
    byGap.set(row.gapId, days);
  }
  for (const gapId of refused.keys()) byGap.delete(gapId);
  return { rates: byGap, refused };
}

/**
 * Each unanswered topic's questions asked and unanswered per day (see `dailyRates`): the
 * unanswered ones from the session's bank (gaps/bank.ts: read once, as the topics were found and
 * their figures counted), the others — answered, or of no known status — from the table's files
 * (queries/answered-questions-by-day.sql), so that no unanswered question is read twice.
 */
async function topicRates(tables: GapTables, lake: LakeFiles, gaps: readonly RateGap[]): Promise<Map<string, Map<string, DayCount>>> {
  const byGap = new Map<string, Map<string, DayCount>>();
  if (gaps.length === 0) return byGap;
  // Each text read once per session (read.ts `vocabularyOf`), each question matched by the keys' terms, not against every gap.
  const vocabulary = vocabularyOf(tables.warehouse);
  const match = topicMatcher(
    vocabulary,
    gaps.map((g) => termsOfKey(g.key)),
  );
  const bank = await bankOf(tables.warehouse, tables.params);
  // An unanswered question was asked too: its count is the signal and part of the exposure.
  for (const [gapId, days] of bank.figuresByDay(gaps, match, tables.params.from, tables.params.to)) {
    byGap.set(gapId, new Map([...days].map(([day, unanswered]) => [day, { signal: unanswered, exposure: unanswered }])));
  }
  const projects = new Set(gaps.map((g) => g.projectId));
  const unreadable = new Set(tables.warehouse.unreadable);
  const prefix = ASSISTANT_CONVERSATIONS.prefix;
  const listed = await tableFiles(lake, prefix, daysBetween(tables.params.from, tables.params.to), projects);
  const files = fileKeys(listed).filter((file) => !unreadable.has(file));
  if (files.length === 0) return byGap;
  const { answeredQuestionsByDay } = TYPED_QUESTIONS;
  await tables.warehouse.session.run(topicCandidateMacro(gaps));
  const sql = answeredQuestionsByDay.sql(
    { [ASSISTANT_CONVERSATIONS.name]: parquetFiles(files, rollupScopes(listed)) },
    { ...tables.params, projects: [...projects].sort() },
  );
  // A chunk of rows at a time, none kept: every question answered in 90 days and more, each once with its days.
  await tables.warehouse.session.each(sql, (rows) => {
    for (const row of rows.map(answeredQuestionsByDay.decode)) {
      const found = match(vocabulary.termIdsOf(row.question));
      if (found.length === 0) continue;
      for (const index of found) {
        const gap = gaps[index] as RateGap;
        if (gap.projectId !== row.projectId) continue;
        const days = byGap.get(gap.gapId) ?? new Map<string, DayCount>();
        for (const [k, epochDay] of row.days.entries()) {
          const day = dayOf(epochDay);
          const known = days.get(day) ?? NONE;
          days.set(day, { signal: known.signal, exposure: known.exposure + (row.answered[k] as number) });
        }
        byGap.set(gap.gapId, days);
      }
    }
  });
  return byGap;
}

/**
 * The terms of a question of printable ASCII (as the SQL folds it: lower case) are each, but in
 * the cases below, a substring of its words, and each word a substring of the question without its
 * spaces: terms.ts reads the words of the text cleaned (a mask `[email]` or a defanged link's
 * `[.]` only cuts words; a format character removed joins them, which in a text of printable ASCII
 * may only be the `\ufeff` of a question the bank found the same with a space there), NFKC-folded
 * and lower-cased (nothing to do in printable ASCII), and stems a word by cutting its end, but
 * `…ies` → `…y`. So `needleOf` is a substring of any such question holding the term:
 * - a term of letters a–z ending in `y`: the term without its `y` (`libraries` → `library`: `librar`);
 * - a term holding `hxxp` or `fxp` (a defanged link's scheme, written `http`, `ftp`): none, any question may hold it;
 * - a term with a character outside printable ASCII: no question of printable ASCII holds it (undefined, the key is no candidate's);
 * - else the term itself.
 */
export function needleOf(term: string): string | null | undefined {
  if (!/^[\x20-\x7e]+$/.test(term)) return undefined;
  if (/hxxp|fxp/.test(term)) return null;
  return /^[a-z]+y$/.test(term) ? term.slice(0, -1) : term;
}

/**
 * `CREATE TEMP MACRO topic_candidate(project, question)` for queries/answered-questions-by-day.sql:
 * true for a lower-cased question of a gap's project that holds a character outside printable
 * ASCII (NFKC, full-width and CJK text: the exact matcher judges it), or that holds, without its
 * spaces, the longest needle of one of the project's keys (every needle of a key is in any
 * question that holds the key: `needleOf`). Never false for a question `topicMatcher` finds one
 * of `gaps` in (test/unit/gaps/day-rates.test.ts tries random questions).
 */
export function topicCandidateMacro(gaps: readonly Pick<RateGap, 'projectId' | 'key'>[]): string {
  const byProject = new Map<string, Set<string> | null>();
  for (const gap of gaps) {
    if (!byProject.has(gap.projectId)) byProject.set(gap.projectId, new Set());
    const needles = termsOfKey(gap.key).map(needleOf);
    // A key no printable-ASCII question can hold; a key any may hold.
    if (needles.length === 0 || needles.includes(undefined)) continue;
    const longest = (needles as (string | null)[]).reduce<string | null>((a, b) => (a === null ? b : b === null ? a : b.length > a.length ? b : a), null);
    if (longest === null || longest === '') byProject.set(gap.projectId, null);
    else byProject.get(gap.projectId)?.add(longest);
  }
  const cases = [...byProject].map(([projectId, needles]) => {
    const holds =
      needles === null
        ? 'true'
        : needles.size === 0
          ? 'false'
          : `regexp_matches(replace(question, ' ', ''), ${sqlString([...needles].sort().map(literalPattern).join('|'))})`;
    return `WHEN ${sqlString(projectId)} THEN ${holds}`;
  });
  const byKey = cases.length === 0 ? 'false' : `CASE project ${cases.join(' ')} ELSE false END`;
  return `CREATE OR REPLACE TEMP MACRO topic_candidate(project, question) AS (regexp_matches(question, '[^ -~]') OR ${byKey})`;
}

/** A needle as an RE2 pattern matching it literally. */
function literalPattern(needle: string): string {
  return needle.replace(/[^a-z0-9]/g, (c) => (/[\w]/.test(c) ? c : `\\${c}`));
}

/** `YYYY-MM-DD` of days since 1970-01-01 (the SQL's days), each made once. */
const DAYS = new Map<number, string>();
function dayOf(epochDay: number): string {
  let day = DAYS.get(epochDay);
  if (day === undefined) {
    day = formatDay(epochDay * DAY_MS);
    DAYS.set(epochDay, day);
  }
  return day;
}

/** A day without counts. */
export const NONE: DayCount = { signal: 0, exposure: 0 };

/** The tables whose file for a project and day says the day was exported, per gap kind: where its signal and exposure come from. */
const EXPORT_TABLES: Readonly<Record<GapKind, readonly TableDef[]>> = {
  thumbs_down_page: [FEEDBACK, VIEWS_PAGES],
  search_without_clicks: [SEARCHES],
  unanswered_topic: [ASSISTANT_CONVERSATIONS],
};

/** `project\u0000kind → the days of `days` with a file of one of the kind's tables for the project` (an exported day). */
export async function exportedDays(lake: LakeFiles, days: readonly string[], gaps: readonly RateGap[]): Promise<Map<string, Set<string>>> {
  const out = new Map<string, Set<string>>();
  for (const group of new Set(gaps.map((g) => `${g.projectId}\u0000${g.kind}`))) {
    const [projectId, kind] = group.split('\u0000') as [string, GapKind];
    const found = new Set<string>();
    for (const table of EXPORT_TABLES[kind]) for (const f of await gapTableFiles(lake, table, days)) if (f.projectId === projectId) found.add(f.day);
    out.set(group, found);
  }
  return out;
}
