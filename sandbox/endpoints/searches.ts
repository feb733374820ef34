/**
 * `GET /v1/analytics/{projectId}/searches`: `{searches, totalSearches, nextCursor}` — no
 * `hasMore`; the last page has `nextCursor: null`. `limit` 1–100 (default 50), opaque
 * `cursor`. `totalSearches` is the window's search events (the sum of hits over every term,
 * not the number of terms), the same on every page.
 */
import { MAX_MERGED_TERMS, type SearchData, type SearchRow } from '../generators/searches.js';
import { cursorFields, opaqueCursor, prepareCursorRequest } from './cursor.js';
import { windowedEndpoint, type AnalyticsEndpoint } from './endpoint.js';
import { invalidQuery } from './query.js';

/** The response body of one searches page. */
export interface SearchesPageBody {
  searches: SearchRow[];
  totalSearches: number;
  nextCursor: string | null;
}

export function createSearchesEndpoint(data: SearchData, seed: number): AnalyticsEndpoint {
  return windowedEndpoint(cursorFields(100, 50), (projectId, { query: { limit, cursor }, days }) => {
    const count = data.rowCount(projectId, days);
    if (days.length > 1 && count > MAX_MERGED_TERMS) {
      return invalidQuery([`the sandbox merges at most ${MAX_MERGED_TERMS} search terms over several days: ask for one day at a time`]);
    }
    return prepareCursorRequest<SearchRow>({
      codec: opaqueCursor,
      scope: { seed, dataset: 'searches', projectId, days, filter: '' },
      cursor,
      limit,
      source: { count, row: (index) => data.row(projectId, days, index) },
      render: (rows, nextCursor): SearchesPageBody => ({
        searches: [...rows],
        totalSearches: data.totalSearches(projectId, days),
        nextCursor,
      }),
      breakTypes: (body) => {
        const page = body as SearchesPageBody;
        const rows: Record<string, unknown>[] = page.searches.map((row) => ({ ...row }));
        if (rows[0]) rows[0].hits = String(rows[0].hits);
        const last = rows.at(-1);
        if (last) {
          last.ctr = `${Number(last.ctr) * 100}%`;
          last.lastSearchedAt = Date.parse(String(last.lastSearchedAt));
        }
        return { ...page, searches: rows, totalSearches: String(page.totalSearches) };
      },
    });
  });
}
