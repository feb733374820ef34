/**
 * `findGaps`: the ranked gaps of a warehouse over a period, each with the requests already made
 * for it. Reads the warehouse only — no API request, no key:
 * - the gap tables of the period (an `s3://` destination is mirrored for those days, lake.ts);
 * - followup_outcomes through the destination (every day);
 * - the follow-up state, when the caller passes it (the CLI: FOLLOWUP_STATE_TABLE, else the
 *   local `.followup-state` folder `follow-up` and `consume` keep): a request enqueued and not
 *   finished counts as in flight. Without it only finished requests are known, so a gap whose
 *   job is still running would be prompted again: the CLI says so.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { withLake } from '../warehouse/lake.js';
import type { LakeTarget } from '../warehouse/lake/target.js';
import { addDays } from '../shared/dates.js';
import { NoDataError } from '../shared/errors.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import { rankGaps, type Gap, type GapKind } from './gaps.js';
import { addStateRequests, GAP_TABLES, readGapEvidence, readOutcomeRequests, type Unplaced } from './read.js';

export interface GapsRequest {
  /** The lake, parsed at the door (warehouse/lake/target.ts). */
  readonly target: LakeTarget;
  /** UTC days, in order (one at least). */
  readonly days: readonly string[];
  /** Projects; empty: every project with data in the period. */
  readonly projects: readonly string[];
  /** Gaps kept, the highest ranked open ones first (the searches' and pages' questions are asked for that many rows, plus the gaps already asked for; the unanswered questions' for every category). @default every gap */
  readonly top?: number;
  /** Kinds kept (`gaps --kind`); empty or absent: every kind. */
  readonly kinds?: readonly GapKind[];
}

export interface GapsDeps {
  readonly s3Client?: S3Client;
  readonly onWarning?: (line: string) => void;
  /** The follow-up state records (`list`), when reachable. */
  readonly followUpState?: Pick<SharedStore, 'list' | 'description'>;
}

export interface GapsResult {
  /** The destination as the user named it (`s3://bucket/prefix`, or the folder). */
  readonly destination: string;
  readonly from: string;
  /** The last day (inclusive). */
  readonly last: string;
  readonly projects: readonly string[];
  /** Ranked, open ones (no job in flight or done) first, at most `top`. */
  readonly gaps: readonly Gap[];
  /** Days of the period with data (a file of a gap table), of `days`. */
  readonly daysWithData: number;
  /** Days of the period. */
  readonly days: number;
  /** Whether requests in flight were known (the follow-up state was read). */
  readonly stateRead: boolean;
  /** Unanswered questions of the period in no topic (no word to group by, or past the topics drawn per project). */
  readonly unplaced: Unplaced;
}

/** Throws NoDataError when nothing of the gap tables was exported for the days and projects. */
export async function findGaps(request: GapsRequest, deps: GapsDeps = {}): Promise<GapsResult> {
  const from = request.days[0];
  const last = request.days[request.days.length - 1];
  if (from === undefined || last === undefined) throw new NoDataError('no day to look at: give --days N or --from D1 --to D2');
  const after = addDays(last, 1);
  return withLake(
    request.target,
    { from, to: after, prefixes: GAP_TABLES.map((table) => table.prefix) },
    {
      ...(deps.s3Client ? { s3Client: deps.s3Client } : {}),
      ...(deps.onWarning ? { onWarning: deps.onWarning } : {}),
    },
    async (lake) => {
      const requests = await readOutcomeRequests(lake.records);
      let stateRead = false;
      if (deps.followUpState) {
        try {
          await addStateRequests(requests, deps.followUpState);
          stateRead = true;
        } catch (error) {
          deps.onWarning?.(
            `the follow-up state (${deps.followUpState.description}) could not be read, so gaps with a job in flight are not marked: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
      }
      // Open gaps come before the ones already asked for: each question is asked for enough rows
      // that the first `top` open gaps are among them, whatever was done about the others (the
      // unanswered questions' for every category: its rows are not in score order, read.ts).
      const read = await readGapEvidence(
        lake,
        { days: request.days, projects: request.projects, ...(deps.onWarning ? { onWarning: deps.onWarning } : {}) },
        request.top === undefined ? undefined : request.top + requests.size,
      );
      if (read.files === 0) {
        const which = request.projects.length > 0 ? ` for ${request.projects.join(', ')}` : '';
        throw new NoDataError(
          `nothing exported in ${lake.url} from ${from} to ${last}${which}: run "mintlify-exporter export" first, or choose other days (--days N, --from D1 --to D2)`,
        );
      }
      const kinds = new Set(request.kinds ?? []);
      const found = kinds.size === 0 ? read.found : read.found.filter((f) => kinds.has(f.evidence.kind));
      const ranked = openFirst(rankGaps(found, requests, read.daysWithData));
      return {
        destination: lake.url,
        from,
        last,
        projects: read.projects,
        gaps: request.top === undefined ? ranked : ranked.slice(0, request.top),
        daysWithData: read.daysWithData,
        days: request.days.length,
        stateRead,
        unplaced: read.unplaced,
      };
    },
  );
}

/** Gaps that may be prompted (no job in flight, none done but failed) first, each group in rank order: a second run lists the next open gaps, not the same done ones. */
export function openFirst(ranked: readonly Gap[]): Gap[] {
  return [...ranked.filter((gap) => gap.promptable), ...ranked.filter((gap) => !gap.promptable)];
}
