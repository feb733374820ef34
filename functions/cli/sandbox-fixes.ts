/**
 * The embedded sandbox's planted past fixes (sandbox/generators/planted-fixes.ts) into the lake:
 * once an export from it has exported a project's feedback, the outcome record of each job
 * planted in that project, as the follow-up runner writes one (followup_outcomes: completed, its
 * pull request, merged the day it completed, the gap it was made for) — unless the lake already
 * holds it (the first export wrote it; a later day's sandbox plants the same jobs on a later day,
 * and the earliest record is the fix). So `effects` and the report's fixes have verdicts on a
 * fresh lake's first day.
 */
import { createHash } from 'node:crypto';
import { buildOutcome, createOutcomeSink } from '../follow-up/outcome.js';
import { gapIdOf } from '../gaps/gaps.js';
import type { Destination } from '../shared/storage/destination.js';
import { FOLLOWUP_OUTCOMES } from '../warehouse/tables.js';
import type { PlantedFix } from '../../sandbox/index.js';

/** The request id of a planted job's outcome record (the same on every run). */
export function plantedRequestId(fix: Pick<PlantedFix, 'projectId' | 'jobId'>): string {
  return `sandbox-${fix.projectId}-${fix.jobId}`;
}

/**
 * Writes the outcome records of the `fixes` of `projects` (those whose feedback the run exported)
 * that `destination` does not hold yet; resolves with how many it wrote.
 */
export async function writePlantedOutcomes(
  destination: Pick<Destination, 'put' | 'list'>,
  fixes: readonly PlantedFix[],
  projects: readonly string[],
): Promise<number> {
  const wanted = fixes.filter((fix) => projects.includes(fix.projectId));
  if (wanted.length === 0) return 0;
  const held = new Set((await destination.list?.(`${FOLLOWUP_OUTCOMES.prefix}/`)) ?? []);
  const holds = (requestId: string) => [...held].some((key) => key.endsWith(`/${requestId}.json`));
  const sink = createOutcomeSink(destination);
  let written = 0;
  for (const fix of wanted) {
    const requestId = plantedRequestId(fix);
    if (holds(requestId)) continue;
    const finishedAt = Date.parse(`${fix.completedDay}T11:00:00Z`);
    await sink.write(
      buildOutcome({
        requestId,
        projectId: fix.projectId,
        jobId: fix.jobId,
        kind: 'create',
        gapId: gapIdOf('thumbs_down_page', fix.projectId, fix.path),
        promptLength: 0,
        promptSha256: createHash('sha256').update('').digest('hex'),
        status: 'completed',
        prLink: fix.prLink,
        sentAt: Date.parse(`${fix.completedDay}T09:00:00Z`),
        finishedAt,
        mergedAt: Date.parse(`${fix.completedDay}T16:00:00Z`),
        polls: 1,
        attempts: 1,
        detail: "planted by the embedded sandbox: a past fix with a known effect, for trying 'effects'",
      }),
    );
    written += 1;
  }
  return written;
}
