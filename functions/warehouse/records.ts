/**
 * Anomalies as the warehouse keeps them, beside the data they are about, for the readers that
 * only read the warehouse (`status`, the report's calendar):
 * `_insights/anomalies/dt=<day>/<projectId>.json`, a JSON array with one entry per figure.
 * Written by the hourly check for every anomaly it finds (merged by figure, so writing again
 * changes nothing); the state table's claims decide what is told, this only what is shown.
 */
import * as v from 'valibot';
import type { Destination } from '../shared/storage/destination.js';
import { formatCount, percent } from '../shared/format.js';
import { FIGURE_DATASET, FIGURES, type FigureName } from './figure-names.js';
import { ANOMALIES_PREFIX } from './keys.js';
import { dayKey } from './lake/layout.js';

/** Final statuses of a follow-up request (the `status` column of followup_outcomes). */
export const OUTCOME_STATUSES = ['completed', 'archived', 'failed', 'timed_out', 'uncertain', 'rejected'] as const;
/** A follow-up request makes a new job (`create`) or prompts an existing one (`follow_up`); `manual`: a fix a person made, registered by `effects mark`. */
export const REQUEST_KINDS = ['create', 'follow_up', 'manual'] as const;

const nullableString = v.nullable(v.string());

/**
 * A followup_outcomes record (`followup_outcomes/dt=…/<requestId>.json`) as the consumer writes
 * it: exactly the table's columns (tables.ts `FOLLOWUP_OUTCOMES`), in its order — the output
 * of `v.parse` keeps this order, so the JSON's keys are the Glue table's.
 */
export const FOLLOWUP_OUTCOME = v.strictObject({
  request_id: v.string(),
  project_id: v.string(),
  /** Null only for a new job whose creation never named it (`uncertain`, `rejected`). */
  job_id: nullableString,
  prompt_length: v.number(),
  prompt_sha256: v.string(),
  status: v.picklist(OUTCOME_STATUSES),
  pr_link: nullableString,
  /** ISO 8601 UTC. */
  sent_at: nullableString,
  /** ISO 8601 UTC. */
  finished_at: v.string(),
  polls: v.number(),
  attempts: v.number(),
  detail: nullableString,
  kind: v.picklist(REQUEST_KINDS),
  gap_id: nullableString,
  /** `in_scope` | `out_of_scope` | `unknown`; absent or null when the pull request was not checked. */
  scope: v.optional(v.nullable(v.picklist(['in_scope', 'out_of_scope', 'unknown']))),
  /** JSON array of `{rule, files}`. */
  scope_reasons: v.optional(nullableString),
  /** ISO 8601 UTC: when the pull request was merged. */
  merged_at: v.optional(nullableString),
});

/** A followup_outcomes record. */
export type OutcomeRecord = Readonly<v.InferOutput<typeof FOLLOWUP_OUTCOME>>;

/** A field a reader of outcome records takes when it is what it should be, and goes without otherwise. */
const optionalString = v.fallback(v.optional(v.string()), undefined);

/**
 * What a reader of the gaps takes of an outcome record: a record with a gap and a request id
 * (older records lack later columns, so every other field is taken only when it is what it
 * should be).
 */
export const GAP_OUTCOME = v.object({
  request_id: v.string(),
  gap_id: v.string(),
  project_id: optionalString,
  job_id: optionalString,
  status: v.fallback(v.optional(v.picklist(OUTCOME_STATUSES)), undefined),
  pr_link: optionalString,
  finished_at: optionalString,
  /** Round seven: the scope check's finding and the pull request's merge (absent on older records). */
  scope: v.fallback(v.optional(v.picklist(['in_scope', 'out_of_scope', 'unknown'])), undefined),
  merged_at: optionalString,
});

export function anomaliesKey(day: string, projectId: string): string {
  return dayKey(ANOMALIES_PREFIX, day, `${projectId}.json`);
}

/**
 * What a reader shows of an anomaly, as its file holds it. `figure` is any string, as the
 * readers have always taken it (a mark of a figure this version does not name still shows, by
 * its own dataset and label); `usual` is never 0 (the share of `describeMark` divides by it).
 */
export const ANOMALY_MARK = v.object({
  projectId: v.string(),
  day: v.string(),
  figure: v.custom<FigureName>((value) => typeof value === 'string'),
  /** The figure's dataset: the calendar's cell the mark goes in. */
  dataset: v.string(),
  label: v.string(),
  value: v.number(),
  usual: v.pipe(
    v.number(),
    v.check((usual) => usual !== 0),
  ),
  direction: v.picklist(['drop', 'rise']),
});

