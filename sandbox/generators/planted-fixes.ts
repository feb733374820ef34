/**
 * Past fixes the sandbox plants, so that `effects` shows real verdicts on a fresh lake's first
 * day: in every configured project with enough feedback for a verdict within a week
 * (`PLANTED_MIN_FEEDBACK` rows a day), two completed agent jobs made for a page's thumbs down,
 * completed (and merged) eight days before the day the sandbox is asked to plant them for
 * (`fixesAsOf`: seven whole days after it by then, the days `npm start` exports on both sides):
 * - the page with most feedback (catalogue entry 0): from the day after, `PLANTED_FALL` of its
 *   thumbs down are thumbs up instead — its thumbs down per view falls by that share, its views
 *   and its feedback rows unchanged (so are the requests an export sends);
 * - the next page (entry 1): a job that changed nothing — its figures as before.
 * The agent API serves the jobs (completed, with their pull requests); the CLI writes their
 * outcome records into the lake the first time it exports the project's feedback from the
 * embedded sandbox (functions/cli/sandbox-fixes.ts), as the follow-up runner would have.
 */
import { addDays } from '../../functions/shared/dates.js';
import type { SitePages } from './pages.js';
import { baseRows, type ProjectSeed } from './projects.js';

/** A project plants its fixes when a day has at least this many feedback rows (the default proj_large: about 1,200). */
export const PLANTED_MIN_FEEDBACK = 500;
/** The share of the fixed page's thumbs down that turn into thumbs up after its fix. */
export const PLANTED_FALL = 0.6;
/** Days before `fixesAsOf` the planted jobs completed. */
export const PLANTED_DAYS_AGO = 8;

/** One planted past job: a completed agent job made for a page's thumbs down. */
export interface PlantedFix {
  readonly projectId: string;
  readonly jobId: string;
  /** The page's catalogue entry (0: the page most feedback points at). */
  readonly rank: number;
  /** The page's path: the gap's key (kind `thumbs_down_page`). */
  readonly path: string;
  /** The UTC day the job completed and its pull request was merged; the effect starts the day after. */
  readonly completedDay: string;
  /** The share of the page's thumbs down that became thumbs up from the day after `completedDay` (0: no effect). */
  readonly fall: number;
  readonly prLink: string;
}

/** The fixes planted as of `fixesAsOf` (`YYYY-MM-DD`) in the configured projects `seeds`. */
export function plantedFixes(seeds: readonly ProjectSeed[], pages: SitePages, fixesAsOf: string): PlantedFix[] {
  const completedDay = addDays(fixesAsOf, -PLANTED_DAYS_AGO);
  return seeds
    .filter((seed) => baseRows(seed, 'feedback').rows >= PLANTED_MIN_FEEDBACK)
    .flatMap((seed) => {
      const repository = `https://github.com/sandbox-docs/${seed.id.replace(/^proj_/, '')}-docs`;
      return [
        { rank: 0, fall: PLANTED_FALL, jobId: 'job_fixed_page', pull: 201 },
        { rank: 1, fall: 0, jobId: 'job_no_effect_page', pull: 202 },
      ].map(({ rank, fall, jobId, pull }) => ({
        projectId: seed.id,
        jobId,
        rank,
        path: pages.path(seed.id, rank),
        completedDay,
        fall,
        prLink: `${repository}/pull/${pull}`,
      }));
    });
}

/** The planted share of thumbs down turned up, by project, page rank and day (0 when none). */
export class PlantedFalls {
  private readonly byPage = new Map<string, PlantedFix>();

  constructor(readonly fixes: readonly PlantedFix[]) {
    for (const fix of fixes) this.byPage.set(`${fix.projectId}\u0000${fix.rank}`, fix);
  }

  /** The share of a thumbs down on the page of entry `rank` that is a thumbs up instead on `day`. */
  fall(projectId: string, rank: number, day: string): number {
    const fix = this.byPage.get(`${projectId}\u0000${rank}`);
    return fix !== undefined && day > fix.completedDay ? fix.fall : 0;
  }
}

/** No planted fixes (a sandbox not asked to plant them). */
export const NO_PLANTED_FALLS = new PlantedFalls([]);
