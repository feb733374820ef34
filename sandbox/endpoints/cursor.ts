/**
 * Cursor paging of the searches, feedback and assistant endpoints: cursor formats, page
 * assembly and the cursor fault kinds.
 *
 * A cursor carries the position of the next row in the window's row sequence (before any
 * filter), a nonce (so the sandbox can hand out a new cursor string for the same position)
 * and a 48-bit check over (seed, dataset, project, window, filters, position, nonce). A
 * cursor of another dataset, project, window or filter set, or an edited one, fails the check
 * and gets a 400. Cursors are stateless: they survive a sandbox restart with the same seed,
 * as a resumed export needs, and never expire.
 */
import * as v from 'valibot';
import { hashString, mix } from '../generators/hash.js';
import type { FaultRule } from '../server/faults.js';
import type { Answer } from '../server/http.js';
import { badRequest, type PreparedRequest } from './endpoint.js';
import { limitParam, type Parsed } from './query.js';

/** What every cursor route takes: `limit` (1–`max`, `fallback` when absent) and an optional `cursor`. */
export function cursorFields(max: number, fallback: number) {
  return { limit: limitParam(max, fallback), cursor: v.optional(v.string()) };
}

/** What a cursor is valid for. */
export interface CursorScope {
  readonly seed: number;
  readonly dataset: string;
  readonly projectId: string;
  /** The window's UTC days, oldest first. */
  readonly days: readonly string[];
  /** The filters, normalised (e.g. `source=…;status=…`); '' when none. */
  readonly filter: string;
}

/** Where a cursor points. */
export interface CursorPoint {
  /** Index of the next row in the window's unfiltered row sequence. */
  readonly position: number;
  /** 0–65535; varies the string of a cursor to the same position. */
  readonly nonce: number;
}

export interface CursorCodec {
  encode(scope: CursorScope, point: CursorPoint): string;
  /** The point, or undefined when `text` is not a cursor of this scope. */
  decode(scope: CursorScope, text: string): CursorPoint | undefined;
}

const MAX_POSITION = 0xffff_ffff;
const MAX_NONCE = 0xffff;

function check(scope: CursorScope, point: CursorPoint): { high: number; low: number } {
  const scopeKey = hashString(`${scope.seed}|${scope.dataset}|${scope.projectId}|${scope.days.join(',')}|${scope.filter}`);
  const high = mix(mix(scopeKey, point.position), point.nonce);
  return { high, low: mix(high, 0x51ed) & 0xffff };
}

/** Searches and feedback: an opaque base64url string of 19 characters. */
export const opaqueCursor: CursorCodec = {
  encode(scope, point) {
    const bytes = Buffer.alloc(14);
    const { high, low } = check(scope, point);
    bytes.writeUInt8(1, 0);
    bytes.writeUIntBE(point.position, 1, 5);
    bytes.writeUInt16BE(point.nonce, 6);
    bytes.writeUInt32BE(high, 8);
    bytes.writeUInt16BE(low, 12);
    return bytes.toString('base64url');
  },
  decode(scope, text) {
    if (!/^[A-Za-z0-9_-]{19}$/.test(text)) return undefined;
    const bytes = Buffer.from(text, 'base64url');
    if (bytes.length !== 14 || bytes.toString('base64url') !== text || bytes.readUInt8(0) !== 1) return undefined;
    const point = { position: bytes.readUIntBE(1, 5), nonce: bytes.readUInt16BE(6) };
    const { high, low } = check(scope, point);
    return bytes.readUInt32BE(8) === high && bytes.readUInt16BE(12) === low ? point : undefined;
  },
};

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_PATTERN = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/;

/**
 * Assistant: a ULID (26 Crockford base32 characters, case-insensitive). Its 48-bit time is
 * the window's first midnight plus the nonce (ms); its 80 random bits hold the position and
 * the check.
 */
