/**
 * Freshness: a project's dataset whose newest complete day ended more than
 * `EXPORT_SETTLE_HOURS` + 24 h ago is stale — a whole day late, whatever the reason (budget,
 * a failing unit, a key without the dataset's scope, a stopped schedule). It is told once
 * (`kind=stale`), recorded in the shared state store, and the record is cleared when the
 * dataset recovers, so a later fall behind is told again.
 *
 * Beside the `MissingDays` alarm, which pages the operators as soon as a day of the heal window
 * is overdue: this message goes to the people who read the data (docs/operations.md).
 */
import type { DatasetName } from '../warehouse/catalog.js';
import { addDays, dayStart } from '../shared/dates.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import type { InsightMessage } from './publish.js';
import { HOUR_MS } from '../shared/time.js';

/** Hours past the settle time after which a dataset is stale. */
export const STALE_GRACE_HOURS = 24;

export interface Freshness {
  readonly projectId: string;
  readonly dataset: DatasetName;
  /** The newest complete day, or undefined when the dataset has none. */
  readonly latest: string | undefined;
}

export interface StaleRecord {
  readonly projectId: string;
  readonly dataset: DatasetName;
  readonly latest: string | null;
  /** When the message was sent (ISO 8601). */
  readonly sentAt: string;
}

/** Whether a dataset whose newest complete day is `latest` is stale at `now`. */
export function isStale(latest: string | undefined, now: number, settleHours: number): boolean {
  if (latest === undefined) return true;
  return now - dayStart(addDays(latest, 1)) > (settleHours + STALE_GRACE_HOURS) * HOUR_MS;
}

export function staleKey(projectId: string, dataset: DatasetName): string {
  return `stale/${projectId}/${dataset}`;
}

export function staleMessage(entry: Freshness, now: number, settleHours: number): InsightMessage {
  const behind = entry.latest === undefined ? undefined : Math.floor((now - dayStart(addDays(entry.latest, 1))) / HOUR_MS);
  const what = entry.latest === undefined ? 'has no complete day at all' : `has no complete day after ${entry.latest} (${behind} hours ago)`;
  return {
    kind: 'stale',
    projectId: entry.projectId,
    subject: `${entry.projectId}: ${entry.dataset} is stale, ${entry.latest === undefined ? 'no complete day' : `last complete day ${entry.latest}`}`,
    body: [
      `The ${entry.dataset} dataset of ${entry.projectId} ${what}.`,
      `A day is due ${settleHours} hours after it ends (EXPORT_SETTLE_HOURS); a dataset more than ${STALE_GRACE_HOURS} hours past that is stale.`,
      '',
      'Reports and queries of the days since then are missing this dataset. Likely causes: the request budget is spent elsewhere,',
      'a unit keeps failing, the API key lost a scope, or the export schedule is disabled.',
      'See what each day is waiting for with: mintlify-exporter status --days 7',
      '',
      'Sent once; you will hear again only if the dataset recovers and then falls behind again.',
    ].join('\n'),
  };
}

export interface FreshnessDeps {
  readonly store: SharedStore;
  readonly publish: (message: InsightMessage) => Promise<void>;
  readonly now: () => number;
}

export interface FreshnessResult {
  /** Datasets told stale by this call. */
  readonly stale: readonly Freshness[];
  /** Datasets that recovered (their record cleared). */
  readonly recovered: readonly Freshness[];
}

/**
 * For each project's dataset: stale and not yet told → claim, publish (a failed publish gives
 * the claim back and throws); fresh with a record → clear it.
 */
export async function checkFreshness(entries: readonly Freshness[], settleHours: number, deps: FreshnessDeps): Promise<FreshnessResult> {
  const now = deps.now();
  const stale: Freshness[] = [];
  const recovered: Freshness[] = [];
  for (const entry of entries) {
    const key = staleKey(entry.projectId, entry.dataset);
    if (!isStale(entry.latest, now, settleHours)) {
      const cleared = await deps.store.update<StaleRecord, boolean>(key, (current) => ({ value: undefined, result: current !== undefined }));
      if (cleared) recovered.push(entry);
      continue;
    }
    const record: StaleRecord = { projectId: entry.projectId, dataset: entry.dataset, latest: entry.latest ?? null, sentAt: new Date(now).toISOString() };
    const claimed = await deps.store.update<StaleRecord, boolean>(key, (current) =>
      current === undefined ? { value: record, result: true } : { value: current, result: false },
    );
    if (!claimed) continue;
    try {
      await deps.publish(staleMessage(entry, now, settleHours));
    } catch (error) {
      await deps.store.update<StaleRecord, void>(key, (current) => ({ value: current?.sentAt === record.sentAt ? undefined : current, result: undefined }));
      throw error;
    }
    stale.push(entry);
  }
  return { stale, recovered };
}
