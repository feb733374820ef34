/**
 * Erasure (issue 42): `forget` of 1,000 people against `forget` of one, on a year of 3
 * datasets × 3 projects (feedback, searches, assistant conversations; 1,095 days of each, every
 * file with its manifest), in a local folder. The lake is written once with DuckDB and copied
 * for each run, so both runs start from the same files; the figure is the ratio of the two
 * wall times, measured side by side in one run. One pass means every file is read once and
 * rewritten at most once, however many people it holds: erasing 1,000 people one at a time
 * would cost about 1,000 passes.
 */
import { cp, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { forgetPeople } from '../functions/export/forget/index.js';
import { manifestOf } from '../functions/export/manifest.js';
import { initialState } from '../functions/export/paging.js';
import { writeManifest } from '../functions/export/manifest.js';
import { addDays } from '../functions/shared/dates.js';
import { keyIdOf, hmacOf } from '../functions/shared/personal-data/index.js';
import { createLocalDestination } from '../functions/shared/storage/destination-local.js';
import { resolvePolicy } from '../functions/warehouse/column-policy.js';
import { DATASET_CATALOG, type DatasetName } from '../functions/warehouse/catalog.js';
import { openDuckDb } from '../functions/warehouse/duckdb.js';
import { sqlString } from '../functions/warehouse/sql.js';
import { partitionKey } from '../functions/warehouse/tables.js';
import { judged, info, progress, type BenchResult, type Figures } from './lib/figures.js';

const KEY = 'bench-personal-data-key-0123456789';
const PROJECTS = ['proj_a', 'proj_b', 'proj_c'];
const DATASETS: readonly DatasetName[] = ['feedback', 'searches', 'assistant'];
const FIRST_DAY = '2025-01-01';
const DAYS = 365;
/** Feedback rows a file, each with a contact from a pool of `PEOPLE` people. */
const ROWS = 20;
const PEOPLE = 5_000;
const ERASED = 1_000;
const GOAL_RATIO = 1.5;

const addressOf = (person: number) => `person${person}@example.com`;
/** A reader who left feedback with their address on every day of every project: in every feedback file. */
const EVERYWHERE = 'frequent.reader@example.com';

/** The SELECT of `rows` rows of the dataset's main table, typed as the export writes them. */
function rowsSql(dataset: DatasetName, projectId: string, day: string, seed: number): string {
  const common = `${sqlString(projectId)} AS project_id, DATE ${sqlString(day)} AS date`;
  const at = `TIMESTAMP ${sqlString(`${day} 12:00:00`)}`;
  if (dataset === 'feedback') {
    // The contact of row i: the HMAC of a person drawn from the pool (a CASE over a list is slow; the list is joined in).
    return `SELECT ${common}, 'fb_' || i AS feedback_id, '/docs/page-' || (i % 40) AS path, 'contextual' AS source, 'pending' AS status,
      'a comment ' || i AS comment, ${at} AS created_at, true AS helpful,
      CASE WHEN i = 0 THEN ${sqlString(hmacOf(KEY, EVERYWHERE))} ELSE p.hmac END AS contact, NULL::VARCHAR AS code,
      NULL::VARCHAR AS filename, NULL::VARCHAR AS lang, ${at} AS exported_at, NULL::VARCHAR AS unknown_fields
      FROM range(${ROWS}) t(i) JOIN people p ON p.person = (hash(i + ${seed}) % ${PEOPLE})`;
  }
  if (dataset === 'searches') {
    return `SELECT ${common}, 'term ' || i AS search_query, 3::BIGINT AS hits, 0.5::DOUBLE AS ctr, '/docs/page-' || i AS top_clicked_page,
      ${at} AS last_searched_at, ${at} AS exported_at, NULL::VARCHAR AS unknown_fields FROM range(${ROWS}) t(i)`;
  }
  return `SELECT ${common}, 'conv_' || i AS conversation_id, ${at} AS asked_at, 'a question ' || i AS query, 'an answer' AS response,
    'text' AS response_type, 'answered' AS resolution_status, NULL::VARCHAR AS query_category, NULL::VARCHAR AS page_url,
    0::BIGINT AS source_count, '[]' AS sources_json, ${at} AS exported_at, NULL::VARCHAR AS unknown_fields FROM range(${ROWS}) t(i)`;
}

/** Writes the lake under `root`: every table file of every unit, and its manifest. */
async function buildLake(root: string): Promise<void> {
  const db = await openDuckDb({ tempDirectory: root });
  const destination = createLocalDestination(root);
  const policy = resolvePolicy({});
  try {
    await db.run(`CREATE TABLE people AS SELECT range AS person, NULL::VARCHAR AS hmac FROM range(${PEOPLE})`);
    for (let person = 0; person < PEOPLE; person += 1000) {
      const values = Array.from({ length: Math.min(1000, PEOPLE - person) }, (_, i) => `(${person + i}, ${sqlString(hmacOf(KEY, addressOf(person + i)))})`);
      await db.run(`INSERT INTO people VALUES ${values.join(', ')}`);
    }
    await db.run('DELETE FROM people WHERE hmac IS NULL');
    let seed = 0;
    for (let d = 0; d < DAYS; d++) {
      const day = addDays(FIRST_DAY, d);
      for (const projectId of PROJECTS) {
        for (const dataset of DATASETS) {
          const table = DATASET_CATALOG[dataset].table;
          const key = partitionKey(table, day, `${projectId}.parquet`);
          const file = path.join(root, key);
          await mkdir(path.dirname(file), { recursive: true });
          await db.run(`COPY (${rowsSql(dataset, projectId, day, seed++)}) TO ${sqlString(file)} (FORMAT parquet)`);
          const manifest = manifestOf({
            unit: { dataset, day, projectId },
            state: { ...initialState(DATASET_CATALOG[dataset].paging), pages: 1 },
            tables: [{ table: table.name, key, rows: ROWS, bytes: 0 }],
            drift: undefined,
            exportedAt: new Date(`${day}T12:00:00Z`),
            finishedAt: Date.parse(`${day}T12:00:00Z`),
            durationMs: 1,
            invalidUtf8: 0,
            requests: { successful: 1, sent: 1, retried: 0 },
            runs: 1,
            privacy: { ...(dataset === 'feedback' ? { keyId: keyIdOf(KEY) } : {}), columns: policy.governed },
          });
          await writeManifest(destination, manifest);
        }
      }
    }
  } finally {
    db.close();
  }
}

/** Wall time of `forgetPeople` of `addresses` on a fresh copy of `lake`, ms; and the rows it removed. */
async function timeForget(lake: string, work: string, addresses: readonly string[]): Promise<{ ms: number; rows: number; files: number }> {
  const copy = path.join(work, `copy-${addresses.length}-${Date.now()}`);
  await cp(lake, copy, { recursive: true });
  const started = performance.now();
  const result = await forgetPeople(
    { addresses, dryRun: false },
    { destination: createLocalDestination(copy), policy: resolvePolicy({}), key: KEY, keyId: keyIdOf(KEY), now: Date.now, tempDir: work },
  );
  const ms = performance.now() - started;
  await rm(copy, { recursive: true, force: true });
  return { ms, rows: result.rows, files: result.files.length };
}

export async function benchForget(): Promise<BenchResult> {
  const work = await mkdtemp(path.join(tmpdir(), 'bench-forget-'));
  try {
    const lake = path.join(work, 'lake');
    progress(`forget: writing a year of ${DATASETS.length} datasets × ${PROJECTS.length} projects (${DAYS * DATASETS.length * PROJECTS.length} files)`);
    await buildLake(lake);
    const thousand = Array.from({ length: ERASED }, (_, i) => addressOf(i * (PEOPLE / ERASED)));
    const figures: Figures = {};
    // Side by side in one run, each on a fresh copy of the same lake.
    progress(`forget: one person in a few files, one person in every feedback file, then ${ERASED} people`);
    const one = await timeForget(lake, work, [addressOf(0)]);
    const everywhere = await timeForget(lake, work, [EVERYWHERE]);
    const many = await timeForget(lake, work, thousand);
    figures['forget.one_person_ms'] = info(one.ms, 'ms', `rows ${one.rows} in ${one.files} file(s)`);
    figures['forget.one_person_everywhere_ms'] = info(everywhere.ms, 'ms', `rows ${everywhere.rows} in ${everywhere.files} file(s)`);
    figures['forget.thousand_people_ms'] = info(many.ms, 'ms', `rows ${many.rows} in ${many.files} file(s)`);
    // One pass: 1,000 people cost what one person in the same files costs (each file read once, rewritten once).
    figures['forget.thousand_vs_one_everywhere'] = judged(
      many.ms / everywhere.ms,
      '×',
      '<=',
      GOAL_RATIO,
      `${ERASED} people in one run against one person whose rows are in every feedback file`,
    );
    // Against a person in a few files the rewrites differ (1,000 people touch nearly every file): said, not judged.
    figures['forget.thousand_vs_one'] = info(many.ms / one.ms, '×', `${ERASED} people against one person in ${one.files} file(s): the rewrites differ`);
    return { figures };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
