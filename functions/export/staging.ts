/**
 * The staging area of one unit, `<dest>/_staging/<dataset>/dt=<day>/<projectId>/` — never
 * under a table's prefix, so no warehouse query ever sees it:
 *
 * - `page-000000.json` … one file per page that arrived, as validated and governed by the
 *   personal-data policy (privacy.ts: nothing raw is staged), written before the
 *   next request is sent (the last page before the tables are written): a unit stopped for
 *   any reason (budget, deadline, Ctrl-C, a crash, a failed write) resumes after its last
 *   staged page and never pays again for a page that was staged;
 * - `checkpoint.json`: where paging stands (next offset or cursor, the first page's totals),
 *   written after each page file;
 * - `failure.json`: why the last attempt failed, for `status` (removed when the unit completes).
 *
 * When the unit completes, its tables and manifest are written and the staging is removed.
 */
import { eachAtOnce } from '../shared/concurrency.js';
import { DATASET_CATALOG, type DatasetName } from '../warehouse/catalog.js';
import type { Destination } from '../shared/storage/destination.js';
import { DestinationError } from '../shared/errors.js';
import { parseJson, stringifyJson } from '../shared/lossless-json.js';
import { stagingPrefix } from '../warehouse/keys.js';
import { readPagerState, type PagerState } from './paging.js';
import type { Unit } from './unit-id.js';

/** Requests spent on a unit so far. */
export interface RequestCounts {
  /** Successful (2xx, valid) responses. */
  readonly successful: number;
  /** HTTP requests sent (every attempt). */
  readonly sent: number;
  /** Attempts that were retried (429s included). */
  readonly retried: number;
}

export const CHECKPOINT_VERSION = 1;

export interface Checkpoint {
  readonly version: typeof CHECKPOINT_VERSION;
  readonly dataset: DatasetName;
  readonly projectId: string;
  readonly date: string;
  /** `limit` the pages were asked with; another limit means other offsets: restart. */
  readonly limit: number | null;
  /** When the unit was first started (ISO); an old checkpoint restarts its unit. */
  readonly startedAt: string;
  readonly updatedAt: string;
  /** Paging after the last staged page; `state.pages` files are staged. */
  readonly state: PagerState;
  /**
   * Every page is staged, the last one included: only the commit (tables, manifest) is left,
   * so a resume sends no request.
   */
  readonly complete?: true;
  /** Requests spent by earlier runs on this unit. */
  readonly requests: RequestCounts;
  /** Runs that worked on the unit before this one. */
  readonly runs: number;
  /**
   * When the staged pages arrived: the `exported_at` of the run that fetched pages `from` on
   * (until the next entry). A resumed unit stamps each row with its page's run, so a row's
   * `exported_at` always goes with the values (a feedback `status`) it was read with.
   * Absent in checkpoints of older versions: their pages take the resuming run's time.
   */
  readonly stamps?: ReadonlyArray<{ readonly from: number; readonly at: string }>;
  /**
   * The fingerprint of the personal-data policy and key the staged pages were governed with
   * (privacy.ts): another one restarts the unit. Absent in checkpoints of older versions.
   */
  readonly privacy?: string;
}

export interface UnitFailure {
  readonly error: string;
  /** ISO time of the failure. */
  readonly at: string;
  /**
   * Failures in a row (1 = the first); drives the backoff of the scheduled runs (units.ts). 0:
   * the failure was not the unit's own (a 401, an unreachable API, a 403): no backoff.
   */
  readonly attempts?: number;
  /** Requests spent on the unit's failed attempts, all of them (every attempt counted). */
  readonly requests?: number;
}

export interface UnitStaging {
  /** `_staging/<dataset>/dt=<day>/<projectId>/`. */
  readonly prefix: string;
  readCheckpoint(): Promise<Checkpoint | undefined>;
  writeCheckpoint(checkpoint: Checkpoint): Promise<void>;
  writePage(index: number, page: object): Promise<void>;
  /** A staged page; throws DestinationError when it is missing or unreadable (restart the unit). */
  readPage(index: number): Promise<unknown>;
  readFailure(): Promise<UnitFailure | undefined>;
  writeFailure(failure: UnitFailure): Promise<void>;
  /** Removes `pages` page files (and one more: a page staged just before a crash), the checkpoint and the failure record. */
  clear(pages: number): Promise<void>;
}

const json = { contentType: 'application/json' };
/** Staged pages deleted at once when a complete unit's staging is cleared. */
const CLEAR_CONCURRENCY = 8;
/** Staging needs to survive the process, not a power loss (see `WriteOptions.durable`). */
const staged = { ...json, durable: false };

/**
 * A small JSON document of the destination, or undefined when it is absent or unreadable (a
 * half-written or foreign file reads as absent: the unit is then redone, never misread).
 */
export async function readJsonObject<T>(destination: Pick<Destination, 'get'>, key: string): Promise<T | undefined> {
  const bytes = await destination.get(key);
  if (bytes === undefined) return undefined;
  try {
    return parseJson(Buffer.from(bytes).toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

export function unitStaging(destination: Destination, unit: Unit): UnitStaging {
  const prefix = stagingPrefix(unit.dataset, unit.day, unit.projectId);
  const pageKey = (index: number) => `${prefix}page-${String(index).padStart(6, '0')}.json`;
  const checkpointKey = `${prefix}checkpoint.json`;
  const failureKey = `${prefix}failure.json`;

  const readJson = <T>(key: string): Promise<T | undefined> => readJsonObject<T>(destination, key);

  return {
    prefix,

    async readCheckpoint() {
      const checkpoint = await readJson<Checkpoint>(checkpointKey);
      if (checkpoint?.version !== CHECKPOINT_VERSION) return undefined;
      // The state as one of the dataset's kind (a checkpoint of an earlier version has no kind).
      const state = readPagerState(DATASET_CATALOG[unit.dataset].paging, checkpoint.state);
      return state ? { ...checkpoint, state } : undefined;
    },

    // Written while the next page is on its way (unit.ts): through the thread pool.
    writeCheckpoint: (checkpoint) => destination.put(checkpointKey, JSON.stringify(checkpoint), { ...staged, overlapped: true }),

    // A page keeps the exact digits of a large unknown integer (lossless-json.ts).
    writePage: (index, page) => destination.put(pageKey(index), stringifyJson(page), staged),

    async readPage(index) {
      const page = await readJson<unknown>(pageKey(index));
      if (page === undefined) {
        throw new DestinationError(`staged page ${pageKey(index)} is missing or unreadable: the unit starts again`);
      }
      return page;
    },

    readFailure: () => readJson<UnitFailure>(failureKey),

    writeFailure: (failure) => destination.put(failureKey, JSON.stringify(failure), json),

    async clear(pages) {
      // The checkpoint first: a clear cut short (a kill, a failed delete) then leaves page
      // files nobody reads, never a checkpoint that outlives its unit.
      await destination.delete(checkpointKey);
      await destination.delete(failureKey);
      // The pages several at a time: a unit of many pages is committed before it is cleared.
      const indexes = Array.from({ length: pages + 1 }, (_, index) => index);
      await eachAtOnce(indexes, CLEAR_CONCURRENCY, (index) => destination.delete(pageKey(index)));
    },
  };
}
