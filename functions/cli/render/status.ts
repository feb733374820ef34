/** `status` on stdout: a table of units per day, project and dataset, or one JSON object. */
import type { ExportStatus, UnitView } from '../../export/index.js';
import type { BudgetSnapshot } from '../../shared/pacing/budget.js';
import type { DatasetName } from '../../warehouse/catalog.js';
import { displayText } from '../../shared/display.js';
import { describeMark, type AnomalyMark } from '../../warehouse/records.js';
import { budgetJson, budgetLine, budgetNeeds, requestsLeftText } from './budget.js';
import { formatDuration } from '../../shared/durations.js';

/** With an organisations file: the run that does what is left, and its wait for the organisation's ledger. */
export interface NextRun {
  readonly command: string;
  /** Until its first request may start, ms (0: at once). */
  readonly waitMs: number;
}

export interface StatusView {
  /** The next run of this organisation (an organisations file), when something is left. */
  readonly next?: NextRun;
  /** The destination's URL. */
  readonly destination: string;
  readonly days: readonly string[];
  readonly projects: readonly string[];
  readonly datasets: readonly DatasetName[];
  /** A day is due this long after it ends, hours. */
  readonly settleHours: number;
  /** When the day after the latest due one is due, epoch ms. */
  readonly nextDueAt: number;
  readonly status: ExportStatus;
  /** Anomalies the deployment's hourly check recorded for these days and projects. */
  readonly anomalies: readonly AnomalyMark[];
  /** Time the budget needs for the requests left, ms. */
  readonly budgetMs: number;
  /** The run would use the embedded sandbox, which is not paced: no wait. */
  readonly unpaced?: boolean;
  readonly snapshot: BudgetSnapshot;
  readonly now: number;
}

export function statusJson(view: StatusView) {
  const { status } = view;
  return {
    destination: view.destination,
    days: view.days,
    nextDueAt: new Date(view.nextDueAt).toISOString(),
    units: status.units,
    // Only when there are some: the JSON of a deployment without the insights stays as it was.
    ...(view.anomalies.length > 0 ? { anomalies: view.anomalies } : {}),
    todo: { units: status.todo, requests: status.requests, budgetMs: view.budgetMs, guessed: status.guessed, typical: status.typical, floors: status.floors },
    budget: budgetJson(view.snapshot, view.now),
    ...(view.next === undefined ? {} : { next: view.next }),
  };
}

export function printStatus(view: StatusView, out: { write(text: string): unknown }): void {
  const { days, datasets, status } = view;
  const rows = status.units;
  out.write(`Status of ${view.destination} — UTC days ${days[0]} … ${days[days.length - 1]} (a day is due ${view.settleHours} h after it ends)\n`);
  const width = Math.max(12, ...datasets.map((d) => d.length + 1));
  out.write(`${'day'.padEnd(11)} ${'project'.padEnd(14)} ${datasets.map((d) => d.padEnd(width)).join(' ')}\n`);
  for (const day of days) {
    for (const projectId of view.projects) {
      const cells = datasets.map((dataset) => {
        const row = rows.find((r) => r.date === day && r.projectId === projectId && r.dataset === dataset);
        return cellText(row).padEnd(width);
      });
      out.write(`${day.padEnd(11)} ${projectId.padEnd(14)} ${cells.join(' ')}\n`);
    }
  }
  const drifted = rows.filter((r) => r.state === 'complete' && r.drift !== undefined);
  if (drifted.length > 0) {
    out.write(
      `~ ${drifted.length} unit(s) had fields or values this version does not know: kept (unknown_fields, values as sent); see each manifest's drift\n`,
    );
  }
  const provisional = rows.filter((r) => r.state === 'provisional');
  if (provisional.length > 0) {
    const due = provisional.map((r) => r.dueAt).sort();
    out.write(
      `~ ${provisional.length} unit(s) provisional: exported before their day was due (${view.settleHours} h after it ends, EXPORT_SETTLE_HOURS), so late events may be missing; the first export after ${formatAt(due[0] as string)}${due.length > 1 && due[due.length - 1] !== due[0] ? ` (… ${formatAt(due[due.length - 1] as string)})` : ''} exports them again, no --force needed\n`,
    );
  }
  for (const mark of view.anomalies) {
    out.write(`! anomaly ${mark.day} ${displayText(mark.projectId)}: ${describeMark(mark)}\n`);
  }
  const failures = rows.filter((r) => r.error !== undefined);
  if (failures.length > 0) {
    out.write('Failures (the hourly run retries them, backing off after each failure):\n');
    for (const r of failures) {
      const facts =
        r.state === 'failed' && r.attempts !== undefined
          ? ` [failed ${r.attempts}× in a row, ${r.requests ?? 0} request(s) spent${r.retryAfter !== undefined ? `; next try after ${r.retryAfter.slice(0, 16).replace('T', ' ')}Z` : ''}]`
          : '';
      out.write(`  ${r.dataset} ${displayText(r.projectId)} ${r.date}: ${displayText(r.error ?? '')}${facts}\n`);
    }
  }
  const expired = rows.filter((r) => r.state === 'expired').length;
  if (expired > 0) {
    out.write(`${expired} unit(s) expired: past PERSONAL_DATA_RETENTION_DAYS, their personal data is deleted and they are not exported again\n`);
  }
  out.write(
    status.todo === 0
      ? `All ${rows.length - expired} unit(s) complete.\n`
      : `${rows.length - expired - status.todo} of ${rows.length - expired} unit(s) complete; ${status.todo} to do, ${requestsLeftText(status)}: the budget needs ${budgetNeeds(
          view.budgetMs,
          view.unpaced,
          status,
        )}.\n`,
  );
  out.write(`${budgetLine(view.snapshot, view.now)}\n`);
  if (view.next !== undefined) {
    const wait =
      view.next.waitMs === 0 ? 'its first request at once' : `its first request waits ${formatDuration(view.next.waitMs)} for this organisation's budget`;
    out.write(`Next run: ${view.next.command} (${wait}; the budget needs ${budgetNeeds(view.budgetMs, view.unpaced, view.status)})\n`);
  }
}

/** `2026-10-11 00:00Z` */
function formatAt(iso: string): string {
  return `${iso.slice(0, 16).replace('T', ' ')}Z`;
}

function cellText(cell: UnitView | undefined): string {
  if (!cell) return '';
  switch (cell.state) {
    case 'complete':
      return `complete${cell.truncated ? '*' : ''}${cell.drift ? '~' : ''}`;
    case 'provisional':
      return `provisional${cell.truncated ? '*' : ''}${cell.drift ? '~' : ''}`;
    case 'partial':
      return `partial ${cell.pages}/~${cell.estimate}`;
    case 'failed':
      return 'FAILED';
    case 'missing':
      return 'missing';
    case 'expired':
      return 'expired';
  }
}
