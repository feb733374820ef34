/**
 * The weekly report's keys: where each week's page and the newest one go, under the destination's prefix.
 */
import { rootOf } from '../../warehouse/lake/layout.js';

/** Where the weekly reports go, under the destination's prefix (the infra grants exactly this). */
export const REPORTS_PREFIX = rootOf('reports');
/** The newest weekly report. */
export const LATEST_KEY = `${REPORTS_PREFIX}latest.html`;

/** The page of ISO week `week` (`2026-W47`). */
export function weeklyKey(week: string): string {
  return `${REPORTS_PREFIX}weekly/${week}.html`;
}

/** The page of a period other than a week, asked for by hand (`{"days": 30}`). */
export function rangeKey(first: string, last: string): string {
  return `${REPORTS_PREFIX}range/${first}_${last}.html`;
}
