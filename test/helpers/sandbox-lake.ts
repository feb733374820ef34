/**
 * Role: the lake a new user has after `npm start` without a key: every dataset of the sandbox's
 * default projects (small, medium and the large one) over the two weeks `npm start` exports, by
 * the real CLI — the very run the docs' samples quote (scripts/sample-run.ts), so a tree builds it
 * once for both (lake-cache.ts); each test file gets its own copy.
 */
import { SAMPLE_NOW, sampleLake } from '../../scripts/sample-run.js';
import { FIRST_RUN_DAYS } from '../../scripts/first-look.js';
import { addDays } from '../../functions/shared/dates.js';
import { DEFAULT_PROJECTS } from '../../sandbox/index.js';

/** The sandbox's own projects, as `npm start` exports them. */
export const SANDBOX_PROJECTS = DEFAULT_PROJECTS.map((project) => project.id);
/** The clock of the run: 06:00 UTC, every exported day due. */
export const SANDBOX_NOW = SAMPLE_NOW;
/** The day after the last exported one (exclusive): the run's own day. */
export const SANDBOX_TO = new Date(SAMPLE_NOW).toISOString().slice(0, 10);
/** The first exported day: two weeks, as `npm start` exports. */
export const SANDBOX_FROM = addDays(SANDBOX_TO, -FIRST_RUN_DAYS);

/** The folder of a fresh copy of the lake. */
export async function buildSandboxLake(): Promise<string> {
  return sampleLake();
}
