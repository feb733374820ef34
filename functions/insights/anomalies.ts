/**
 * Anomalies: a newly complete day's figure (human visitors, page views, searches, assistant
 * questions, thumbs down) against the median of the same weekday over the 4 weeks before it.
 * Below `ANOMALY_DROP` or above `ANOMALY_RISE` times that median, with at least 3 of those
 * weekdays complete, it is an anomaly; with fewer, or a median of 0, nothing is claimed.
 *
 * A day whose visitors fall by 90 % is far more often a broken tracking snippet or a changed
 * API than real traffic: the message says which figure, on which day, both numbers and the
 * days compared, so a person can look before the number reaches a report.
 *
 * Once per project, day and figure: the anomaly is claimed in the shared state store (an atomic
 * read-modify-write, so two runs cannot both claim it) before it is published; a publish that
 * fails gives the claim back, so the next run tries again.
 */
import type { SharedStore } from '../shared/storage/shared-store.js';
import { addDays } from '../shared/dates.js';
import { formatCount, percent } from '../shared/format.js';
import { median } from '../shared/median.js';
import { FIGURE_DATASET, FIGURE_NAMES, FIGURES, type FigureName } from '../warehouse/figure-names.js';
import { figureKey, type FigureTable } from './figures.js';
import type { InsightMessage } from './publish.js';

/** Same weekdays looked back at. */
export const WEEKS_COMPARED = 4;
/** Comparable days needed before anything is claimed. */
export const MIN_COMPARABLE = 3;
/**
 * The smallest usual a ratio is claimed against: below it a change is noise (0 thumbs down
 * against a usual 1 is "0 %"), as the digest's movers need a base of 20 (MOVER_MIN_BASE).
 */
export const MIN_USUAL = 10;

export interface Thresholds {
  /** `ANOMALY_DROP`. */
  readonly drop: number;
  /** `ANOMALY_RISE`. */
  readonly rise: number;
}

/** A project's day whose figures are new (its units completed since the last check). */
export interface NewDay {
  readonly projectId: string;
  readonly day: string;
  /** The figures of the day whose unit is newly complete. */
  readonly figures: readonly FigureName[];
}

export interface Anomaly {
  readonly projectId: string;
  readonly day: string;
  readonly figure: FigureName;
  readonly value: number;
  /** Median of the figure over the comparable days. */
  readonly usual: number;
  /** The same weekdays compared (complete units), oldest first, with their values. */
  readonly compared: readonly { readonly day: string; readonly value: number }[];
  readonly direction: 'drop' | 'rise';
}

/** Whether the unit of `figure` of `projectId` on `day` is complete (has a manifest). */
export type IsComplete = (projectId: string, figure: FigureName, day: string) => boolean;

/** The same weekdays before `day` that are compared with it, oldest first. */
export function comparedDays(day: string): string[] {
  return Array.from({ length: WEEKS_COMPARED }, (_, i) => addDays(day, -7 * (WEEKS_COMPARED - i)));
}

/**
 * The anomalies among `days`: pure, from the figures and which units are complete. A figure
 * of a complete unit with no row counts as 0 (an export that found nothing is a figure too).
 */
export function findAnomalies(days: readonly NewDay[], figures: FigureTable, isComplete: IsComplete, thresholds: Thresholds): Anomaly[] {
  const figureOf = (projectId: string, figure: FigureName, day: string): number | undefined =>
    isComplete(projectId, figure, day) ? (figures.get(figureKey(projectId, day))?.[figure] ?? 0) : undefined;
  const found: Anomaly[] = [];
  for (const { projectId, day, figures: names } of days) {
    for (const figure of FIGURE_NAMES.filter((name) => names.includes(name))) {
      const value = figureOf(projectId, figure, day);
      if (value === undefined) continue;
      const compared = comparedDays(day).flatMap((before) => {
        const past = figureOf(projectId, figure, before);
        return past === undefined ? [] : [{ day: before, value: past }];
      });
      if (compared.length < MIN_COMPARABLE) continue;
      const usual = median(compared.map((c) => c.value));
      // Against a small usual any change is a large ratio: nothing worth telling.
      if (usual < MIN_USUAL) continue;
      const direction = value < thresholds.drop * usual ? 'drop' : value > thresholds.rise * usual ? 'rise' : undefined;
      if (direction !== undefined) found.push({ projectId, day, figure, value, usual, compared, direction });
    }
  }
  return found;
}

