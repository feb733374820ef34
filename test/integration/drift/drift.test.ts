/**
 * The service evolves (issue 16): every dataset exported against the sandbox's drift mode —
 * new fields on every answer, new enum values — over real HTTP into a local directory, read
 * back with DuckDB. Nothing is lost: values as sent, `unknown_fields` exact (nested values
 * whole), nothing else changed; the drift is named in the manifest, in one warning per
 * dataset (no text value in it), in the run's count. A real type change still fails only its
 * own unit, naming the field.
 *
 * The drift the sandbox adds (sandbox/server/drift.ts) is written out here again, on its own, so a
 * change on either side fails a test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUnits, type RunSummary } from '../../../functions/export/run-units.js';
import type { DatasetName } from '../../../functions/warehouse/catalog.js';
import type { Destination } from '../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { startSandbox, type ProjectSeed, type Sandbox } from '../../../sandbox/index.js';
import { CONTRACT_COLUMNS, expectedTables, withParsedJson } from '../../helpers/expected-rows.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { ALL_DATASETS, tableNames } from '../../helpers/layout.js';
import { readTable, type PlainRow } from '../../helpers/read-back.js';
import { ROUTE_OF } from '../../helpers/request-log.js';
import {
  DATASET_CLIENT,
  exportDeps,
  failureOf,
  manifestOf,
  plannedUnits,
  recordingLogger,
  testSettings,
  type RecordingLogger,
} from '../../helpers/run-deps.js';
import { maskDeep } from '../../../functions/shared/personal-data/index.js';

const API_KEY = 'mint_drift_test_0123456789abcdef';
const DAY = '2026-02-10';
const START = Date.parse('2026-02-11T04:00:00.000Z');
const EXPORTED_AT = new Date(START).toISOString();
const PROJECT = 'proj_drift';
const PROJECTS: ProjectSeed[] = [{ id: PROJECT, paths: 300, exact: true, rows: { views: 260, searches: 120, feedback: 150, assistant: 140 } }];

let sandbox: Sandbox;
let destination: Destination;
let logger: RecordingLogger;
let summary: RunSummary;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY, projects: PROJECTS, drift: true });
  destination = createLocalDestination(await makeTempDir('drift'));
  logger = recordingLogger();
  // Sizes above one page (but assistant's): drift is gathered over several answers.
  summary = await runUnits({
    units: plannedUnits(ALL_DATASETS, [PROJECT], DAY),
    policy: testSettings({ datasets: ALL_DATASETS }),
    deps: exportDeps({ sandbox, destination, start: START, logger, client: { ...DATASET_CLIENT, logger } }),
  });
});

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

type Raw = Record<string, unknown>;

/** What the drift mode sends beyond the normal answer, per table, for the n-th row (raw API row). */
function expectedDrift(dataset: DatasetName): Record<string, { unknown: (raw: Raw) => unknown; change?: (row: PlainRow, raw: Raw) => PlainRow }[]> {
  switch (dataset) {
    case 'visitors':
      return {
        visitors_totals: [{ unknown: (totals) => ({ bots: (totals.ai as number) % 3 }) }],
        visitors_pages: [{ unknown: (row) => ({ bots: (row.ai as number) % 3 }) }],
      };
    case 'views':
      return {
        views_totals: [{ unknown: (totals) => ({ sessions: { human: totals.human, ai: totals.ai } }) }],
        views_pages: [{ unknown: (row) => ({ sessions: { human: row.human, ai: row.ai } }) }],
      };
    case 'searches':
      return {
        searches_totals: [{ unknown: () => null }],
        searches: [{ unknown: (row) => ({ refinements: [`${String(row.searchQuery)} example`] }) }],
      };
    case 'feedback':
      return {
        feedback: [
          {
            unknown: (row) => ({ sentiment: row.helpful === false ? 'negative' : 'neutral' }),
            change: (row, raw) => ({
              ...row,
              source: raw.source === 'thumbs_only' ? 'widget' : row.source,
              status: raw.status === 'dismissed' ? 'archived' : row.status,
            }),
          },
        ],
      };
    case 'feedback_by_page':
      return { feedback_by_page: [{ unknown: () => ({ widget: 0 }) }] };
    case 'assistant':
      return {
        assistant_conversations: [
          {
            unknown: (row) => ({ searches: [{ query: row.query, results: (row.sources as unknown[]).length }] }),
            // A new field inside each cited source is kept in sources_json, as sent.
            change: (row, raw) => ({
              ...row,
              ...(raw.queryCategory === null ? { response_type: 'tool_call' } : {}),
              sources_json: (raw.sources as Raw[]).map((source, index) => ({ ...source, score: Math.round(1000 / (index + 1)) / 1000 })),
            }),
          },
        ],
      };
    case 'caller_stats':
      return { assistant_caller_stats: [{ unknown: () => ({ mcp: 2 }) }] };
  }
}

