/**
 * Paging as a strategy, so one export loop serves every dataset (the way dlt's REST client
 * separates its paginators from the loop): the loop asks a `Pager` for the parameters of the
 * next request and hands it each page; the pager applies the stop rules and says what comes
 * next. Its position is a plain JSON `PagerState` — one shape per kind, tagged `kind` — so a
 * unit can stop after any page, be checkpointed, and resume in another run without fetching a
 * page twice.
 *
 * Three kinds:
 * - **offset** (`visitors`, `views`): `offset += limit` while `hasMore`. Fails on a page with
 *   more rows than `limit`, an empty page that says `hasMore`, a page that repeats the
 *   previous one, site totals that change between pages, a row key (path) seen twice — with
 *   offsets a duplicate means rows shifted, so another row may have been skipped — and a
 *   passed page cap. Never truncates.
 * - **cursor** (`searches`, `feedback`, `assistant`): follow `nextCursor`. Ends on
 *   `nextCursor: null` (searches has no `hasMore`) or `hasMore: false` with no cursor. Fails
 *   on a repeated cursor, a passed page cap, totals that change, and an answer that
 *   contradicts itself (`hasMore: true` without a cursor, `hasMore: false` with one). An
 *   empty page that still carries a cursor is followed (it counts against the cap), but
 *   not {@link MAX_EMPTY_PAGES_IN_ROW} of them in a row: that is a loop with fresh cursors.
 * - **single** (`feedback_by_page`, `caller_stats`): one request. A `hasMore` there means
 *   rows were left out that no request can fetch: reported as truncated, never hidden.
 */
import type { PagingKind } from '../warehouse/catalog.js';
import { PaginationError } from './errors.js';
import { PathSet } from './path-set.js';

/** What the pager needs to know of a page, extracted by the dataset definition. */
export interface PageView {
  /** Number of rows on the page. */
  readonly rowCount: number;
  /** Offset paging: `hasMore`. Cursor paging: `hasMore` when the endpoint sends one, else null. */
  readonly hasMore: boolean | null;
  /** Cursor paging: `nextCursor`. */
  readonly nextCursor?: string | null;
  /** Site-wide figures every page repeats (totals); must not change between pages. */
  readonly totals?: Readonly<Record<string, number>>;
  /** Offset paging: the key of each row, for duplicate detection (path). */
  readonly rowKeys?: () => Iterable<string>;
  /** Cheap identity of the page's rows, to detect an API that ignores `offset`. */
  readonly signature?: () => string;
}

/** What every kind of paging keeps. */
interface StateBase {
  /** Pages already accepted. */
  readonly pages: number;
  /** Totals of the first page. */
  readonly totals?: Readonly<Record<string, number>>;
  /**
   * The `limit` of the requests from here on, when an answer was too large to read and the
   * export asked again for less (below the unit's `limit`). Offsets then advance by it.
   */
  readonly pageLimit?: number;
}

/** Offset paging: where the next request starts, and what the previous page looked like. */
export interface OffsetState extends StateBase {
  readonly kind: 'offset';
  /** Offset of the next request. */
  readonly offset: number;
  /** Signature of the previous page. */
  readonly signature?: string;
}

/** Cursor paging: the next cursor and the ones already followed. */
export interface CursorState extends StateBase {
  readonly kind: 'cursor';
  /** Cursor of the next request (absent for the first page). */
  readonly cursor?: string;
  /** Cursors already followed, to detect a loop. */
  readonly cursors?: readonly string[];
  /** Empty pages in a row that still carried a cursor. */
  readonly emptyInRow?: number;
}

/** One request for the day. */
export interface SingleState extends StateBase {
  readonly kind: 'single';
  /** The API said rows were left out. */
  readonly truncated?: boolean;
}

/** Where a unit's paging stands, by its kind; JSON, stored in its checkpoint. */
export type PagerState = OffsetState | CursorState | SingleState;

/** Where paging of `kind` starts. */
export function initialState(kind: PagingKind): PagerState {
  return kind === 'offset' ? { kind, pages: 0, offset: 0 } : { kind, pages: 0 };
}

/**
 * A stored state read back as a state of `kind`, or undefined when it is not one (another kind,
 * or not a state at all). A checkpoint written before states carried their kind (no `kind`
 * field, `offset` absent before the first offset page) is read as `kind`: the dataset's paging
 * has not changed, so its fields are the ones that kind keeps.
 */
export function readPagerState(kind: PagingKind, stored: unknown): PagerState | undefined {
  if (typeof stored !== 'object' || stored === null) return undefined;
  const fields = stored as { readonly kind?: unknown; readonly pages?: unknown; readonly offset?: unknown };
  if (fields.kind !== undefined && fields.kind !== kind) return undefined;
  if (typeof fields.pages !== 'number' || !Number.isSafeInteger(fields.pages) || fields.pages < 0) return undefined;
  if (kind === 'offset') {
    const offset = fields.offset ?? 0;
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) return undefined;
    return { ...(stored as OffsetState), kind, offset };
  }
  return { ...(stored as CursorState | SingleState), kind } as PagerState;
}

