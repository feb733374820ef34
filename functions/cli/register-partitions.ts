/**
 * `mintlify-exporter register-partitions [--from D1 --to D2] [--dataset NAME]... [--out DEST] [--json]`:
 * registers in Glue (`EXPORT_GLUE_DATABASE`, the stack's GlueDatabase output) the partition of
 * every day the lake holds a committed unit of — once, for a deployment whose past days were
 * exported before the export registered each day itself (functions/warehouse/partitions.ts) — and,
 * without `--dataset`, each day of the follow-up outcomes and the run log (written outside
 * units, never registered by the hourly export). It lists the manifests (one listing per
 * dataset) and those tables' folders, never asks the analytics API, and is idempotent: a partition already there counts as registered. Exit 1 when a partition could not
 * be registered (each named on stderr), 2 for a configuration mistake.
 */
import { GlueClient } from '@aws-sdk/client-glue';
import type { Command } from 'commander';
import { completeUnits, FLAG_NAMES, openExportDestination, registerDays, requestedDays, type TableRegistration } from '../export/index.js';
import { awsClientConfig } from '../shared/aws-clients.js';
import { loadConfig } from '../settings/config.js';
import { ConfigError } from '../shared/errors.js';
import { silentLogger, type AppLogger } from '../shared/logger.js';
import { DATASET_NAMES, DATASET_TABLES, isDatasetName, type DatasetName } from '../warehouse/catalog.js';
import { TABLES } from '../warehouse/tables.js';
import { type AwsClientSettings, checkAwsAccess } from './aws-access.js';
import { dayFolderName, parseDayKey } from '../warehouse/lake/layout.js';
import { probeSetup } from './probe.js';
import { writeJson } from './render/json.js';
import { clientOverrides, probeInput, type ExportCommandIo } from './scope.js';

/** Tables of records written outside units (follow-up outcomes, the run log): the hourly export does not register their days. */
const RECORD_TABLES = TABLES.filter((def) => !Object.values(DATASET_TABLES).some((defs) => defs.includes(def)));

interface RegisterFlags {
  readonly from?: string;
  readonly to?: string;
  readonly dataset: string[];
  readonly out?: string;
  readonly json?: boolean;
}

export function registerRegisterPartitionsCommand(program: Command, io: ExportCommandIo): void {
  program
    .command('register-partitions')
    .description(
      'Register in Glue (EXPORT_GLUE_DATABASE) the partition of every day the lake holds, once for days exported before the export registered them; reads manifests only, never the API.',
    )
    .option('--from <day>', 'first day (YYYY-MM-DD); with --to (default: every day in the lake)')
    .option('--to <day>', 'day after the last one (exclusive)')
    .option('--dataset <name>', `only this dataset (repeatable): ${DATASET_NAMES.join(', ')}`, (value: string, previous: string[]) => [...previous, value], [])
    .option('--out <dest>', 'directory or s3://bucket/prefix (default EXPORT_DESTINATION)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (flags: RegisterFlags) => io.setExitCode(await runRegisterPartitions(flags, io)));
}

async function runRegisterPartitions(flags: RegisterFlags, io: ExportCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const database = config.glueDatabase;
  if (database === undefined) {
    throw new ConfigError(
      "EXPORT_GLUE_DATABASE is not set: set it to the stack's GlueDatabase output (cdk deploy prints it) to register the lake's days there",
    );
  }
  for (const name of flags.dataset) {
    if (!isDatasetName(name)) throw new ConfigError(`--dataset ${name} is not a dataset: use one of ${DATASET_NAMES.join(', ')}`);
  }
  const range = requestedDays({ from: flags.from, to: flags.to }, io.now(), FLAG_NAMES);
  // The test hooks' client, else one from the environment (`AWS_ENDPOINT_URL_GLUE` too): its region and credentials first, in one line.
  const glue = io.clients?.glue ?? new GlueClient(awsClientConfig());
  if ('config' in glue) await checkAwsAccess(glue as AwsClientSettings, `register-partitions writes partitions to the Glue database ${database}`);
  const datasets: readonly DatasetName[] = flags.dataset.length > 0 ? (flags.dataset as DatasetName[]) : DATASET_NAMES;
  const destination = openExportDestination(config, clientOverrides(io, flags.out));
  await probeSetup({ ...probeInput(config, io, flags.out, destination, false), mode: 'read' });

  // A day is registered once per table, whatever number of projects it holds.
  const daysByTable = new Map<string, Set<string>>();
  for (const dataset of datasets) {
    const wanted = range ? new Set(range) : undefined;
    for (const unit of await completeUnits(destination, dataset)) {
      if (wanted && !wanted.has(unit.day)) continue;
      for (const def of DATASET_TABLES[dataset]) daysByTable.set(def.name, (daysByTable.get(def.name) ?? new Set()).add(unit.day));
    }
  }
  // The follow-up outcomes and the run log are written outside units: their days are their `dt=` folders.
  if (flags.dataset.length === 0) {
    for (const def of RECORD_TABLES) {
      for (const key of (await destination.list?.(`${def.prefix}/`)) ?? []) {
        const day = parseDayKey(key.slice(key.indexOf(`${def.prefix}/`)))?.day;
        if (day !== undefined && (!range || range.includes(day))) daysByTable.set(def.name, (daysByTable.get(def.name) ?? new Set()).add(day));
      }
    }
  }
  const results: TableRegistration[] = [];
  for (const [table, days] of daysByTable) results.push(await registerDays(glue, database, table, [...days].sort()));

  const registered = results.reduce((sum, r) => sum + r.registered.length, 0);
  const failed = results.flatMap((r) => r.failed.map((f) => ({ table: r.table, ...f })));
  if (flags.json) {
    writeJson(io.stdout, { database, destination: destination.url, registered, tables: results });
  } else {
    io.stdout.write(
      daysByTable.size === 0
        ? `No committed day in ${destination.url}${range ? ` from ${range[0]} to ${range.at(-1)}` : ''}: nothing to register in ${database}\n`
        : `Registered ${registered} partition(s) of ${results.length} table(s) in the Glue database ${database} (a partition already there counts)\n`,
    );
  }
  for (const entry of failed) io.stderr.write(`error: ${entry.error}\n`);
  return failed.length > 0 ? 1 : 0;
}

/** The export's registrar on a terminal: a warning line on stderr for each registration left for the next run. */
export function partitionWarnings(stderr: { write(text: string): unknown }): AppLogger {
  const line = (message: unknown, ...extra: unknown[]) => {
    const { table, day, error } = (extra[0] ?? {}) as { table?: string; day?: string; error?: string };
    stderr.write(`warning: ${String(message)}${table ? ` (${table} ${dayFolderName(String(day))}: ${error})` : ''}\n`);
  };
  return { ...silentLogger, warn: line, error: line };
}