/** The raw API objects behind each table's rows, in order: the totals object, or the rows. */
function rawRowsOf(dataset: DatasetName, table: string): Raw[] {
  if (dataset === 'visitors' || dataset === 'views') {
    const day = sandbox.data.day(dataset, PROJECT, DAY);
    return (table.endsWith('_totals') ? [day.totals] : day.rows) as unknown as Raw[];
  }
  if (dataset === 'searches') {
    const day = sandbox.data.day('searches', PROJECT, DAY);
    return (table === 'searches_totals' ? [{}] : day.rows) as unknown as Raw[];
  }
  return sandbox.data.rows(dataset, PROJECT, DAY) as unknown as Raw[];
}

const resultOf = (dataset: DatasetName) => summary.units.find((unit) => unit.dataset === dataset);

describe('an export against an API that changed', () => {
  it('completes every dataset', () => {
    expect(summary.units.map((unit) => `${unit.dataset} ${unit.status}`)).toEqual(ALL_DATASETS.map((dataset) => `${dataset} complete`));
    expect(summary.driftUnits).toBe(ALL_DATASETS.length);
  });

  it.each(ALL_DATASETS)('%s: every row is written with its values as sent and exactly its unknown fields, nothing else changed', async (dataset) => {
    const normal = expectedTables(sandbox.data, { dataset, projectId: PROJECT, day: DAY }, { exportedAt: EXPORTED_AT });
    const drift = expectedDrift(dataset);

    for (const table of tableNames(dataset)) {
      const spec = drift[table]?.[0];
      if (!spec) throw new Error(`no drift written out for ${table}`);
      const raws = rawRowsOf(dataset, table);
      const expected = withParsedJson(normal[table] ?? []).map((row, index) => {
        const raw = raws[index] as Raw;
        const changed = spec.change ? spec.change(row, raw) : row;
        const unknown = spec.unknown(raw);
        // unknown_fields is masked like free text (docs/privacy.md): a new field may hold what a reader typed.
        return { ...changed, unknown_fields: unknown === null ? null : maskDeep(unknown) };
      });

      const contents = await readTable(destination, table, DAY, PROJECT);

      expect(contents.columns, `${table} columns`).toEqual(CONTRACT_COLUMNS[table]);
      expect(expected.length, `${table} has rows`).toBeGreaterThan(0);
      const read = withParsedJson(contents.rows).map((row) => ({
        ...row,
        unknown_fields: typeof row['unknown_fields'] === 'string' ? (JSON.parse(row['unknown_fields']) as unknown) : row['unknown_fields'],
      }));
      expect(read, `${table} rows`).toEqual(expected);
    }
  });

  it('writes unknown_fields as the JSON object the API sent, nested values whole', async () => {
    const { rows } = await readTable(destination, 'assistant_conversations', DAY, PROJECT);
    const raw = sandbox.data.rows('assistant', PROJECT, DAY)[0] as unknown as Raw;

    expect(rows[0]?.['unknown_fields']).toBe(JSON.stringify({ searches: [{ query: raw.query, results: (raw.sources as unknown[]).length }] }));
  });

  it('keeps a new field inside the cited sources in sources_json, as sent, and names it by path', async () => {
    const { rows } = await readTable(destination, 'assistant_conversations', DAY, PROJECT);
    const cited = rows.filter((row) => Number(row['source_count']) > 1);
    const raw = sandbox.data.rows('assistant', PROJECT, DAY).find((row) => row.id === cited[0]?.['conversation_id']);

    expect(cited.length).toBeGreaterThan(0);
    expect(JSON.parse(String(cited[0]?.['sources_json']))).toEqual(
      raw?.sources.map((source, index) => ({ ...source, score: Math.round(1000 / (index + 1)) / 1000 })),
    );
    expect(manifestOf(resultOf('assistant')).drift?.tables['assistant_conversations']?.fields).toContain('sources[].score');
  });

  it('keeps the new enum values in their columns (feedback source and status, assistant response_type)', async () => {
    const feedback = (await readTable(destination, 'feedback', DAY, PROJECT)).rows;
    const assistant = (await readTable(destination, 'assistant_conversations', DAY, PROJECT)).rows;

    expect(new Set(feedback.map((row) => row['source']))).toContain('widget');
    expect(new Set(feedback.map((row) => row['status']))).toContain('archived');
    expect(new Set(assistant.map((row) => row['response_type']))).toContain('tool_call');
  });

  it.each([
    ['visitors', { visitors_pages: { fields: ['bots'], values: {} }, visitors_totals: { fields: ['bots'], values: {} } }, ['sampled']],
    ['views', { views_pages: { fields: ['sessions'], values: {} }, views_totals: { fields: ['sessions'], values: {} } }, []],
    ['searches', { searches: { fields: ['refinements'], values: {} } }, ['engine']],
    ['feedback', { feedback: { fields: ['sentiment'], values: { source: ['widget'], status: ['archived'] } } }, []],
    ['feedback_by_page', { feedback_by_page: { fields: ['widget'], values: {} } }, []],
    ['assistant', { assistant_conversations: { fields: ['searches', 'sources[].score'], values: { response_type: ['tool_call'] } } }, []],
    ['caller_stats', { assistant_caller_stats: { fields: ['mcp'], values: {} } }, []],
  ] as const)('%s: the manifest names the drift, per table, and the new top-level fields', (dataset, tables, topLevelFields) => {
    expect(manifestOf(resultOf(dataset)).drift).toEqual({ tables, topLevelFields });
  });

  it('warns once per dataset, naming the new fields and values', () => {
    const warnings = logger.lines.filter((line) => line.level === 'warn' && line.message.includes('answers changed'));

    expect(warnings).toHaveLength(ALL_DATASETS.length);
    const feedback = warnings.find((line) => line.message.includes("API's feedback answers"));
    expect(feedback?.message).toBe(
      'the API\'s feedback answers changed in 1 unit(s): new field(s) feedback.sentiment (kept in unknown_fields); new value(s) feedback.source "widget"; feedback.status "archived" (kept as sent); nothing was lost (see SchemaDrift in docs/operations.md)',
    );
  });

  it('never puts a text value (a search term, a question, an answer, a comment) in a warning', () => {
    const texts = [
      ...sandbox.data.rows('searches', PROJECT, DAY).map((row) => row.searchQuery),
      ...sandbox.data.rows('assistant', PROJECT, DAY).flatMap((row) => [row.query, row.response]),
      ...sandbox.data.rows('feedback', PROJECT, DAY).flatMap((row) => (row.comment === null ? [] : [row.comment])),
    ].filter((text) => text.length >= 4);
    const warnings = logger.lines.filter((line) => line.level === 'warn');

    expect(texts.length).toBeGreaterThan(100);
    expect(warnings.filter((line) => texts.some((text) => line.text.includes(JSON.stringify(text).slice(1, -1))))).toEqual([]);
  });
});

describe('a type change on an API that also drifted', () => {
  it('fails only its own unit, naming the field; the other datasets are written with their drift', async () => {
    sandbox.addFault({ route: ROUTE_OF.caller_stats, kind: 'wrong-types', times: Infinity });
    const out = createLocalDestination(await makeTempDir('drift-type'));

    const run = await runUnits({
      units: plannedUnits(ALL_DATASETS, [PROJECT], DAY),
      policy: testSettings({ datasets: ALL_DATASETS }),
      deps: exportDeps({ sandbox, destination: out, start: START, client: DATASET_CLIENT }),
    });
    sandbox.clearFaults();

    expect(run.units.map((unit) => `${unit.dataset} ${unit.status}`)).toEqual(
      ALL_DATASETS.map((dataset) => `${dataset} ${dataset === 'caller_stats' ? 'failed' : 'complete'}`),
    );
    expect(failureOf(run.units.find((unit) => unit.dataset === 'caller_stats'))).toMatch(/\bweb must be an integer ≥ 0\b/);
    expect(run.driftUnits).toBe(ALL_DATASETS.length - 1);
  });
});