/** Whether two states stand at the same place: the next request asks for the same offset or cursor. */
export function samePosition(a: PagerState, b: PagerState): boolean {
  return a.kind === b.kind && positionOf(a) === positionOf(b);
}

/** `offset 500`, `cursor "abc"` or `2 page(s)`, for messages. */
export function positionText(state: PagerState): string {
  if (state.kind === 'offset') return `offset ${state.offset}`;
  if (state.kind === 'cursor' && state.cursor !== undefined) return `cursor ${JSON.stringify(state.cursor.slice(0, 40))}`;
  return `${state.pages} page(s)`;
}

function positionOf(state: PagerState): string | number | undefined {
  return state.kind === 'offset' ? state.offset : state.kind === 'cursor' ? state.cursor : undefined;
}

export interface PagerOptions {
  /** Rows asked for per request; undefined for an endpoint without `limit` (caller stats). */
  readonly limit?: number;
  /** Hard page cap; passing it fails the unit. */
  readonly maxPages: number;
  /** For messages: `<dataset> <project> <day>`. */
  readonly where: string;
}

export interface Pager {
  readonly kind: PagingKind;
  /** Where this pager starts: {@link initialState} of its kind. */
  readonly initial: PagerState;
  /** Paging parameters of the next request (besides the window). */
  params(state: PagerState): Readonly<Record<string, string | number>>;
  /**
   * Checks `page` (fetched with `params(state)`) against the stop rules and returns the state
   * after it, with `done` when it was the last page. Throws `PaginationError` on a broken rule.
   */
  accept(state: PagerState, page: PageView): { readonly state: PagerState; readonly done: boolean };
}

/** The pager of `kind`. Keeps the duplicate-key set in memory: replay staged pages through
 * `accept` to rebuild it when a unit resumes. */
export function createPager(kind: PagingKind, options: PagerOptions): Pager {
  switch (kind) {
    case 'offset':
      return offsetPager(options);
    case 'cursor':
      return cursorPager(options);
    case 'single':
      return singlePager(options);
  }
}

/** `state` as a state of `kind`; another kind is a programming error (a checkpoint is read by its dataset's kind). */
function expectKind<K extends PagerState['kind']>(state: PagerState, kind: K, where: string): Extract<PagerState, { kind: K }> {
  if (state.kind !== kind) throw new Error(`${where}: a ${state.kind} paging state was handed to the ${kind} pager`);
  return state as Extract<PagerState, { kind: K }>;
}

/** The `limit` the request of `state` was sent with. */
function limitOf(state: PagerState, options: PagerOptions): number | undefined {
  return state.pageLimit ?? options.limit;
}

/** `pageLimit` carried into the next state, when lowered. */
const keepLimit = (state: PagerState) => (state.pageLimit !== undefined ? { pageLimit: state.pageLimit } : {});

function checkRowCount(page: PageView, options: PagerOptions, at: string, limit = options.limit): void {
  if (limit !== undefined && page.rowCount > limit) {
    throw new PaginationError(`${options.where}: the page ${at} has ${page.rowCount} rows, more than limit=${limit}; the API did not honour the limit`);
  }
}

function checkTotals(state: PagerState, page: PageView, options: PagerOptions, at: string): void {
  if (!state.totals || !page.totals) return;
  if (!sameTotals(state.totals, page.totals)) {
    throw new PaginationError(
      `${options.where}: the totals changed between pages (first page: ${totalsText(state.totals)}, page ${at}: ${totalsText(page.totals)}); the day's data changed while paging — it is exported again from the start`,
    );
  }
}

function checkCap(state: PagerState, options: PagerOptions): void {
  if (state.pages + 1 >= options.maxPages) {
    throw new PaginationError(
      `${options.where}: still more pages after ${options.maxPages} (EXPORT_MAX_PAGES); raise the cap if the day really has more than ${options.maxPages * (options.limit ?? 1)} rows`,
    );
  }
}

