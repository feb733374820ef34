/**
 * `mintlify-exporter effects [--days N | --from D1 --to D2] [--project ID]... [--out DEST] [--json]
 * [--save]`: did the fixes work — for every completed agent job made for a gap, its rate before
 * and after against similar gaps without a job, and a verdict (`fixed`, `worse`, `no_change`,
 * `too_little_data`) with its reason (functions/gaps/verdict-rows.ts). Reads the warehouse
 * (`--out`, else EXPORT_DESTINATION, else ./data); `--days`/`--from`/`--to` keep the jobs
 * completed in those days (default: every completed job). `--save` writes the verdicts into the
 * warehouse's `fix_effects` table (`fix_effects/dt=<today>/<project>.json`). No API request.
 *
 * `effects mark --project P --gap ID --on YYYY-MM-DD [--pr URL] [--out DEST]` registers a fix a
 * person made as an outcome record of kind `manual` (finished and merged on that day), measured
 * like any other.
 *
 * Exit 1 with one line when no job made for a gap has completed (in the days and projects); 2 for
 * a bad flag or a mistaken `--out` (found before any work).
 */
import type { GlueClient } from '@aws-sdk/client-glue';
import type { S3Client } from '@aws-sdk/client-s3';
import type { Command } from 'commander';
import { loadConfig } from '../settings/config.js';
import { ID_PATTERN, validateProjectId } from '../shared/validators.js';
import { createHash } from 'node:crypto';
import { addDays, dayStart, formatDay, parseDay } from '../shared/dates.js';
import { displayText } from '../shared/display.js';
import { NoDataError } from '../shared/errors.js';
import { validatedArg } from './args.js';
import { addCompletedPeriodOptions, completedPeriod, type CompletedPeriodFlags } from './completed-period.js';
import type { CliIo } from './io.js';
import { FIX_EFFECTS, partitionKey } from '../warehouse/tables.js';
import { printEffects } from './render/effects.js';

export interface EffectsCommandIo extends Pick<CliIo, 'stdout' | 'stderr' | 'env' | 'now'> {
  setExitCode(code: number): void;
  /** Where relative paths start. @default process.cwd() */
  readonly cwd?: string;
  /** Test hook: emulator clients. */
  readonly clients?: { readonly s3?: S3Client; readonly glue?: GlueClient };
}

export interface EffectsFlags extends CompletedPeriodFlags {
  readonly project: string[];
  readonly out?: string;
  readonly json?: boolean;
  readonly save?: boolean;
}

const projectArg = validatedArg((value) => validateProjectId(value, '--project'));

