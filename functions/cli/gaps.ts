/**
 * `mintlify-exporter gaps [--days N | --from D1 --to D2] [--project ID]... [--kind KIND]... [--out DEST] [--top N]
 * [--json] [--prompts FILE]`: the content gaps of the warehouse (`--out`, else
 * EXPORT_DESTINATION, else ./data), most severe first, each with the requests already made for
 * it. `--prompts FILE` writes a queue message per gap not yet in hand (JSONL, no `jobId`: the
 * consumer creates a job) for a person to review, then `enqueue --file`. Sends nothing: no API
 * request, no queue message.
 *
 * Exit 1 with one line when nothing was exported for the days and projects; 2 for a bad flag or
 * a `--prompts` file that cannot be written (found before any work).
 */
import { awsClientConfig } from '../shared/aws-clients.js';
import { stat } from 'node:fs/promises';
import { checkWritableFile } from '../shared/local-paths.js';
import path from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { checkAwsAccess } from './aws-access.js';
import type { S3Client } from '@aws-sdk/client-s3';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { GAP_KINDS, type GapKind } from '../gaps/gaps.js';
import { loadConfig } from '../settings/config.js';
import { validateProjectId } from '../shared/validators.js';
import { ConfigError, NoDataError } from '../shared/errors.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import { validatedArg, wholeNumberArg } from './args.js';
import type { CliIo } from './io.js';
import { printGaps } from './render/gaps.js';
import { DEFAULT_REPORT_DAYS, reportPeriod } from './report.js';

/** Gaps listed when --top is not given. */
export const DEFAULT_TOP = 20;

export interface GapsCommandIo extends Pick<CliIo, 'stdout' | 'stderr' | 'env' | 'now'> {
  setExitCode(code: number): void;
  /** Where relative paths start. @default process.cwd() */
  readonly cwd?: string;
  /** Test hooks: emulator clients. */
  readonly clients?: { readonly s3?: S3Client; readonly dynamo?: DynamoDBClient };
}

export interface GapsFlags {
  readonly days?: number;
  readonly from?: string;
  readonly to?: string;
  readonly project: string[];
  readonly out?: string;
  readonly top: number;
  readonly json?: boolean;
  readonly prompts?: string;
  readonly kind: GapKind[];
}

const projectArg = validatedArg((value) => validateProjectId(value, '--project'));

