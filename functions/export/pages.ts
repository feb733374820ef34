/**
 * Where a unit's pages come from, as async generators its export (`unit.ts`) consumes:
 *
 * - `stagedPages`: the pages earlier runs staged, read back and replayed through the pager's
 *   stop rules — which rebuilds its duplicate detection — up to where the checkpoint stands;
 * - `pagesOf`: the pages fetched now, from there on, each checked by the pager before it is
 *   yielded. The next request leaves when the consumer asks for the next page, so the consumer
 *   stages a page before the next one is requested (docs/design.md §3.1).
 *
 * Nothing here stages a page, writes a checkpoint or a row: the consumer does, page by page.
 * A checkpoint that no longer fits the day's data ends a generator with `RestartUnit`.
 */
import { API_CLIENT_DEFAULTS, type AnalyticsApi } from '../shared/api/index.js';
import type { CallOptions } from '../shared/api-types.js';
import { dayWindow } from '../shared/dates.js';
import { ApiError, DestinationError, ResponseTooLargeError } from '../shared/errors.js';
import { PaginationError } from './errors.js';
import type { AppLogger } from '../shared/logger.js';
import type { DatasetDef, ReadPage, ReadScope } from './datasets.js';
import { positionText, samePosition, sameTotals, type Pager, type PagerState } from './paging.js';
import type { Checkpoint, UnitStaging } from './staging.js';
import { unitLabel, type Unit } from './unit-id.js';

/** The checkpoint no longer fits the day's data: the unit starts over (caught by `exportUnit`). */
export class RestartUnit extends Error {}

/** A page an earlier run staged, read again by its dataset's reader and accepted again by the pager. */
export interface StagedPage {
  readonly page: ReadPage;
  /** Its position: pages staged before it. */
  readonly index: number;
}

/**
 * The pages `checkpoint` counts, read back from the staging by the dataset's reader (`replay`,
 * each with the scope `scopeOf` its index: its rows keep the time of the run that fetched it)
 * and replayed through `pager` (which is then where the checkpoint stands). A page that cannot
 * be read, or a checkpoint whose position does not follow from its pages, restarts the unit.
 */
export async function* stagedPages(
  checkpoint: Checkpoint,
  staging: Pick<UnitStaging, 'readPage'>,
  pager: Pager,
  def: Pick<DatasetDef, 'replay'>,
  scopeOf: (index: number) => ReadScope,
): AsyncGenerator<StagedPage, void, undefined> {
  let state: PagerState = pager.initial;
  for (let index = 0; index < checkpoint.state.pages; index++) {
    let body: unknown;
    try {
      body = await staging.readPage(index);
    } catch (error) {
      if (error instanceof DestinationError) throw new RestartUnit(error.message);
      throw error;
    }
    const page = def.replay(body, scopeOf(index));
    state = pager.accept(state, page.view).state;
    yield { page, index };
  }
  // The position the staged pages lead to must be the checkpoint's: a checkpoint that points
  // elsewhere (written by another version, edited, half of a crash) would skip or repeat rows
  // silently.
  if (!samePosition(state, checkpoint.state)) {
    throw new RestartUnit(
      `the checkpoint's position (${positionText(checkpoint.state)}) does not follow from its ${checkpoint.state.pages} staged page(s) (${positionText(state)})`,
    );
  }
}

/** A page fetched now, read by its dataset's reader and accepted by the pager. */
export interface FetchedPage {
  readonly page: ReadPage;
  /** Its position: pages staged before it. */
  readonly index: number;
  /** Paging after it (what the checkpoint that counts it holds). */
  readonly state: PagerState;
  /** It is the last page: the unit can be committed once it is staged. */
  readonly done: boolean;
}

/** What fetching the pages of a unit takes. */
export interface PageSource {
  readonly api: AnalyticsApi;
  readonly def: DatasetDef;
  readonly unit: Unit;
  /** The pager `stagedPages` replayed the staged pages through, if any. */
  readonly pager: Pager;
  /** The unit's `limit`; undefined for an endpoint without one. */
  readonly limit: number | undefined;
  /** Of every request. Its gentle `stop` also ends the paging once the page on its way is yielded. */
  readonly call: CallOptions;
  readonly logger?: AppLogger | undefined;
  /** The consumer gave up on the unit (it failed): a page still on its way is dropped unseen. */
  readonly abandoned: AbortSignal;
  /**
   * What the reader reads each answer with: its rows' context and the personal-data policy,
   * applied as soon as the answer is parsed (privacy.ts) — what the pager, the staging and the
   * rows see is the governed page, never the raw one.
   */
  readonly scope: ReadScope;
}

