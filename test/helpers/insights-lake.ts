/**
 * Role: the insights' lake. A warehouse written by hand — the five figure tables as Parquet
 * (DuckDB's COPY, the columns the report reads) and a manifest per unit — for days and figures a
 * test chooses: one project's Tuesday at 10 % of the Tuesdays before it, a flat history, a week
 * against the week before. Written through any `Destination`, so the same lake lands in a
 * folder or in a fauxqs bucket. Keys are spelt here, independently of functions/warehouse/tables.ts.
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Destination } from '../../functions/shared/storage/destination.js';
import { makeTempDir } from './files.js';

/** The figures of one project's day, as a lake holds them. */
export interface LakeDay {
  readonly human: number;
  readonly ai: number;
  readonly views: number;
  readonly searches: number;
  /** Assistant conversations (rows); `unanswered` of them unanswered. */
  readonly questions: number;
  readonly unanswered: number;
  /** Feedback items with helpful = false (and `thumbsUp` with true). */
  readonly thumbsDown: number;
  readonly thumbsUp: number;
}

export const FLAT_DAY: LakeDay = { human: 500, ai: 100, views: 2_000, searches: 300, questions: 40, unanswered: 8, thumbsDown: 6, thumbsUp: 20 };

/** The datasets a lake day completes, with the tables each writes. */
const UNITS = [
  { dataset: 'visitors', table: 'visitors_totals' },
  { dataset: 'views', table: 'views_totals' },
  { dataset: 'searches', table: 'searches_totals' },
  { dataset: 'assistant', table: 'assistant_conversations' },
  { dataset: 'feedback', table: 'feedback' },
] as const;

export type LakeDataset = (typeof UNITS)[number]['dataset'];

function rowsSql(table: string, projectId: string, day: string, figures: LakeDay): string {
  const date = `DATE '${day}'`;
  const project = `'${projectId}'`;
  switch (table) {
    case 'visitors_totals':
      return `SELECT ${project} AS project_id, ${date} AS date, ${figures.human}::BIGINT AS human, ${figures.ai}::BIGINT AS ai, ${figures.human + figures.ai}::BIGINT AS total`;
    case 'views_totals':
      return `SELECT ${project} AS project_id, ${date} AS date, ${figures.views}::BIGINT AS total, 0::BIGINT AS human, 0::BIGINT AS ai`;
    case 'searches_totals':
      return `SELECT ${project} AS project_id, ${date} AS date, ${figures.searches}::BIGINT AS total_searches`;
    case 'assistant_conversations':
      return `SELECT ${project} AS project_id, ${date} AS date, (${date}::TIMESTAMP + INTERVAL (i) MINUTE) AS asked_at,
        'question ' || i AS query, CASE WHEN i < ${figures.unanswered} THEN 'unanswered' ELSE 'answered' END AS resolution_status,
        'category ' || (i % 3) AS query_category FROM range(${figures.questions}) t(i)`;
    default:
      return `SELECT ${project} AS project_id, ${date} AS date, '/page-' || (i % 4) AS path,
        i >= ${figures.thumbsDown} AS helpful FROM range(${figures.thumbsDown + figures.thumbsUp}) t(i)`;
  }
}

/**
 * Writes each `days` entry of each project: the five figure tables and their manifests
 * (`finishedAt` = `finishedAt(day)`); `datasets` names the only units of that day to write.
 */
export async function writeLake(
  destination: Destination,
  days: readonly { readonly projectId: string; readonly day: string; readonly figures: LakeDay; readonly datasets?: readonly LakeDataset[] }[],
  finishedAt: (day: string) => number,
): Promise<void> {
  const dir = await makeTempDir('insights-lake');
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const { projectId, day, figures, datasets } of days) {
      for (const { dataset, table } of UNITS) {
        if (datasets !== undefined && !datasets.includes(dataset)) continue;
        const file = path.join(dir, `${table}-${projectId}-${day}.parquet`);
        await connection.run(`COPY (${rowsSql(table, projectId, day, figures)}) TO '${file}' (FORMAT parquet)`);
        const key = `${table}/dt=${day}/${projectId}.parquet`;
        await destination.put(key, await readFile(file));
        await rm(file);
        await destination.put(
          `_manifests/${dataset}/dt=${day}/${projectId}.json`,
          JSON.stringify({
            version: 2,
            dataset,
            projectId,
            date: day,
            window: { dateFrom: day, dateTo: day },
            exportedAt: new Date(finishedAt(day)).toISOString(),
            finishedAt: new Date(finishedAt(day)).toISOString(),
            rows: { [table]: 1 },
            files: { [table]: key },
            bytes: { [table]: 1 },
            pages: 1,
            requests: { successful: 1, sent: 1, retried: 0 },
            runs: 1,
            durationsMs: { total: 1 },
          }),
        );
      }
    }
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** `count` days from `first`, every `step` days (7: the same weekday). */
export function everyDays(first: string, count: number, step = 1): string[] {
  return Array.from({ length: count }, (_, i) => new Date(Date.parse(`${first}T00:00:00Z`) + i * step * 86_400_000).toISOString().slice(0, 10));
}
