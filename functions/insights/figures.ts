/**
 * The five figures of a project's day that an anomaly is judged on, read from a warehouse laid
 * out in a local folder (functions/warehouse/lake.ts) with the report's own tables
 * (`loadWarehouse`: the same files, columns and day filters as the report) and the report's
 * question `queries/daily-totals.sql`, asked and decoded as the report asks it (`ask`) — so a
 * figure here is the figure the report shows for that day.
 */
import { TYPED_QUESTIONS } from '../../queries/questions.js';
import { ask } from '../warehouse/questions.js';
import { daysFrom } from '../warehouse/period.js';
import { DAILY_TABLES, loadWarehouse } from '../warehouse/session.js';
import type { LakeFiles } from '../warehouse/lake.js';
import { addDays } from '../shared/dates.js';
import type { FigureName } from '../warehouse/figure-names.js';

/**
 * A figure of each name: the day's row of queries/daily-totals.sql as the question decodes it,
 * 0 where the day's table holds no row (a figure only once its unit is complete: `IsComplete`).
 */
export type DayFigures = Readonly<Record<FigureName, number>>;

/** `project/day` → figures. */
export type FigureTable = ReadonlyMap<string, DayFigures>;

export function figureKey(projectId: string, day: string): string {
  return `${projectId}/${day}`;
}

/** The figures of `projects` on every day from `first` to `last` (inclusive) in `lake`: only the daily tables are loaded. */
export async function readDailyFigures(lake: LakeFiles, first: string, last: string, projects: readonly string[]): Promise<FigureTable> {
  const warehouse = await loadWarehouse(lake, { days: daysFrom(first, addDays(last, 1)), projects, tables: DAILY_TABLES });
  try {
    const params = { from: first, to: addDays(last, 1), projects };
    const rows = await ask(warehouse, TYPED_QUESTIONS.dailyTotals, params);
    const table = new Map<string, DayFigures>();
    for (const { projectId, day, human, views, searches, questions, thumbsDown } of rows) {
      table.set(figureKey(projectId, day), { human, views, searches, questions, thumbsDown });
    }
    return table;
  } finally {
    warehouse.close();
  }
}