export function registerEffectsCommand(program: Command, io: EffectsCommandIo): void {
  addCompletedPeriodOptions(
    program
      .command('effects')
      .description('Did the fixes work: a verdict for every completed agent job made for a gap, its rate against similar gaps without a job (sends nothing).'),
  )
    .option(
      '--project <id>',
      'project (repeatable; default every project with a completed job)',
      (value: string, previous: string[]) => [...previous, projectArg(value)],
      [],
    )
    .option('--out <dest>', 'warehouse to read: a directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .option('--json', 'one JSON document on stdout: {"effects":[…]}')
    .option('--save', `also write the verdicts into the warehouse's fix_effects table (${partitionKey(FIX_EFFECTS, '<today>', '<project>.json')})`)
    .action(async (flags: EffectsFlags) => io.setExitCode(await runEffectsCommand(flags, io)))
    .command('mark')
    .description('Register a fix made by hand for a gap: an outcome record of kind manual, measured from the day after --on like any other.')
    // --project and --out are the parent's: commander gives an option to the command that declares it first.
    .requiredOption('--gap <id>', 'the gap id (gap_…, as gaps prints it)')
    .requiredOption('--on <YYYY-MM-DD>', 'the day the fix went live (its "after" starts the day after)')
    .option('--pr <url>', 'the pull request that made it (https)')
    .action(async (_flags: unknown, command: Command) => {
      const all = command.optsWithGlobals<Omit<MarkFlags, 'project'> & { project: string[] }>();
      if (all.project.length !== 1) {
        io.stderr.write("effects mark: name the gap's project once: --project ID\n");
        io.setExitCode(2);
        return;
      }
      io.setExitCode(await runMarkCommand({ ...all, project: all.project[0] as string }, io));
    });
}

export interface MarkFlags {
  readonly project: string;
  readonly gap: string;
  readonly on: string;
  readonly pr?: string;
  readonly out?: string;
}

/** `effects mark`: one outcome record of kind `manual` for the gap (exit 2 with one line on bad input, nothing written). */
export async function runMarkCommand(flags: MarkFlags, io: EffectsCommandIo): Promise<number> {
  const bad = markProblem(flags, io.now());
  if (bad !== undefined) {
    io.stderr.write(`effects mark: ${bad}\n`);
    return 2;
  }
  const config = loadConfig(io.env);
  const cwd = io.cwd ?? process.cwd();
  const destination = flags.out ?? config.destination;
  const { checkLakeTarget } = await import('../report/targets.js');
  const target = await checkLakeTarget(destination, { cwd, source: flags.out !== undefined ? '--out' : 'EXPORT_DESTINATION' });
  const { openRecords } = await import('../warehouse/lake.js');
  const { buildOutcome, createOutcomeSink } = await import('../follow-up/outcome.js');
  const at = dayStart(flags.on);
  const record = buildOutcome({
    requestId: `manual-${flags.gap}-${flags.on}`,
    projectId: flags.project,
    kind: 'manual',
    gapId: flags.gap,
    promptLength: 0,
    promptSha256: createHash('sha256').update('').digest('hex'),
    status: 'completed',
    prLink: flags.pr ?? null,
    finishedAt: at,
    mergedAt: at,
    polls: 0,
    attempts: 0,
    detail: 'a fix made by hand (effects mark)',
  });
  await createOutcomeSink(openRecords(target, io.clients?.s3 ? { s3Client: io.clients.s3 } : {})).write(record);
  io.stderr.write(`Registered a fix made by hand for ${flags.gap} (${flags.project}) on ${flags.on}: "effects" measures it from ${addDays(flags.on, 1)}\n`);
  return 0;
}

/** What is wrong with `effects mark`'s flags, in one line; undefined when nothing is. */
function markProblem(flags: MarkFlags, now: number): string | undefined {
  if (!ID_PATTERN.test(flags.gap)) return `--gap "${displayText(flags.gap)}" is not a gap id: use the id gaps prints (gap_ and 16 hex digits)`;
  try {
    parseDay(flags.on, '--on');
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (flags.on < '2020-01-01' || flags.on > formatDay(now))
    return `--on ${flags.on} is not a day a fix could have gone live: use a day from 2020-01-01 to today`;
  if (flags.pr !== undefined && !/^https:\/\/\S+$/.test(flags.pr)) return `--pr "${displayText(flags.pr)}" is not an https URL`;
  return undefined;
}

export async function runEffectsCommand(flags: EffectsFlags, io: EffectsCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const cwd = io.cwd ?? process.cwd();
  const now = io.now();
  const completed = completedPeriod(flags, now);
  const destination = flags.out ?? config.destination;
  const { checkLakeTarget } = await import('../report/targets.js');
  const target = await checkLakeTarget(destination, { cwd, source: flags.out !== undefined ? '--out' : 'EXPORT_DESTINATION' });
  // Loaded on use: DuckDB costs every other command nothing.
  const { findVerdicts, writeVerdicts } = await import('../gaps/verdict-rows.js');
  let result;
  try {
    result = await findVerdicts(
      { target, projects: [...new Set(flags.project)], ...(completed ? { completed } : {}), now },
      { onWarning: (line) => io.stderr.write(`Warning: ${line}\n`), ...(io.clients?.s3 ? { s3Client: io.clients.s3 } : {}) },
    );
  } catch (error) {
    if (!(error instanceof NoDataError)) throw error;
    io.stderr.write(`No effects: ${error.message}\n`);
    return 1;
  }
  let saved: string[] | undefined;
  if (flags.save === true) {
    // The destination itself, as the lake's readers open it (a folder from `cwd`, or the bucket).
    const { openRecords } = await import('../warehouse/lake.js');
    const records = openRecords(target, io.clients?.s3 ? { s3Client: io.clients.s3 } : {});
    saved = await writeVerdicts(records, result.effects, now);
    // …and, with EXPORT_GLUE_DATABASE, their days registered in the run that wrote them (a failure is a warning line).
    if (config.glueDatabase !== undefined && saved.length > 0) await registerSavedDays(saved, config.glueDatabase, config.org, io);
  }
  printEffects(result, { json: flags.json === true, saved }, io);
  return 0;
}

/** Registers the days of the `fix_effects` records `saved` in Glue, with the organisation's `org` partition when there is one. */
async function registerSavedDays(saved: readonly string[], database: string, org: string | undefined, io: EffectsCommandIo): Promise<void> {
  const [{ GlueClient: Glue }, { registerVerdictDays }, { awsClientConfig }, { partitionWarnings }] = await Promise.all([
    import('@aws-sdk/client-glue'),
    import('../gaps/verdict-rows.js'),
    import('../shared/aws-clients.js'),
    import('./register-partitions.js'),
  ]);
  const glue = io.clients?.glue ?? new Glue(awsClientConfig());
  await registerVerdictDays({ glue, database, org, logger: partitionWarnings(io.stderr) }, saved, io.now);
}
