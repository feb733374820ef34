/**
 * The rates a fix is judged by, as effect.ts reads them from the warehouse: each wanted gap's
 * signal and exposure per UTC day. Counts are checked at the door: a day whose signal or
 * exposure is not a whole number ≥ 0 (NaN, Infinity, negative, a fraction: a hand-written or
 * broken file) is refused — the gap gets no verdict, and its reason names the file — so no
 * figure downstream is ever NaN or Infinity.
 */
import { ASSISTANT_CONVERSATIONS, FEEDBACK, SEARCHES, VIEWS_PAGES } from '../warehouse/tables.js';
import type { TableDef } from '../warehouse/table-def.js';
import type { GapKind } from './gaps.js';
import { dayKey } from '../warehouse/lake/layout.js';

/** A gap whose rates are read: its id, kind, project and key. */
export type RateGap = { readonly gapId: string; readonly kind: GapKind; readonly projectId: string; readonly key: string };
import type { DayCount } from './verdict.js';

export interface DailyRates {
  /** `gapId → day → {signal, exposure}`. */
  readonly rates: Map<string, Map<string, DayCount>>;
  /** `gapId →` why its counts were refused (the file named). */
  readonly refused: Map<string, string>;
}

/** A count as the warehouse must hold it: a finite whole number ≥ 0. */
export function isCount(value: number): boolean {
  return Number.isInteger(value) && value >= 0;
}

/** The tables a kind's signal and exposure come from (the file a refused count names). */
const COUNT_TABLES: Readonly<Record<GapKind, { readonly signal: TableDef; readonly exposure: TableDef }>> = {
  thumbs_down_page: { signal: FEEDBACK, exposure: VIEWS_PAGES },
  search_without_clicks: { signal: SEARCHES, exposure: SEARCHES },
  unanswered_topic: { signal: ASSISTANT_CONVERSATIONS, exposure: ASSISTANT_CONVERSATIONS },
};

/** The reason a gap's counts of `day` are refused: the file, the value. */
export function refusedCount(gap: RateGap, day: string, which: 'signal' | 'exposure', value: number): string {
  const table = COUNT_TABLES[gap.kind][which];
  return `${dayKey(table.prefix, day, `${gap.projectId}.parquet`)} holds a count that is not a whole number of at least 0 (${String(value)}): refused, no verdict (export that day again)`;
}