function offsetPager(options: PagerOptions): Pager {
  const { where } = options;
  const limit = requireLimit(options);
  const seen = new PathSet();
  return {
    kind: 'offset',
    initial: initialState('offset'),
    params: (state) => ({ limit: state.pageLimit ?? limit, offset: expectKind(state, 'offset', where).offset }),
    accept(given, page) {
      const state = expectKind(given, 'offset', where);
      const offset = state.offset;
      const at = `at offset ${offset}`;
      const step = state.pageLimit ?? limit;
      checkRowCount(page, options, at, step);
      if (page.hasMore === true && page.rowCount === 0) {
        throw new PaginationError(
          `${where}: the page at offset ${offset} is empty but says hasMore=true; refusing to loop or truncate — it is tried again later`,
        );
      }
      const signature = page.signature?.();
      if (state.pages > 0 && signature !== undefined && signature === state.signature) {
        throw new PaginationError(`${where}: the page at offset ${offset} repeats the previous page; the API ignored the offset`);
      }
      checkTotals(state, page, options, at);
      for (const key of page.rowKeys?.() ?? []) {
        if (!seen.add(key)) {
          throw new PaginationError(
            `${where}: ${clip(JSON.stringify(key))} appeared again on the page at offset ${offset}; rows shifted between pages, so one may be missing — the day is exported again`,
          );
        }
      }
      const next: OffsetState = {
        kind: 'offset',
        pages: state.pages + 1,
        offset: offset + step,
        ...keepLimit(state),
        ...(signature !== undefined ? { signature } : {}),
        ...((state.totals ?? page.totals) ? { totals: state.totals ?? page.totals } : {}),
      };
      if (page.hasMore !== true) return { state: next, done: true };
      checkCap(state, options);
      return { state: next, done: false };
    },
  };
}

/** Cursors kept in a checkpoint to detect loops; a longer loop still ends at the page cap. */
const MAX_REMEMBERED_CURSORS = 1_000;

/**
 * Empty pages in a row that may still carry a cursor. One or two happen (a page of rows all
 * filtered out on the service's side); an endless run of fresh cursors on empty pages would
 * otherwise be followed up to EXPORT_MAX_PAGES — days of budget for one unit.
 */
export const MAX_EMPTY_PAGES_IN_ROW = 3;

function cursorPager(options: PagerOptions): Pager {
  const { where } = options;
  const limit = requireLimit(options);
  return {
    kind: 'cursor',
    initial: initialState('cursor'),
    params(given) {
      const state = expectKind(given, 'cursor', where);
      return state.cursor === undefined ? { limit: state.pageLimit ?? limit } : { limit: state.pageLimit ?? limit, cursor: state.cursor };
    },
    accept(given, page) {
      const state = expectKind(given, 'cursor', where);
      const at = `${state.pages + 1}`;
      checkRowCount(page, options, at, limitOf(state, options));
      checkTotals(state, page, options, at);
      const cursor = page.nextCursor ?? null;
      if (page.hasMore === true && cursor === null) {
        throw new PaginationError(`${where}: page ${at} says hasMore=true but has no nextCursor; the answer contradicts itself`);
      }
      if (page.hasMore === false && cursor !== null) {
        throw new PaginationError(`${where}: page ${at} says hasMore=false but carries a nextCursor; the answer contradicts itself`);
      }
      const totals = state.totals ?? page.totals;
      const base: CursorState = { kind: 'cursor', pages: state.pages + 1, ...(totals ? { totals } : {}), ...keepLimit(state) };
      if (cursor === null) return { state: base, done: true };
      const followed = state.cursors ?? [];
      if (cursor === state.cursor || followed.includes(cursor)) {
        throw new PaginationError(`${where}: page ${at} returned a cursor that was already followed; the API is looping`);
      }
      const emptyInRow = page.rowCount === 0 ? (state.emptyInRow ?? 0) + 1 : 0;
      if (emptyInRow >= MAX_EMPTY_PAGES_IN_ROW) {
        throw new PaginationError(
          `${where}: ${emptyInRow} empty pages in a row still carry a new cursor; the API is not getting anywhere — the unit fails rather than follow it up to EXPORT_MAX_PAGES, and is tried again later`,
        );
      }
      checkCap(state, options);
      const cursors = [...followed, ...(state.cursor === undefined ? [] : [state.cursor])].slice(-MAX_REMEMBERED_CURSORS);
      return { state: { ...base, cursor, cursors, ...(emptyInRow > 0 ? { emptyInRow } : {}) }, done: false };
    },
  };
}

function singlePager(options: PagerOptions): Pager {
  return {
    kind: 'single',
    initial: initialState('single'),
    params: (state) => (limitOf(state, options) === undefined ? {} : { limit: limitOf(state, options) as number }),
    accept(given, page) {
      const state = expectKind(given, 'single', options.where);
      checkRowCount(page, options, '1', limitOf(state, options));
      return { state: { kind: 'single', pages: state.pages + 1, ...(page.hasMore === true ? { truncated: true } : {}) }, done: true };
    },
  };
}

function requireLimit(options: PagerOptions): number {
  if (options.limit === undefined) throw new Error(`${options.where}: paged endpoints need a limit`);
  return options.limit;
}

/** Whether two totals objects hold the same figures. */
export function sameTotals(a: Readonly<Record<string, number>>, b: Readonly<Record<string, number>>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => a[key] === b[key]);
}

function totalsText(totals: Readonly<Record<string, number>>): string {
  return Object.entries(totals)
    .map(([key, value]) => `${key}=${value}`)
    .join(' ');
}

/** Keys are data (paths) and may be long: keep messages one short line. */
function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
