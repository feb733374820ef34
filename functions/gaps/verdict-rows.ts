/**
 * `findVerdicts`: did the fixes work — one entry per completed job made for a gap
 * (followup_outcomes with a `gap_id`), in the contract's shape (`effects --json`), with its
 * verdict (verdict.ts) as of `now`. Reads the warehouse only: the outcome records through the
 * destination, the gap tables and views_pages of the 90 days before the first job and the days
 * since (an `s3://` destination is mirrored for those days, warehouse/lake.ts).
 *
 * `fixEffectLines` turns the entries into the `fix_effects` table's records (one JSON object a
 * line, tables.ts FIX_EFFECTS): `effects --save` and the weekly report write them, one file per
 * project and day, under `fix_effects/dt=<day>/<project>.json`.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { addDays, formatDay } from '../shared/dates.js';
import { NoDataError } from '../shared/errors.js';
import type { AppLogger } from '../shared/logger.js';
import type { Destination } from '../shared/storage/destination.js';
import { openRecords, withLake } from '../warehouse/lake.js';
import { parseDayKey } from '../warehouse/lake/layout.js';
import type { LakeTarget } from '../warehouse/lake/target.js';
import { createPartitionRegistrar, type GlueSend } from '../warehouse/partitions.js';
import { FIX_EFFECTS, partitionKey } from '../warehouse/tables.js';
import { EFFECT_TABLES, lookbackDays, readEffects, verdictOrder, type GapEffect } from './effect.js';
import type { GapKind, GapRequest } from './gaps.js';
import { portfolioOf, type PortfolioEntry } from './portfolio.js';
import { readOutcomeRequests } from './read.js';
import type { Verdict, VerdictResult } from './verdict.js';

/**
 * One entry of `effects --json` (DESIGN: "Did the fix work", round seven's "Verdicts that know
 * what they cannot know"): the gap, its job, and the verdict's fields; `verdict` null for a job
 * not measured (out of scope, not merged: the reason says which).
 */
export interface VerdictRow extends Omit<VerdictResult, 'verdict'> {
  readonly verdict: Verdict | null;
  readonly gapId: string;
  readonly projectId: string;
  /** Null when the gap was not found again in the warehouse. */
  readonly kind: GapKind | null;
  readonly key: string | null;
  readonly jobId: string | null;
  readonly prLink: string | null;
  readonly completedDay: string;
  /** The day its pull request was merged (then "after" starts the day after it); null: not merged, not read, or not checked. */
  readonly mergedDay: string | null;
  /** Later completed jobs for the same gap: named, not measured (the earliest is the fix). */
  readonly laterJobs: readonly { readonly jobId: string | null; readonly completedDay: string }[];
}

export interface VerdictsRequest {
  /** The lake, parsed at the door (warehouse/lake/target.ts). */
  readonly target: LakeTarget;
  /** Projects; empty: every project with a completed job. */
  readonly projects: readonly string[];
  /** Only jobs completed on these UTC days ([from, to)); absent: every completed job. */
  readonly completed?: { readonly from: string; readonly to: string } | undefined;
  readonly now: number;
}

export interface VerdictsDeps {
  readonly s3Client?: S3Client;
  readonly onWarning?: (line: string) => void;
}

export interface VerdictsResult {
  /** The destination as the user named it. */
  readonly destination: string;
  /** Latest completion first. */
  readonly effects: readonly VerdictRow[];
  /** Per project and gap kind, the fixes pooled (portfolio.ts). */
  readonly portfolio: readonly PortfolioEntry[];
  /** Outcome records skipped at the door (each told to `onWarning`). */
  readonly skippedRecords: number;
}

/** Throws NoDataError when no job made for a gap has completed (in the period and projects asked). */
export async function findVerdicts(request: VerdictsRequest, deps: VerdictsDeps = {}): Promise<VerdictsResult> {
  const records = openRecords(request.target, deps);
  let skippedRecords = 0;
  const onSkipped = (line: string) => {
    skippedRecords += 1;
    deps.onWarning?.(`outcome record ${line}`);
  };
  const requests = completedIn(await readOutcomeRequests(records, { now: request.now, onSkipped }), request.completed);
  const scope = { projects: request.projects, now: request.now };
  const days = lookbackDays(requests, scope);
  const first = days[0];
  if (first === undefined) {
    const which = request.projects.length > 0 ? ` for ${request.projects.join(', ')}` : '';
    const when = request.completed ? ` completed from ${request.completed.from} to ${addDays(request.completed.to, -1)}` : ' has completed';
    throw new NoDataError(
      `no job made for a gap${which}${when}: write prompts with "mintlify-exporter gaps --prompts FILE", enqueue them, and ask again once their jobs complete (or choose other days: --days N, --from D1 --to D2)`,
    );
  }
  return withLake(
    request.target,
    { from: first, to: addDays(formatDay(request.now), 1), prefixes: EFFECT_TABLES.map((t) => t.prefix) },
    {
      ...(deps.s3Client ? { s3Client: deps.s3Client } : {}),
      ...(deps.onWarning ? { onWarning: deps.onWarning } : {}),
      records,
    },
    async (lake) => {
      const effects = (await readEffects(lake, requests, scope)).map(toVerdictRow);
      return { destination: lake.url, effects, portfolio: portfolioOf(effects), skippedRecords };
    },
  );
}

