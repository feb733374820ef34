/**
 * The outcome records the `scope` command checks again and rewrites: the completed jobs with a
 * pull request whose record's day (`followup_outcomes/dt=<finished day>/`) is in the period,
 * each rewritten in place with its new `scope`, `scope_reasons` and `merged_at` (a pull request
 * merged after its job completed is picked up this way). Records that do not parse are skipped
 * and counted, never rewritten.
 */
import * as v from 'valibot';
import type { Destination } from '../shared/storage/destination.js';
import { addDays } from '../shared/dates.js';
import { FOLLOWUP_OUTCOME, type OutcomeRecord } from '../warehouse/records.js';
import { FOLLOWUP_OUTCOMES } from '../warehouse/tables.js';
import type { PullScope } from './check.js';

export interface OutcomeFile {
  readonly key: string;
  readonly record: OutcomeRecord;
}

export interface CompletedPulls {
  readonly files: OutcomeFile[];
  /** Records that could not be read as outcome records. */
  readonly skipped: number;
}

/** The days of `followup_outcomes` in `[from, to)`; every day when no period is given. */
function dayFolders(period: { from: string; to: string } | undefined): string[] {
  if (period !== undefined) {
    const days: string[] = [];
    for (let day = period.from; day < period.to; day = addDays(day, 1)) days.push(`${FOLLOWUP_OUTCOMES.prefix}/dt=${day}/`);
    return days;
  }
  return [`${FOLLOWUP_OUTCOMES.prefix}/`];
}

/** The completed jobs' records with a pull request, of the projects given (all when none), oldest first. */
export async function readCompletedPulls(
  lake: Pick<Destination, 'list' | 'get'>,
  filter: { readonly period?: { from: string; to: string } | undefined; readonly projects: readonly string[] },
): Promise<CompletedPulls> {
  if (lake.list === undefined) throw new Error('this destination cannot list its records');
  const files: OutcomeFile[] = [];
  let skipped = 0;
  for (const folder of dayFolders(filter.period)) {
    for (const key of (await lake.list(folder)).filter((name) => name.endsWith('.json')).sort()) {
      const body = await lake.get(key);
      let parsed: unknown;
      try {
        parsed = JSON.parse(new TextDecoder().decode(body));
      } catch {
        parsed = undefined;
      }
      const record = v.safeParse(FOLLOWUP_OUTCOME, parsed);
      if (!record.success) {
        skipped++;
        continue;
      }
      const outcome = record.output;
      if (outcome.status !== 'completed' || outcome.pr_link === null) continue;
      if (filter.projects.length > 0 && !filter.projects.includes(outcome.project_id)) continue;
      files.push({ key, record: outcome });
    }
  }
  files.sort((a, b) => a.record.finished_at.localeCompare(b.record.finished_at) || a.key.localeCompare(b.key));
  return { files, skipped };
}

/** The record with the check's result, through the schema (its keys in column order). */
export function withScope(record: OutcomeRecord, result: Pick<PullScope, 'scope' | 'reasons' | 'mergedAt'>): OutcomeRecord {
  return v.parse(FOLLOWUP_OUTCOME, {
    ...record,
    scope: result.scope,
    scope_reasons: JSON.stringify(result.reasons),
    merged_at: result.mergedAt === null ? null : new Date(result.mergedAt).toISOString(),
  });
}
