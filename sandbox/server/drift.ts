/**
 * Drift mode: the service as it may look after its next change. Every analytics answer and
 * the agent job gain fields this version of the exporter does not know, and the enum fields
 * gain values it does not know — so users (`sandbox --drift`) and tests (the `drift` fault
 * kind, or `SandboxOptions.drift`) can see that nothing is lost and the drift is reported.
 *
 * What changes, per route (deterministic: a function of the normal answer):
 * - visitors: top-level `sampled: false`; `totals` and every row `bots` (= `ai % 3`);
 * - views: `totals` and every row `sessions: {human, ai}` (a nested object);
 * - searches: top-level `engine: "v2"`; every row `refinements: ["<searchQuery> example"]`;
 * - feedback: every row `sentiment` (`"negative"` when `helpful` is false, else `"neutral"`);
 *   `source` `thumbs_only` is sent as `widget`, `status` `dismissed` as `archived`;
 * - feedback by page: every row `widget: 0`;
 * - assistant: every turn `searches: [{query, results}]` (the query and its sources count),
 *   every cited source `score` (= `1 / (its index + 1)`, 3 decimals) — a new field inside an
 *   array, which the export keeps in `sources_json` and names `sources[].score`; a turn
 *   without `queryCategory` has `responseType: "tool_call"`;
 * - caller stats: a new caller kind, `mcp: 2` (`total` unchanged);
 * - agent job (GET and POST answers): `usage: {credits: 1}`, and `active` is sent as `queued`.
 */
import type { ApiRoute } from './routes.js';

type Json = Record<string, unknown>;

const rowsKey: Partial<Record<ApiRoute, string>> = {
  visitors: 'visitors',
  views: 'views',
  searches: 'searches',
  feedback: 'feedback',
  'feedback-by-page': 'feedback',
  assistant: 'conversations',
};

/** What one row of `route` becomes in drift mode. */
export function driftRow(route: ApiRoute, row: Json): Json {
  switch (route) {
    case 'visitors':
      return { ...row, bots: (row.ai as number) % 3 };
    case 'views':
      return { ...row, sessions: { human: row.human, ai: row.ai } };
    case 'searches':
      return { ...row, refinements: [`${String(row.searchQuery)} example`] };
    case 'feedback':
      return {
        ...row,
        ...(row.source === 'thumbs_only' ? { source: 'widget' } : {}),
        ...(row.status === 'dismissed' ? { status: 'archived' } : {}),
        sentiment: row.helpful === false ? 'negative' : 'neutral',
      };
    case 'feedback-by-page':
      return { ...row, widget: 0 };
    case 'assistant':
      return {
        ...row,
        ...(row.queryCategory === null ? { responseType: 'tool_call' } : {}),
        searches: [{ query: row.query, results: Array.isArray(row.sources) ? row.sources.length : 0 }],
        ...(Array.isArray(row.sources) ? { sources: (row.sources as Json[]).map((source, index) => ({ ...source, score: driftScore(index) })) } : {}),
      };
    default:
      return row;
  }
}

/** The `score` drift mode gives the source at `index` of a turn's `sources`. */
export function driftScore(index: number): number {
  return Math.round(1000 / (index + 1)) / 1000;
}

/** The `totals` object of visitors and views in drift mode. */
export function driftTotals(route: ApiRoute, totals: Json): Json {
  if (route === 'visitors') return { ...totals, bots: (totals.ai as number) % 3 };
  if (route === 'views') return { ...totals, sessions: { human: totals.human, ai: totals.ai } };
  return totals;
}

/** The top-level fields drift mode adds to an answer of `route`. */
export function driftTopLevel(route: ApiRoute): Json {
  if (route === 'visitors') return { sampled: false };
  if (route === 'searches') return { engine: 'v2' };
  return {};
}

/** A normal 200 body of `route` as drift mode sends it; other bodies (errors) unchanged. */
export function driftBody(route: ApiRoute, body: unknown): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
  const page = body as Json;
  if (route === 'caller-stats') return { ...page, mcp: 2 };
  if (route === 'agent-get' || route === 'agent-message') {
    if (typeof page.id !== 'string') return body;
    return { ...page, status: page.status === 'active' ? 'queued' : page.status, usage: { credits: 1 } };
  }
  const key = rowsKey[route];
  if (key === undefined || !Array.isArray(page[key])) return body;
  return {
    ...page,
    ...(typeof page.totals === 'object' && page.totals !== null ? { totals: driftTotals(route, page.totals as Json) } : {}),
    [key]: (page[key] as Json[]).map((row) => driftRow(route, row)),
    ...driftTopLevel(route),
  };
}
