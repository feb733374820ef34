/**
 * A lake of many days and projects made from a few exported ones (the `lake-build` and
 * `lake-year` benchmarks): seed days exported for real (the engine against the sandbox, every
 * dataset, the sandbox's three projects, into a folder of seeds), then cloned by DuckDB to
 * every day asked for any number of projects — project n a clone of the sandbox's project
 * n mod 3 under its own id, day d of seed day d mod (seed days), each clone its seed's rows
 * with `date` and `project_id` rewritten, and each manifest its seed's with its day, project,
 * files and bytes. A reader's or a roll-up's cost is the files and rows it reads, not their
 * values, so clones measure it as exported days would.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { unitsOf } from '../../functions/export/index.js';
import { addDays } from '../../functions/shared/dates.js';
import { createLocalDestination } from '../../functions/shared/storage/destination-local.js';
import { DATASET_NAMES, DATASET_TABLES } from '../../functions/warehouse/catalog.js';
import { manifestKey } from '../../functions/warehouse/keys.js';
import { dayFolderName, dayKey, LAYOUT } from '../../functions/warehouse/lake/layout.js';
import { sqlString } from '../../functions/warehouse/sql.js';
import { partitionKey } from '../../functions/warehouse/tables.js';
import { DEFAULT_PROJECTS } from '../../sandbox/generators/projects.js';
import { startSandbox } from '../../sandbox/index.js';
import { createEngine } from './engine.js';
import { progress } from './figures.js';

/** What a clone is made of and into. */
export interface CloneSpec {
  /** The clones' project ids, in order (project n clones the sandbox's project n mod 3). */
  readonly projects: readonly string[];
  /** Every day to write (day i clones seed day i mod `seedDays.length`). */
  readonly days: readonly string[];
  /** The days exported for real into the seeds' folder. */
  readonly seedDays: readonly string[];
  /** The benchmark's name, for its progress lines. */
  readonly label: string;
}

/** The sandbox's three projects' `seedDays`, exported for real into `seeds`. */
export async function exportSeeds(seeds: string, seedDays: readonly string[], label: string): Promise<void> {
  const projects = DEFAULT_PROJECTS.map((p) => p.id);
  progress(`${label}: exporting ${seedDays.length} seed days of ${projects.join(', ')}, every dataset`);
  const sandbox = await startSandbox();
  try {
    const engine = createEngine({ apiUrl: sandbox.url, apiKey: sandbox.apiKey, destination: createLocalDestination(seeds) });
    const summary = await engine.run(unitsOf([...seedDays], projects, DATASET_NAMES));
    const expected = seedDays.length * projects.length * DATASET_NAMES.length;
    if (summary.completed !== expected) throw new Error(`seed days: ${summary.completed} of ${expected} unit(s) complete`);
  } finally {
    await sandbox.close();
  }
}

/**
 * Every day of `spec.days` for `spec.projects`, by one DuckDB COPY per table and project
 * partitioned by day; then each unit's manifest. Returns the day files written, their bytes and
 * the `views_pages` rows.
 */
