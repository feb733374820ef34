/**
 * `mintlify-exporter scope [--days N | --from D1 --to D2] [--project ID]... [--out DEST] [--json]`:
 * checks the pull requests of the period's completed jobs against the scope rules again
 * (functions/scope/; `GITHUB_TOKEN`, `GITHUB_API_URL`, `DOCS_REPOSITORY`, `SCOPE_*`) and records
 * the result on each outcome record (`scope`, `scope_reasons`, `merged_at`: a pull request merged
 * after its job completed is picked up). The period is the days the jobs completed (UTC, today
 * included; default every completed job: cli/completed-period.ts). Not to be confused with cli/scope.ts, the export's
 * unit selection.
 *
 * Exit 0 when every pull request is in scope (or there is none), 1 when any is out of scope or
 * unknown (so it can gate a pipeline), 2 for a bad flag or a missing GITHUB_TOKEN (before any work).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import type { Command } from 'commander';
import { loadConfig } from '../settings/config.js';
import { validateProjectId } from '../shared/validators.js';
import { ConfigError } from '../shared/errors.js';
import { validatedArg } from './args.js';
import { addCompletedPeriodOptions, completedPeriod, type CompletedPeriodFlags } from './completed-period.js';
import type { CliIo } from './io.js';

export interface ScopeCommandIo extends Pick<CliIo, 'stdout' | 'stderr' | 'env' | 'now'> {
  setExitCode(code: number): void;
  /** Where relative paths start. @default process.cwd() */
  readonly cwd?: string;
  /** Test hook: an emulator client. */
  readonly clients?: { readonly s3?: S3Client };
  /** Test hook: the first retry's wait (ms). */
  readonly githubRetryDelayMs?: number;
}

export interface ScopeFlags extends CompletedPeriodFlags {
  readonly project: string[];
  readonly out?: string;
  readonly json?: boolean;
}

/** One pull request in `--json`'s `pulls` (docs/follow-ups.md, "The agent's changes stay in scope"). */
export interface ScopedPull {
  readonly jobId: string | null;
  readonly projectId: string;
  readonly gapId: string | null;
  readonly prLink: string;
  readonly scope: 'in_scope' | 'out_of_scope' | 'unknown';
  readonly reasons: readonly { readonly rule: string; readonly files: readonly string[] }[];
  readonly files: number;
  readonly changedLines: number;
}

const projectArg = validatedArg((value) => validateProjectId(value, '--project'));

export function registerScopeCommand(program: Command, io: ScopeCommandIo): void {
  addCompletedPeriodOptions(
    program
      .command('scope')
      .description("Check the agent's pull requests of completed jobs against the scope rules again, and record the result on their outcome records."),
  )
    .option('--project <id>', 'project (repeatable; default every project)', (value: string, previous: string[]) => [...previous, projectArg(value)], [])
    .option('--out <dest>', 'warehouse of the outcome records: a directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .option('--json', 'one JSON document on stdout: {"pulls":[…]}')
    .action(async (flags: ScopeFlags) => io.setExitCode(await runScopeCommand(flags, io)));
}

export async function runScopeCommand(flags: ScopeFlags, io: ScopeCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const period = completedPeriod(flags, io.now());
  if (config.githubToken === undefined) {
    throw new ConfigError('GITHUB_TOKEN is not set: the scope command reads the pull requests with it (a read-only token: Pull requests read, Contents read)');
  }
  const cwd = io.cwd ?? process.cwd();
  const destination = flags.out ?? config.destination;
  const { checkLakeTarget } = await import('../report/targets.js');
  const target = await checkLakeTarget(destination, { cwd, source: flags.out !== undefined ? '--out' : 'EXPORT_DESTINATION' });
  const { openRecords } = await import('../warehouse/lake.js');
  const { readCompletedPulls, withScope } = await import('../scope/records.js');
  const { scopeCheckerFromSettings } = await import('../scope/check.js');
  const lake = openRecords(target, io.clients?.s3 ? { s3Client: io.clients.s3 } : {});
  const token = config.githubToken;
  const check = scopeCheckerFromSettings(config, {
    token: async () => token,
    onWarning: (line) => io.stderr.write(`Warning: ${line}\n`),
    ...(io.githubRetryDelayMs === undefined ? {} : { github: { retryDelayMs: io.githubRetryDelayMs } }),
  });
  if (check === undefined) throw new ConfigError('GITHUB_TOKEN is not set');
  const { files, skipped } = await readCompletedPulls(lake, { period, projects: [...new Set(flags.project)] });
  if (skipped > 0)
    io.stderr.write(`Warning: ${skipped} outcome record${skipped === 1 ? '' : 's'} could not be read and ${skipped === 1 ? 'was' : 'were'} skipped\n`);
  const pulls: ScopedPull[] = [];
  for (const { key, record } of files) {
    const prLink = record.pr_link as string;
    const result = await check(prLink);
    await lake.put(key, `${JSON.stringify(withScope(record, result))}\n`, { contentType: 'application/json' });
    pulls.push({
      jobId: record.job_id,
      projectId: record.project_id,
      gapId: record.gap_id,
      prLink,
      scope: result.scope,
      reasons: result.reasons,
      files: result.files,
      changedLines: result.changedLines,
    });
  }
  if (flags.json === true) io.stdout.write(`${JSON.stringify({ pulls })}\n`);
  else printPulls(pulls, io);
  return pulls.every((pull) => pull.scope === 'in_scope') ? 0 : 1;
}

const MARK = { in_scope: '✓', out_of_scope: '✗', unknown: '?' } as const;

function printPulls(pulls: readonly ScopedPull[], io: Pick<CliIo, 'stdout'>): void {
  if (pulls.length === 0) {
    io.stdout.write('No completed job with a pull request in the period.\n');
    return;
  }
  for (const pull of pulls) {
    const reasons = pull.reasons.map((reason) => (reason.files.length === 0 ? reason.rule : `${reason.rule}: ${reason.files.join(', ')}`)).join('; ');
    io.stdout.write(
      `${MARK[pull.scope]} ${pull.scope.padEnd(12)} ${pull.projectId} job ${pull.jobId ?? '(unknown)'} ${pull.prLink} (${pull.files} files, ${pull.changedLines} lines)${reasons ? ` — ${reasons}` : ''}\n`,
    );
  }
  const count = (scope: ScopedPull['scope']) => pulls.filter((pull) => pull.scope === scope).length;
  io.stdout.write(`${pulls.length} pull requests: ${count('in_scope')} in scope, ${count('out_of_scope')} out of scope, ${count('unknown')} unknown.\n`);
}
