/**
 * Role: the report's lake fixture. A warehouse for the report's tests: two sandbox projects exported by the real CLI over twelve
 * days (a six-day report period and the six days before it), then given the states a real lake
 * has — every one of them written the way the exporter (or a newer version of it) writes it:
 *
 * | unit                                   | state                                                         |
 * |----------------------------------------|---------------------------------------------------------------|
 * | every dataset, proj_api, 2026-10-16    | missing (files and manifests removed: a day that never landed) |
 * | feedback, proj_api, 2026-10-17         | failed (a failure record, no manifest, no table file)          |
 * | assistant, proj_api, 2026-10-18        | partial (a checkpoint, no manifest, no table file)             |
 * | views, proj_small, 2026-10-15          | drift: the manifest names a new field and value, and its       |
 * |                                        | `views_pages` file has the `unknown_fields` column (the other  |
 * |                                        | days' files do not: read by name)                              |
 * | searches, proj_small, 2026-10-15       | one more term, markup (`HOSTILE_TEXT`), never clicked          |
 *
 * The contact column is exported as sent (`PERSONAL_DATA_POLICY=feedback.contact=keep`) so a test can prove the report
 * never shows it. Built once for every test file that reads it (test/helpers/lake-cache.ts): each
 * gets its own copy and a sandbox of its own.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect } from 'vitest';
import { DATASET_NAMES, DATASET_TABLES } from '../../functions/warehouse/catalog.js';
import { partitionKey } from '../../functions/warehouse/tables.js';
import { manifestKey, stagingPrefix } from '../../functions/warehouse/keys.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { queryDuckDb } from './read-back.js';
import { cachedLake } from './lake-cache.js';
import { runCliInProcess } from './cli.js';
import { cliEnv } from './env.js';
import { dropManifest, putManifest } from './manifests.js';
import { openTarget } from '../../functions/shared/storage/destinations.js';

export const PROJECTS = ['proj_api', 'proj_small'] as const;
/** 06:00 UTC: with the default 2 settle hours, 2026-10-19 is the latest due day. */
export const NOW = Date.parse('2026-10-20T06:00:00.000Z');
/** The report's default period with `--days 6`. */
export const PERIOD = { from: '2026-10-14', to: '2026-10-20' } as const;
export const PREVIOUS = { from: '2026-10-08', to: '2026-10-14' } as const;
export const MISSING_DAY = '2026-10-16';
export const FAILED = {
  dataset: 'feedback',
  projectId: 'proj_api',
  day: '2026-10-17',
  error: 'feedback: access denied (403): the key lacks the analytics scope',
} as const;
export const PARTIAL = { dataset: 'assistant', projectId: 'proj_api', day: '2026-10-18' } as const;
export const DRIFT = { dataset: 'views', projectId: 'proj_small', day: '2026-10-15' } as const;
/** A search term that is markup, searched more than any other and never clicked. */
export const HOSTILE_TEXT = '<script>alert("x")</script>&amp; <img src=x onerror=alert(1)>';
export const HOSTILE_HITS = 98_765;

export interface ReportLake {
  readonly sandbox: Sandbox;
  /** A temp folder holding the warehouse as `data/`, so a report can name it `./data` from here. */
  readonly root: string;
  /** `<root>/data`. */
  readonly out: string;
  /** Env of the CLI: the sandbox's URL and key (the report must use neither). */
  readonly env: Record<string, string>;
}

/** The sandbox's two projects, as the lake was exported from them. */
const startReportSandbox = () =>
  startSandbox({
    projects: [
      { id: 'proj_small', paths: 300 },
      { id: 'proj_api', paths: 80 },
    ],
  });

/**
 * The lake, built once per content of the tree (test/helpers/lake-cache.ts) and copied for the
 * calling test file, with a sandbox of its own serving the same data the lake was exported from.
 */
export async function buildReportLake(): Promise<ReportLake> {
  const { root } = await cachedLake('report', exportReportLake);
  const sandbox = await startReportSandbox();
  return { sandbox, root, out: path.join(root, 'data'), env: await reportEnv(sandbox) };
}

const reportEnv = (sandbox: Sandbox) =>
  cliEnv(sandbox, {
    PERSONAL_DATA_POLICY: 'feedback.contact=keep',
    // A budget the export never meets: its waits would never end on the fixed clock.
    ANALYTICS_BUDGET: '100000/1h',
  });