export const ulidCursor: CursorCodec = {
  encode(scope, point) {
    const { high, low } = check(scope, point);
    const time = BigInt(windowStart(scope) + point.nonce);
    let value = (time << 80n) | (BigInt(point.position) << 48n) | (BigInt(high) << 16n) | BigInt(low);
    let text = '';
    for (let i = 0; i < 26; i++) {
      text = CROCKFORD[Number(value & 31n)] + text;
      value >>= 5n;
    }
    return text;
  },
  decode(scope, input) {
    const text = input.toUpperCase();
    if (!ULID_PATTERN.test(text)) return undefined;
    let value = 0n;
    for (const char of text) value = (value << 5n) | BigInt(CROCKFORD.indexOf(char));
    const nonce = Number(value >> 80n) - windowStart(scope);
    if (nonce < 0 || nonce > MAX_NONCE) return undefined;
    const point = { position: Number((value >> 48n) & 0xffff_ffffn), nonce };
    const { high, low } = check(scope, point);
    return Number((value >> 16n) & 0xffff_ffffn) === high && Number(value & 0xffffn) === low ? point : undefined;
  },
};

function windowStart(scope: CursorScope): number {
  return Date.parse(`${scope.days[0] ?? '1970-01-01'}T00:00:00Z`);
}

/** The rows of a window, lazily; `matches` applies the request's filters. */
export interface RowSource<Row> {
  readonly count: number;
  row(index: number): Row;
  matches?(row: Row): boolean;
}

/** One page: up to `limit` matching rows from `position`, and where the next match is (null: none). */
export function collectPage<Row>(source: RowSource<Row>, position: number, limit: number): { rows: Row[]; next: number | null; scanned: number } {
  const rows: Row[] = [];
  let index = position;
  for (; index < source.count && rows.length < limit; index++) {
    const row = source.row(index);
    if (!source.matches || source.matches(row)) rows.push(row);
  }
  const scanned = index;
  if (!source.matches) return { rows, next: index < source.count ? index : null, scanned };
  for (; index < source.count; index++) if (source.matches(source.row(index))) return { rows, next: index, scanned };
  return { rows, next: null, scanned };
}

/** How an endpoint turns a page into its response body. */
export type RenderPage<Row> = (rows: readonly Row[], nextCursor: string | null, hasMore: boolean) => unknown;

/**
 * A prepared cursor request: decodes the cursor (400 when invalid or foreign), answers the
 * page, and answers the cursor fault kinds, `empty-page-has-more` (when the body has a
 * `hasMore`) and `wrong-types` (through `breakTypes`).
 */
export function prepareCursorRequest<Row>(options: {
  readonly codec: CursorCodec;
  readonly scope: CursorScope;
  readonly cursor: string | undefined;
  readonly limit: number;
  readonly source: RowSource<Row>;
  readonly render: RenderPage<Row>;
  readonly breakTypes: (body: unknown) => unknown;
}): Parsed<PreparedRequest> {
  const { codec, scope, cursor, limit, source, render } = options;
  const start = cursor === undefined ? { position: 0, nonce: 0 } : codec.decode(scope, cursor);
  if (!start) return invalidCursor();
  const encode = (position: number, nonce = 0): string => codec.encode(scope, { position: Math.min(position, MAX_POSITION), nonce });
  const page = () => collectPage(source, start.position, limit);
  return {
    ok: true,
    value: {
      hasCursor: cursor !== undefined,
      page() {
        const { rows, next } = page();
        return render(rows, next === null ? null : encode(next), next !== null);
      },
      fault(rule: FaultRule, body: unknown): Answer | undefined {
        switch (rule.kind) {
          case 'repeat-cursor':
            return { status: 200, body: render(page().rows, cursor ?? encode(start.position), true) };
          case 'invalid-cursor': {
            const { body: invalid } = badRequest(INVALID_CURSOR.error, INVALID_CURSOR.messages);
            return { status: 400, body: invalid };
          }
          case 'empty-page-cursor':
            return { status: 200, body: render([], encode(start.position, (start.nonce + 1) % (MAX_NONCE + 1)), true) };
          case 'endless-cursor': {
            const { rows, next, scanned } = page();
            return { status: 200, body: render(rows, encode(next ?? Math.max(scanned, start.position + limit)), true) };
          }
          case 'empty-page-has-more':
            return { status: 200, body: render([], null, true) };
          case 'wrong-types':
            return { status: 200, body: options.breakTypes(body) };
          default:
            return undefined;
        }
      },
    },
  };
}

const INVALID_CURSOR = {
  error: 'Invalid cursor',
  messages: ['cursor is not valid for this endpoint, project, date range and filters: start again without a cursor'],
} as const;

/** The 400 for a cursor that is malformed, edited, or from another query. */
export function invalidCursor(): Parsed<never> {
  return { ok: false, ...INVALID_CURSOR };
}