/** Every gap's requests, with the completed ones kept only when they completed in `period`. */
function completedIn(requests: ReadonlyMap<string, readonly GapRequest[]>, period: VerdictsRequest['completed']): ReadonlyMap<string, readonly GapRequest[]> {
  if (period === undefined) return requests;
  const inPeriod = (r: GapRequest) => {
    if (r.status !== 'completed' || r.finishedAt === undefined) return true;
    const day = formatDay(r.finishedAt);
    return day >= period.from && day < period.to;
  };
  return new Map([...requests].map(([gapId, made]) => [gapId, made.filter(inPeriod)]));
}

export function toVerdictRow(effect: GapEffect): VerdictRow {
  const { judged } = effect;
  return {
    gapId: effect.gapId,
    projectId: effect.projectId,
    kind: effect.gap?.kind ?? null,
    key: effect.gap?.key ?? null,
    jobId: effect.jobId ?? null,
    prLink: effect.prLink ?? null,
    completedDay: effect.completedDay,
    mergedDay: effect.mergedDay ?? null,
    laterJobs: effect.laterJobs.map((j) => ({ jobId: j.jobId ?? null, completedDay: j.completedDay })),
    verdict: judged.verdict,
    reason: judged.reason,
    before: judged.before,
    after: judged.after,
    control: judged.control,
    effect: judged.effect,
    detectable: judged.detectable,
    daysToVerdict: judged.daysToVerdict,
  };
}

/** Entries in VERDICTS_FIRST, then latest completion first (stable). */
export function byVerdict<T extends { readonly verdict: Verdict | null; readonly completedDay: string }>(effects: readonly T[]): T[] {
  return [...effects].sort(
    (a, b) => verdictOrder(a.verdict) - verdictOrder(b.verdict) || (a.completedDay < b.completedDay ? 1 : a.completedDay > b.completedDay ? -1 : 0),
  );
}

/** The `fix_effects` files of `effects` judged at `judgedAt`: key → JSON lines, one file per project. */
export function verdictFiles(effects: readonly VerdictRow[], judgedAt: number): Map<string, string> {
  const day = formatDay(judgedAt);
  const files = new Map<string, string>();
  for (const e of effects) {
    const key = partitionKey(FIX_EFFECTS, day, `${e.projectId}.json`);
    const record = {
      gap_id: e.gapId,
      project_id: e.projectId,
      kind: e.kind,
      key: e.key,
      job_id: e.jobId,
      pr_link: e.prLink,
      completed_day: e.completedDay,
      verdict: e.verdict,
      reason: e.reason,
      before_days: e.before.days,
      before_signals: e.before.signals,
      before_exposure: e.before.exposure,
      before_rate: e.before.rate,
      after_days: e.after.days,
      after_signals: e.after.signals,
      after_exposure: e.after.exposure,
      after_rate: e.after.rate,
      control_gaps: e.control.gaps,
      control_ratio: e.control.ratio,
      effect_ratio: e.effect.ratio,
      effect_low: e.effect.low,
      effect_high: e.effect.high,
      judged_at: new Date(judgedAt).toISOString(),
    } satisfies Record<(typeof FIX_EFFECTS.columns)[number]['name'], unknown>;
    files.set(key, `${files.get(key) ?? ''}${JSON.stringify(record)}\n`);
  }
  return files;
}

/** Writes the `fix_effects` files of `effects` (a project's file of the day replaced); the keys written. */
export async function writeVerdicts(destination: Pick<Destination, 'put'>, effects: readonly VerdictRow[], judgedAt: number): Promise<string[]> {
  const files = verdictFiles(effects, judgedAt);
  for (const [key, text] of files) await destination.put(key, text, { contentType: 'application/x-ndjson' });
  return [...files.keys()];
}

/** The Glue catalog the `fix_effects` days are registered in (the weekly report, `effects --save`). */
export interface VerdictPartitions {
  readonly glue: GlueSend;
  /** The stack's Glue database. */
  readonly database: string;
  /** The organisation whose lake the verdicts are written in (a deployment of many: the table's `org` partition). */
  readonly org?: string | undefined;
  readonly logger?: Pick<AppLogger, 'warn' | 'error'> | undefined;
}

/** Registers the days of the `fix_effects` files `written` (writeVerdicts' keys) in Glue, in the run that wrote them; never throws. */
export async function registerVerdictDays(partitions: VerdictPartitions, written: readonly string[], now: () => number): Promise<void> {
  const { glue, database, org, logger } = partitions;
  const registrar = createPartitionRegistrar({ glue, database, now, logger, org });
  for (const day of new Set(written.flatMap((key) => parseDayKey(key)?.day ?? []))) await registrar.wrote(FIX_EFFECTS.name, day);
}