/**
 * The pages of a unit fetched now, from where `checkpoint` stands (from the first page without
 * one), until the pager says the last one arrived. Each request is sent when the consumer asks
 * for its page (`next()`): the consumer stages the page it holds first, then asks, and finishes
 * with that page (checkpoint, rows, lease) while the next one is on its way. Asked after a
 * gentle stop, it throws the stop's reason instead of sending a request.
 *
 * An answer too large to read is asked for again with half the limit, down to 1. A resumed unit
 * whose first request is refused (400: an expired cursor) or whose totals changed restarts.
 */
export async function* pagesOf(source: PageSource, checkpoint: Checkpoint | undefined): AsyncGenerator<FetchedPage, void, undefined> {
  const { api, def, unit, pager, limit, call, logger } = source;
  const label = unitLabel(unit);
  const window = dayWindow(unit.day);
  const fetchPage = (state: PagerState): Promise<ReadPage> =>
    api.getAnalytics(
      def.endpoint,
      unit.projectId,
      { dateFrom: window.from, dateTo: window.to, ...pager.params(state) },
      (body) => def.read(body, source.scope),
      call,
    );

  // A checkpoint that holds every page (a commit that failed) needs no request at all.
  if (checkpoint?.complete) return;
  let state: PagerState = checkpoint?.state ?? pager.initial;
  const resumedTotals = checkpoint?.state.totals;
  let pending = fetchPage(state);
  let first = true;
  /** One warning per unit is enough. */
  let oddityNoted = false;
  for (;;) {
    let page: ReadPage;
    try {
      page = await pending;
    } catch (error) {
      // The consumer failed while this page was on its way: it is dropped unseen, whatever it
      // is (the next run fetches it).
      if (source.abandoned.aborted) return;
      // An answer too large to read: ask for the same rows in smaller pages (half the
      // limit, down to 1) rather than fail the day on every run.
      if (error instanceof ResponseTooLargeError) {
        const current = state.pageLimit ?? limit;
        if (current === undefined || current <= 1) throw tooLarge(error, label, current);
        state = { ...state, pageLimit: Math.ceil(current / 2) };
        logger?.warn('an answer was too large to read: asking again with a smaller limit', {
          unit: label,
          page: state.pages + 1,
          limit: state.pageLimit,
        });
        pending = fetchPage(state);
        continue;
      }
      // A cursor may expire between runs: a 400 on the first request of a resumed unit
      // restarts it rather than failing the day.
      if (first && checkpoint && error instanceof ApiError && error.status === 400) {
        throw new RestartUnit(`the API refused the checkpoint's position (${error.message})`);
      }
      throw error;
    }
    if (source.abandoned.aborted) return;
    const view = page.view;
    if (first && resumedTotals && view.totals && !sameTotals(resumedTotals, view.totals)) {
      throw new RestartUnit("the day's totals changed since the checkpoint was written");
    }
    first = false;
    const accepted = pager.accept(state, view);
    const oddity = oddityNoted ? undefined : page.oddity;
    if (oddity !== undefined) {
      oddityNoted = true;
      logger?.warn('odd answer from the API (kept)', { unit: label, page: state.pages + 1, detail: oddity });
    }
    yield { page, index: state.pages, state: accepted.state, done: accepted.done };
    if (accepted.done) return;
    // A gentle stop: the page just yielded is staged, no further one is asked for.
    if (call.stop?.aborted) throw call.stop.reason;
    state = accepted.state;
    pending = fetchPage(state);
  }
}

/** The failure of a unit whose answer is too large even one row at a time (or unpaged). */
function tooLarge(error: Error, label: string, limit: number | undefined): PaginationError {
  const what = limit === undefined ? 'the answer (this endpoint has no limit to lower)' : 'a single row';
  return new PaginationError(
    `${label}: ${what} is larger than the ${API_CLIENT_DEFAULTS.maxResponseBytes / 1_048_576} MiB the exporter reads (${error.message}); this day cannot be exported as it is — report it to Mintlify's support with the day and project`,
    { cause: error },
  );
}
