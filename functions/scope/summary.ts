/**
 * The scope of the agent's pull requests as the read side shows it (the report's section "The
 * agent's changes in scope", the weekly digest's lines): the completed jobs made for gaps whose
 * pull request was checked, of the period and projects, from the requests the gaps' reader
 * found (gaps/read.ts `readOutcomeRequests`).
 */
import { formatDay } from '../shared/dates.js';
import type { ScopeReason, ScopeVerdict } from './rules.js';

/** What the summary takes of a gap's request (gaps/gaps.ts `GapRequest`, which this layer may not import). */
export interface ScopedRequest {
  readonly projectId?: string | undefined;
  readonly status?: string | undefined;
  readonly jobId?: string | undefined;
  readonly prLink?: string | undefined;
  readonly finishedAt?: number | undefined;
  readonly scope?: ScopeVerdict | undefined;
  readonly scopeReasons?: readonly ScopeReason[] | undefined;
}

export interface ScopedJob {
  readonly gapId: string;
  readonly projectId: string | undefined;
  readonly jobId: string | undefined;
  readonly prLink: string | undefined;
  /** The day the job completed (UTC). */
  readonly completedDay: string;
  readonly scope: ScopeVerdict;
  readonly reasons: readonly ScopeReason[];
}

/** The checked pull requests of the jobs completed in `[from, to)`, out of scope and unknown first, then the latest. */
export function scopedJobs(
  requests: ReadonlyMap<string, readonly ScopedRequest[]>,
  filter: { readonly from: string; readonly to: string; readonly projects: readonly string[] },
): ScopedJob[] {
  const jobs: ScopedJob[] = [];
  for (const [gapId, list] of requests) {
    for (const request of list) {
      if (request.status !== 'completed' || request.scope === undefined || request.finishedAt === undefined) continue;
      const day = formatDay(request.finishedAt);
      if (day < filter.from || day >= filter.to) continue;
      if (filter.projects.length > 0 && (request.projectId === undefined || !filter.projects.includes(request.projectId))) continue;
      jobs.push({
        gapId,
        projectId: request.projectId,
        jobId: request.jobId,
        prLink: request.prLink,
        completedDay: day,
        scope: request.scope,
        reasons: request.scopeReasons ?? [],
      });
    }
  }
  const rank = (job: ScopedJob) => (job.scope === 'in_scope' ? 1 : 0);
  return jobs.sort((a, b) => rank(a) - rank(b) || b.completedDay.localeCompare(a.completedDay) || a.gapId.localeCompare(b.gapId));
}

/** `protected: .github/workflows/x.yml; max_lines: a.mdx`. */
export function reasonsText(reasons: readonly ScopeReason[]): string {
  return reasons.map((reason) => (reason.files.length === 0 ? reason.rule : `${reason.rule}: ${reason.files.join(', ')}`)).join('; ');
}

/** What each scope is called for people. */
export const SCOPE_LABEL: Readonly<Record<ScopeVerdict, string>> = { in_scope: 'in scope', out_of_scope: 'out of scope', unknown: 'unknown' };

/** The weekly digest's lines: a count, then each pull request not in scope (at most `limit`). */
export function scopeLines(jobs: readonly ScopedJob[], limit = 5): string[] {
  if (jobs.length === 0) return [];
  const notIn = jobs.filter((job) => job.scope !== 'in_scope');
  const count = (scope: ScopeVerdict) => jobs.filter((job) => job.scope === scope).length;
  return [
    '',
    `The agent's pull requests against the scope rules: ${count('in_scope')} in scope, ${count('out_of_scope')} out of scope, ${count('unknown')} unknown.`,
    ...notIn
      .slice(0, limit)
      .map(
        (job) => `  ${SCOPE_LABEL[job.scope]}: ${job.prLink ?? '(no link)'} (${job.projectId ?? '?'}, job ${job.jobId ?? '?'}) — ${reasonsText(job.reasons)}`,
      ),
    ...(notIn.length > limit ? [`  and ${notIn.length - limit} more: see "The agent's changes in scope" in the report`] : []),
    ...(notIn.length > 0 ? ['  Their fixes get no verdict (not measured). Check them again: mintlify-exporter scope'] : []),
  ];
}