/** Exports the lake into `<root>/data` and gives it a real lake's states (see above). */
async function exportReportLake(root: string): Promise<void> {
  const sandbox = await startReportSandbox();
  try {
    const out = path.join(root, 'data');
    const exported = await runCliInProcess(['export', '--from', PREVIOUS.from, '--to', PERIOD.to, ...PROJECTS.flatMap((p) => ['--project', p]), '--out', out], {
      env: await reportEnv(sandbox),
      now: () => NOW,
    });
    expect(exported.code, exported.stderr).toBe(0);

    for (const dataset of DATASET_NAMES) await removeUnit(out, { dataset, projectId: 'proj_api', day: MISSING_DAY });
    await removeUnit(out, FAILED);
    await writeJson(out, `${stagingPrefix(FAILED.dataset, FAILED.day, FAILED.projectId)}failure.json`, { error: FAILED.error, at: '2026-10-20T03:05:00.000Z' });
    await removeUnit(out, PARTIAL);
    await writeJson(out, `${stagingPrefix(PARTIAL.dataset, PARTIAL.day, PARTIAL.projectId)}checkpoint.json`, {
      version: 1,
      dataset: PARTIAL.dataset,
      projectId: PARTIAL.projectId,
      date: PARTIAL.day,
      limit: 1000,
      startedAt: '2026-10-20T03:00:00.000Z',
      updatedAt: '2026-10-20T03:01:00.000Z',
      state: { pages: 1, cursor: 'c1' },
      requests: { successful: 1, sent: 1, retried: 0 },
      runs: 1,
    });
    await addDrift(out);
  } finally {
    await sandbox.close();
  }
}

type FixtureUnit = { readonly dataset: (typeof DATASET_NAMES)[number]; readonly projectId: string; readonly day: string };

/** A unit's manifest and files gone, as an export cut short leaves them (the manifest's mark in the index of units first). */
async function removeUnit(out: string, unit: FixtureUnit): Promise<void> {
  await dropManifest(openTarget({ kind: 'local', dir: out }), unit.dataset, unit.day, unit.projectId);
  for (const table of DATASET_TABLES[unit.dataset]) {
    await rm(path.join(out, partitionKey(table, unit.day, `${unit.projectId}.parquet`)), { force: true });
  }
}

async function writeJson(out: string, key: string, value: unknown): Promise<void> {
  const file = path.join(out, key);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(value));
}

/** The manifest's `drift` and a `views_pages` file as a newer exporter writes them. */
async function addDrift(out: string): Promise<void> {
  const manifestFile = path.join(out, manifestKey(DRIFT.dataset, DRIFT.day, DRIFT.projectId));
  const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>;
  manifest['drift'] = { tables: { views_pages: { fields: ['sentiment'], values: { source: ['widget'] } } }, topLevelFields: ['newKey'] };
  await putManifest(openTarget({ kind: 'local', dir: out }), DRIFT.dataset, DRIFT.day, DRIFT.projectId, manifest);

  const q = (text: string) => `'${text.replaceAll("'", "''")}'`;
  // Explicit columns: the same whether or not this version's exporter already writes unknown_fields.
  await rewriteParquet(
    path.join(out, 'views_pages', `dt=${DRIFT.day}`, `${DRIFT.projectId}.parquet`),
    (file) => `SELECT project_id, date, path, human, ai, total, exported_at,
        CASE WHEN row_number() OVER () = 1 THEN '{"sentiment":"positive"}' END AS unknown_fields FROM read_parquet(${q(file)})`,
  );
  await rewriteParquet(
    path.join(out, 'searches', `dt=${DRIFT.day}`, `${DRIFT.projectId}.parquet`),
    (file) => `SELECT project_id, date, search_query, hits, ctr, top_clicked_page, last_searched_at, exported_at FROM read_parquet(${q(file)})
      UNION ALL
      SELECT project_id, date, ${q(HOSTILE_TEXT)}, ${HOSTILE_HITS}::BIGINT, 0::DOUBLE, NULL, NULL, exported_at FROM (SELECT * FROM read_parquet(${q(file)}) LIMIT 1)`,
  );
}

/** Replaces a Parquet file with what `select(file)` reads from it. */
async function rewriteParquet(file: string, select: (file: string) => string): Promise<void> {
  const rewritten = `${file}.new`;
  await queryDuckDb(`COPY (${select(file)}) TO '${rewritten.replaceAll("'", "''")}' (FORMAT parquet)`);
  await writeFile(file, await readFile(rewritten));
  await rm(rewritten);
}

/** One independent DuckDB query over every Parquet file of `table` in the lake, days `[from, to)`. */
export async function sumOf(out: string, table: string, expression: string, range: { from: string; to: string }, where = 'true'): Promise<number> {
  const glob = path.join(out, table, '*', '*.parquet');
  const [row] = await queryDuckDb(
    `SELECT ${expression} AS v FROM read_parquet('${glob}', union_by_name = true) WHERE date >= DATE '${range.from}' AND date < DATE '${range.to}' AND (${where})`,
  );
  return Number(row?.['v'] ?? 0);
}
