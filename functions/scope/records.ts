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
import { dayFolder } from '../warehouse/lake/layout.js';
import type { PullScope } from './check.js';
import type { ScopeReason, ScopeVerdict } from './rules.js';

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
    for (let day = period.from; day < period.to; day = addDays(day, 1)) days.push(`${dayFolder(FOLLOWUP_OUTCOMES.prefix, day)}/`);
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

/** The scope fields of an outcome record, as a reader of older records takes them (absent when not checked). */
const SCOPE_FIELDS = v.object({
  scope: v.fallback(v.optional(v.nullable(v.picklist(['in_scope', 'out_of_scope', 'unknown']))), undefined),
  scope_reasons: v.fallback(v.optional(v.nullable(v.string())), undefined),
});

/** `scope` and `scopeReasons` of a record (parsed JSON), for the gaps' requests; nothing when it was never checked. */
export function scopeFieldsOf(json: unknown): { scope?: ScopeVerdict; scopeReasons?: readonly ScopeReason[] } {
  const parsed = v.safeParse(SCOPE_FIELDS, json);
  if (!parsed.success || parsed.output.scope == null) return {};
  let reasons: readonly ScopeReason[] = [];
  try {
    const raw = JSON.parse(parsed.output.scope_reasons ?? '[]') as unknown;
    if (Array.isArray(raw)) {
      reasons = raw.flatMap((reason: { rule?: unknown; files?: unknown }) =>
        typeof reason?.rule === 'string'
          ? [{ rule: reason.rule, files: Array.isArray(reason.files) ? reason.files.filter((f): f is string => typeof f === 'string') : [] }]
          : [],
      );
    }
  } catch {
    reasons = [];
  }
  return { scope: parsed.output.scope, scopeReasons: reasons };
}
