/**
 * The day counts a fix is judged by, read from the warehouse for effect.ts (which judges them
 * with verdict.ts): each wanted gap's signal and exposure per UTC day — pages and terms by
 * queries/gap-rates-by-day.sql, unanswered topics from every question asked — and, per project
 * and gap kind, the days that were exported (a day never exported is left out of a side, not
 * counted as 0).
 */
import { TYPED_QUESTIONS } from '../../queries/questions.js';
import { daysBetween } from '../shared/dates.js';
import { parquetFiles } from '../warehouse/duckdb.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { fileKeys, rollupScopes, tableFiles } from '../warehouse/lake/files.js';
import { sqlString } from '../warehouse/sql.js';
import { ASSISTANT_CONVERSATIONS, FEEDBACK, SEARCHES, VIEWS_PAGES, type TableDef } from '../warehouse/tables.js';
import type { GapKind } from './gaps.js';
import { tableFiles as gapTableFiles, vocabularyOf, type GapTables } from './read.js';
import { isCount, refusedCount, type DailyRates, type RateGap } from './rates.js';
import { termsOfKey, topicMatcher } from './topics.js';
import type { DayCount } from './verdict.js';

/**
 * `gapId → day → {signal, exposure}` of `gaps`: pages and terms by queries/gap-rates-by-day.sql;
 * unanswered topics from every question asked (queries/assistant-questions-by-day.sql over the
 * table's files in `lake`), each counted in the topics whose key terms it holds (topics.ts
 * `inTopic`, as the topic's figure is counted: read.ts `topicFiguresByDay`).
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

/** Each unanswered topic's questions asked and unanswered per day (see `dailyRates`). */
async function topicRates(tables: GapTables, lake: LakeFiles, gaps: readonly RateGap[]): Promise<Map<string, Map<string, DayCount>>> {
  const byGap = new Map<string, Map<string, DayCount>>();
  if (gaps.length === 0) return byGap;
  const projects = new Set(gaps.map((g) => g.projectId));
  const unreadable = new Set(tables.warehouse.unreadable);
  const prefix = ASSISTANT_CONVERSATIONS.prefix;
  const listed = await tableFiles(lake, prefix, daysBetween(tables.params.from, tables.params.to), projects);
  const files = fileKeys(listed).filter((file) => !unreadable.has(file));
  if (files.length === 0) return byGap;
  const { assistantQuestionsByDay } = TYPED_QUESTIONS;
  const sql = assistantQuestionsByDay.sql(
    { [ASSISTANT_CONVERSATIONS.name]: parquetFiles(files, rollupScopes(listed)) },
    { ...tables.params, projects: [...projects].sort() },
  );
  // Each text read once per session (read.ts `vocabularyOf`), each row matched by the keys' terms, not against every gap.
  const vocabulary = vocabularyOf(tables.warehouse);
  const match = topicMatcher(
    vocabulary,
    gaps.map((g) => termsOfKey(g.key)),
  );
  // A chunk of rows at a time, none kept: every question of 90 days and more.
  await tables.warehouse.session.each(sql, (rows) => {
    for (const row of rows.map(assistantQuestionsByDay.decode)) {
      for (const index of match(vocabulary.termIdsOf(row.question))) {
        const gap = gaps[index] as RateGap;
        if (gap.projectId !== row.projectId) continue;
        const days = byGap.get(gap.gapId) ?? new Map<string, DayCount>();
        const known = days.get(row.day) ?? NONE;
        days.set(row.day, { signal: known.signal + row.unanswered, exposure: known.exposure + row.asked });
        byGap.set(gap.gapId, days);
      }
    }
  });
  return byGap;
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