/** What a reader shows of an anomaly. */
export type AnomalyMark = Readonly<v.InferOutput<typeof ANOMALY_MARK>>;

/** What the check found (insights/anomalies.ts's `Anomaly` has these and more): what a mark is made of. */
export interface AnomalyFound {
  readonly projectId: string;
  readonly day: string;
  readonly figure: FigureName;
  readonly value: number;
  readonly usual: number;
  readonly direction: 'drop' | 'rise';
}

/** One line: `human visitors 50 vs usual 505 (10 %)`. */
export function describeMark(mark: AnomalyMark): string {
  return `${mark.label} ${formatCount(mark.value)} vs usual ${formatCount(mark.usual)} (${percent(mark.value, mark.usual)})`;
}

function markOf(anomaly: AnomalyFound): AnomalyMark {
  return {
    projectId: anomaly.projectId,
    day: anomaly.day,
    figure: anomaly.figure,
    dataset: FIGURE_DATASET[anomaly.figure],
    label: FIGURES[anomaly.figure].sentenceLabel,
    value: anomaly.value,
    usual: anomaly.usual,
    direction: anomaly.direction,
  };
}

/** Writes `anomalies` into their days' files, merged with what is there (one entry per figure). */
export async function recordAnomalies(destination: Pick<Destination, 'get' | 'put'>, anomalies: readonly AnomalyFound[]): Promise<void> {
  const byFile = new Map<string, AnomalyFound[]>();
  for (const anomaly of anomalies) {
    const key = anomaliesKey(anomaly.day, anomaly.projectId);
    byFile.set(key, [...(byFile.get(key) ?? []), anomaly]);
  }
  for (const [key, found] of byFile) {
    const existing = await readFile(destination, key);
    const merged = new Map(existing.map((mark) => [mark.figure, mark]));
    for (const anomaly of found) merged.set(anomaly.figure, markOf(anomaly));
    await destination.put(key, `${JSON.stringify([...merged.values()], null, 2)}\n`, { contentType: 'application/json' });
  }
}

/** A project's day the check looked at again, and the figures it checked. */
export interface CheckedDay {
  readonly projectId: string;
  readonly day: string;
  readonly figures: readonly FigureName[];
}

/**
 * Rewrites the marks of each checked day from what the check found for it: the checked
 * figures' marks are replaced by the anomalies found (none: the mark goes — a re-export fixed
 * the day), the other figures' marks stay; a day left with no mark loses its file.
 */
export async function rewriteAnomalies(
  destination: Pick<Destination, 'get' | 'put' | 'delete'>,
  checked: readonly CheckedDay[],
  anomalies: readonly AnomalyFound[],
): Promise<void> {
  for (const { projectId, day, figures } of checked) {
    const key = anomaliesKey(day, projectId);
    const existing = await readFile(destination, key);
    const kept = existing.filter((mark) => !figures.includes(mark.figure));
    const marks = [...kept, ...anomalies.filter((a) => a.projectId === projectId && a.day === day).map(markOf)];
    if (marks.length === 0) {
      if (existing.length > 0) await destination.delete(key);
      continue;
    }
    const text = `${JSON.stringify(marks, null, 2)}\n`;
    if (text === `${JSON.stringify(existing, null, 2)}\n`) continue;
    await destination.put(key, text, { contentType: 'application/json' });
  }
}

/** Every anomaly recorded for `days` × `projects`, by day then project. */
export async function readAnomalies(destination: Pick<Destination, 'get'>, days: readonly string[], projects: readonly string[]): Promise<AnomalyMark[]> {
  const files = await Promise.all(days.flatMap((day) => projects.map((projectId) => readFile(destination, anomaliesKey(day, projectId)))));
  return files.flat();
}

/** The marks of one file; none when it is absent or not what this module writes. */
async function readFile(destination: Pick<Destination, 'get'>, key: string): Promise<AnomalyMark[]> {
  const bytes = await destination.get(key);
  if (bytes === undefined) return [];
  try {
    const value: unknown = JSON.parse(Buffer.from(bytes).toString('utf8'));
    return Array.isArray(value) ? value.filter((mark): mark is AnomalyMark => v.is(ANOMALY_MARK, mark)) : [];
  } catch {
    return [];
  }
}