export function registerGapsCommand(program: Command, io: GapsCommandIo): void {
  program
    .command('gaps')
    .description('List the content gaps of the warehouse, most severe first, and write prompts for agent jobs to review (sends nothing).')
    .addOption(
      new Option('--days <n>', `the last N due days (default ${DEFAULT_REPORT_DAYS})`)
        .argParser(wholeNumberArg(1, 366, 'use a whole number of days from 1 to 366'))
        .conflicts(['from', 'to']),
    )
    .option('--from <YYYY-MM-DD>', 'first day (inclusive)')
    .option('--to <YYYY-MM-DD>', 'day after the last one (exclusive)')
    .option(
      '--project <id>',
      'project (repeatable; default every project found in the period)',
      (value: string, previous: string[]) => [...previous, projectArg(value)],
      [],
    )
    .option('--out <dest>', 'warehouse to read: a directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .addOption(new Option('--top <n>', 'gaps to list').argParser(wholeNumberArg(1, 10_000, 'use a whole number from 1 to 10000')).default(DEFAULT_TOP))
    .option(
      '--kind <kind>',
      `only gaps of this kind (repeatable): ${GAP_KINDS.join(', ')}`,
      (value: string, previous: GapKind[]) => {
        if (!(GAP_KINDS as readonly string[]).includes(value)) throw new InvalidArgumentError(`use one of ${GAP_KINDS.join(', ')}`);
        return [...previous, value as GapKind];
      },
      [],
    )
    .option('--json', 'one JSON document on stdout')
    .option('--prompts <file>', 'write a queue message per listed gap without a job in flight or done (JSONL, for enqueue --file)')
    .action(async (flags: GapsFlags) => io.setExitCode(await runGapsCommand(flags, io)));
}

export async function runGapsCommand(flags: GapsFlags, io: GapsCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const cwd = io.cwd ?? process.cwd();
  const period = reportPeriod(flags, io.now(), config.settleHours);
  const destination = flags.out ?? config.destination;
  // A mistaken --out (a file, a mistyped URL) before any work: exit 2 naming what was typed.
  const { checkLakeTarget } = await import('../report/targets.js');
  const target = await checkLakeTarget(destination, { cwd, source: flags.out !== undefined ? '--out' : 'EXPORT_DESTINATION' });
  const promptsFile = flags.prompts === undefined ? undefined : await checkWritable(path.resolve(cwd, flags.prompts), flags.prompts);
  // Loaded on use: DuckDB costs every other command nothing.
  const { findGaps } = await import('../gaps/find.js');
  const followUpState = await openFollowUpState(config, target.place.kind === 's3' ? undefined : target.place.dir, io);
  let result;
  try {
    result = await findGaps(
      { target, days: period.days, projects: [...new Set(flags.project)], top: flags.top, kinds: [...new Set(flags.kind)] },
      {
        onWarning: (line) => io.stderr.write(`Warning: ${line}\n`),
        ...(io.clients?.s3 ? { s3Client: io.clients.s3 } : {}),
        ...(followUpState ? { followUpState } : {}),
      },
    );
  } catch (error) {
    if (!(error instanceof NoDataError)) throw error;
    io.stderr.write(`No gaps: ${error.message}\n`);
    return 1;
  }
  let written: number | undefined;
  if (promptsFile !== undefined) {
    const { promptLinesOf } = await import('../gaps/prompts.js');
    const { writeReportFile } = await import('../report/report.js');
    const text = promptLinesOf(result.gaps, { from: result.from, last: result.last });
    await writeReportFile(promptsFile, text);
    written = text === '' ? 0 : text.trimEnd().split('\n').length;
  }
  printGaps(result, { json: flags.json === true, promptsFile, written }, io);
  return 0;
}

/**
 * The follow-up records, where `follow-up` and `consume` keep them: FOLLOWUP_STATE_TABLE, else
 * `<local destination>/.followup-state` (undefined for an `s3://` destination without a table:
 * only finished requests are then known).
 */
async function openFollowUpState(
  config: { readonly followUpStateTable?: string },
  localFolder: string | undefined,
  io: GapsCommandIo,
): Promise<Pick<SharedStore, 'list' | 'description'> | undefined> {
  if (config.followUpStateTable !== undefined) {
    const { DynamoDBClient } = await import('@aws-sdk/client-dynamodb');
    const { followUpTableStore } = await import('../follow-up/open-state-store.js');
    const dynamo = io.clients?.dynamo ?? new DynamoDBClient(awsClientConfig());
    await checkAwsAccess(dynamo, `gaps reads the follow-up state table ${config.followUpStateTable} (FOLLOWUP_STATE_TABLE)`);
    return followUpTableStore(config.followUpStateTable, dynamo);
  }
  if (localFolder === undefined) return undefined;
  const { createLocalStore } = await import('../shared/storage/shared-store-local.js');
  return createLocalStore(path.join(localFolder, '.followup-state'));
}

/** `file` if it can be written (local-paths.ts: a probe file is created beside it); ConfigError naming what was typed otherwise. */
async function checkWritable(file: string, typed: string): Promise<string> {
  const existing = await stat(file).catch(() => undefined);
  if (existing?.isDirectory()) throw new ConfigError(`--prompts ${typed} is a folder: give a file name, e.g. ${path.join(typed, 'prompts.jsonl')}`);
  await checkWritableFile(file, `--prompts ${typed}`, { createsFolders: false });
  return file;
}