/** The state key of an anomaly's claim (one per project, day and figure). */
export function anomalyKey(anomaly: Pick<Anomaly, 'projectId' | 'day' | 'figure'>): string {
  return `anomaly/${anomaly.projectId}/${anomaly.day}/${anomaly.figure}`;
}

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'] as const;

export function weekdayOf(day: string): string {
  return WEEKDAYS[new Date(`${day}T00:00:00Z`).getUTCDay()] as string;
}

/** A usual is a median: a half (2.5) when the days compared are even in number. */
function formatNumber(value: number): string {
  return formatCount(value, { oneDecimal: true });
}

/** The message of an anomaly: subject, plain-text body, attributes `kind=anomaly` and `projectId`. */
export function anomalyMessage(anomaly: Anomaly, thresholds: Thresholds): InsightMessage {
  const label = FIGURES[anomaly.figure].sentenceLabel;
  const verb = anomaly.direction === 'drop' ? 'fell' : 'rose';
  const weekday = weekdayOf(anomaly.day);
  const body = [
    `${label} of ${anomaly.projectId} on ${weekday} ${anomaly.day}: ${formatNumber(anomaly.value)}, against a usual ${formatNumber(anomaly.usual)}`,
    `(the median of the ${anomaly.compared.length} ${weekday}s before it) — ${percent(anomaly.value, anomaly.usual)} of usual.`,
    '',
    `Project:   ${anomaly.projectId}`,
    `Day:       ${anomaly.day} (${weekday}, UTC)`,
    `Figure:    ${label} (dataset ${FIGURE_DATASET[anomaly.figure]})`,
    `This day:  ${formatNumber(anomaly.value)}`,
    `Usual:     ${formatNumber(anomaly.usual)}`,
    `Compared:  ${anomaly.compared.map((c) => `${c.day} ${formatNumber(c.value)}`).join(', ')}`,
    `Threshold: below ${thresholds.drop}× or above ${thresholds.rise}× the usual (ANOMALY_DROP, ANOMALY_RISE)`,
    '',
    anomaly.direction === 'drop'
      ? 'A fall this large is more often a broken tracking snippet, a changed API or a deploy that removed pages than real traffic: check the site and the export of that day (mintlify-exporter status).'
      : 'A rise this large is often a bot, a launch or a link from elsewhere: check the pages and searches of that day in the report.',
    'Sent once for this project, day and figure.',
  ].join('\n');
  return {
    kind: 'anomaly',
    projectId: anomaly.projectId,
    subject: `${anomaly.projectId}: ${label} ${verb} to ${percent(anomaly.value, anomaly.usual)} on ${anomaly.day} (${formatNumber(anomaly.value)} vs ${formatNumber(anomaly.usual)})`,
    body,
  };
}

/** A claim of an anomaly, kept in the shared state store. */
export interface AnomalyRecord extends Anomaly {
  /** When it was published (ISO 8601). */
  readonly sentAt: string;
}

export interface ReportAnomaliesDeps {
  readonly store: SharedStore;
  readonly publish: (message: InsightMessage) => Promise<void>;
  readonly now: () => number;
}

/**
 * Publishes each anomaly not published before, once: claim (atomic), publish, and on a failed
 * publish give the claim back and throw (the next run retries). Resolves with the anomalies
 * published by this call.
 */
export async function publishAnomalies(anomalies: readonly Anomaly[], thresholds: Thresholds, deps: ReportAnomaliesDeps): Promise<Anomaly[]> {
  const sent: Anomaly[] = [];
  for (const anomaly of anomalies) {
    const key = anomalyKey(anomaly);
    const record: AnomalyRecord = { ...anomaly, sentAt: new Date(deps.now()).toISOString() };
    const claimed = await deps.store.update<AnomalyRecord, boolean>(key, (current) =>
      current === undefined ? { value: record, result: true } : { value: current, result: false },
    );
    if (!claimed) continue;
    try {
      await deps.publish(anomalyMessage(anomaly, thresholds));
    } catch (error) {
      await deps.store.update<AnomalyRecord, void>(key, (current) => ({ value: current?.sentAt === record.sentAt ? undefined : current, result: undefined }));
      throw error;
    }
    sent.push(anomaly);
  }
  return sent;
}

/** Every anomaly published so far for `projectId` (or every project), from the state store. */
export async function listAnomalies(store: SharedStore, projectId?: string): Promise<AnomalyRecord[]> {
  const items = await store.list<AnomalyRecord>(projectId === undefined ? 'anomaly/' : `anomaly/${projectId}/`);
  return items.map((item) => item.value).sort((a, b) => a.day.localeCompare(b.day) || a.projectId.localeCompare(b.projectId));
}