export async function cloneDays(seeds: string, lake: string, spec: CloneSpec): Promise<{ files: number; bytes: number; rows: number }> {
  const { projects, days, seedDays, label } = spec;
  const sources = DEFAULT_PROJECTS.map((p) => p.id);
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  let files = 0;
  let bytes = 0;
  let rows = 0;
  const sizes = new Map<string, number>();
  try {
    await connection.run(
      `CREATE TABLE days AS SELECT * FROM (VALUES ${days.map((day, i) => `(${sqlString(day)}, ${i % seedDays.length})`).join(', ')}) AS t(day, seed)`,
    );
    for (const [n, projectId] of projects.entries()) {
      const source = sources[n % sources.length] as string;
      progress(`${label}: cloning ${projectId} (of ${source}) over ${days.length} days, ${n + 1} of ${projects.length}`);
      for (const dataset of DATASET_NAMES) {
        for (const table of DATASET_TABLES[dataset]) {
          const seedFiles = seedDays
            .map((day, seed) => ({ seed, file: path.join(seeds, partitionKey(table, day, `${source}.parquet`)) }))
            .filter(({ file }) => existsSync(file));
          if (seedFiles.length === 0) continue;
          const columns = (
            await connection.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet(${sqlString(seedFiles[0]?.file ?? '')}, hive_partitioning = false)`)
          ).getRowObjectsJS();
          const typeOf = (name: string) => columns.find((c) => c['column_name'] === name)?.['column_type'] as string | undefined;
          const replaced = [
            ...(typeOf('date') !== undefined ? [`CAST(days.day AS ${typeOf('date')}) AS date`] : []),
            ...(typeOf('project_id') !== undefined ? [`${sqlString(projectId)} AS project_id`] : []),
          ];
          // The seed's own `dt=` folder is not a column of the file: the clone's is its day.
          const rowsOf = seedFiles
            .map(({ seed, file }) => `SELECT *, ${seed} AS seed__ FROM read_parquet(${sqlString(file)}, hive_partitioning = false)`)
            .join(' UNION ALL BY NAME ');
          const out = path.join(lake, '_clone', table.prefix, projectId);
          await mkdir(path.dirname(out), { recursive: true });
          await connection.run(
            `COPY (SELECT * EXCLUDE (seed__, day, seed)${replaced.length > 0 ? ` REPLACE (${replaced.join(', ')})` : ''}, days.day AS dt FROM (${rowsOf}) AS s JOIN days ON s.seed__ = days.seed) ` +
              `TO ${sqlString(out)} (FORMAT parquet, COMPRESSION zstd, PARTITION_BY (dt))`,
          );
          for (const [i, day] of days.entries()) {
            const target = path.join(lake, partitionKey(table, day, `${projectId}.parquet`));
            await mkdir(path.dirname(target), { recursive: true });
            // DuckDB's PARTITION_BY names its folders as Hive does, which is the lake's own day folder name.
            const folder = path.join(out, dayFolderName(day));
            const written = existsSync(folder) ? (await readdir(folder)).filter((name) => name.endsWith('.parquet')) : [];
            if (written.length === 1) await rename(path.join(folder, written[0] as string), target);
            else {
              // A day with no row (or whose seed had none): the seed's empty file, as the export writes one.
              const seed = seedFiles.find((s) => s.seed === i % seedDays.length);
              if (seed === undefined) continue;
              await connection.run(
                `COPY (SELECT * FROM read_parquet(${sqlString(seed.file)}, hive_partitioning = false) LIMIT 0) TO ${sqlString(target)} (FORMAT parquet)`,
              );
            }
            const size = (await stat(target)).size;
            sizes.set(target, size);
            files += 1;
            bytes += size;
          }
        }
      }
      await rm(path.join(lake, '_clone'), { recursive: true, force: true });
    }
    const counted = await connection.runAndReadAll(
      `SELECT count(*)::BIGINT AS n FROM read_parquet(${sqlString(path.join(lake, 'views_pages', '*', '*.parquet'))})`,
    );
    rows = Number(counted.getRowObjectsJS()[0]?.['n'] ?? 0);
    if (rows === 0) throw new Error('the cloned days have no views_pages row: the clone is broken');
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
  progress(`${label}: writing the manifests`);
  for (const [n, projectId] of projects.entries()) {
    const source = sources[n % sources.length] as string;
    for (const dataset of DATASET_NAMES) {
      for (const [i, day] of days.entries()) {
        const seedDay = seedDays[i % seedDays.length] as string;
        const manifest = JSON.parse(await readFile(path.join(seeds, manifestKey(dataset, seedDay, source)), 'utf8')) as Record<string, unknown>;
        const renamed = (key: string) => key.replaceAll(seedDay, day).replaceAll(source, projectId);
        const seedFiles = (manifest['files'] ?? {}) as Record<string, string>;
        const fileBytes = { ...((manifest['bytes'] ?? {}) as Record<string, number>) };
        const filesOf: Record<string, string> = {};
        for (const [table, key] of Object.entries(seedFiles)) {
          filesOf[table] = renamed(key);
          fileBytes[table] = sizes.get(path.join(lake, renamed(key))) ?? fileBytes[table] ?? 0;
        }
        const target = path.join(lake, manifestKey(dataset, day, projectId));
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(
          target,
          JSON.stringify({ ...manifest, projectId, date: day, window: { dateFrom: day, dateTo: addDays(day, 1) }, files: filesOf, bytes: fileBytes }),
        );
      }
    }
  }
  return { files, bytes, rows };
}

/** One export run's record a day in the run log (`export_runs`), written the next morning, as a daily schedule leaves them. */
export async function writeRunRecords(lake: string, days: readonly string[]): Promise<number> {
  for (const day of days) {
    const run = { run_id: `${day}T02-05-00Z-bench000`, trigger: 'schedule', started_at: `${addDays(day, 1)}T02:05:00.000Z`, requests: 0, units_failed: 0 };
    const file = path.join(lake, dayKey(LAYOUT.runs.folder, addDays(day, 1), `${run.run_id}.json`));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, `${JSON.stringify(run)}\n`);
  }
  return days.length;
}
