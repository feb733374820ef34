/**
 * `mintlify-exporter follow-up --project ID --job ID --prompt TEXT [--request-id ID] [--no-wait] [--json]`:
 * sends one prompt to an agent job and (by default) waits for the job to finish, through the
 * same core as the Lambda (process-message.ts) with the same safety rules. Status changes go to
 * stderr, the result to stdout (`--json`: exactly one JSON object). Exit codes: 0
 * completed/archived/duplicate (or sent with --no-wait), 1 failed/timed_out/uncertain/rejected/
 * not_sent, 2 bad input before any request, or an API that cannot be reached at all before it ever
 * answered (a connection refused, a host name that does not resolve, TLS: MINTLIFY_API_URL; the
 * request is left to send once it is fixed) — a ConfigError thrown to the caller, which prints one line.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { abortableSleep } from './consumer.js';
import { MAX_PROMPT_LENGTH } from '../follow-up/message.js';
import { ID_PATTERN } from '../shared/validators.js';
import { processMessage } from '../follow-up/process-message.js';
import type { FollowUpDeps, ProcessResult } from '../follow-up/types.js';
import { resolveSettings, settingsFromConfig } from '../follow-up/settings.js';
import type { AgentJob } from '../shared/api-enums.js';
import { loadConfig } from '../settings/config.js';
import { ConfigError } from '../shared/errors.js';
import { abortOn, localDeps, type FollowUpCommandIo } from './follow-up-deps.js';
import { followUpJson, followUpLine } from './render/follow-up.js';
import { writeJson } from './render/json.js';

/** How often a `follow-up` that finds another consumer holding its request reads the record again (ms). */
const HELD_RECHECK_MS = 1_000;

export interface FollowUpFlags {
  readonly project: string;
  readonly job: string;
  readonly prompt: string;
  readonly requestId?: string;
  /** commander's `--no-wait` sets `wait: false`. */
  readonly wait: boolean;
  readonly json?: boolean;
}

export function registerFollowUpCommand(program: Command, io: FollowUpCommandIo): void {
  program
    .command('follow-up')
    .description('Send one follow-up prompt to an agent job and (by default) wait for the job to finish.')
    .addOption(new Option('--project <id>', 'project id').argParser(idArg).makeOptionMandatory())
    .addOption(new Option('--job <id>', 'agent job id').argParser(idArg).makeOptionMandatory())
    .requiredOption('--prompt <text>', 'the follow-up instruction')
    .addOption(new Option('--request-id <id>', 'idempotency key (default: a new UUID); re-use it to resume').argParser(idArg))
    .option('--no-wait', 'return once the prompt is sent or deferred, without waiting for the job')
    .option('--json', 'print one JSON object on stdout')
    .action(async (flags: FollowUpFlags) => {
      io.setExitCode(await runFollowUpCommand(flags, io));
    });
}

/** Sends one prompt; returns the exit code. Throws ConfigError on bad input (exit 2). */
export async function runFollowUpCommand(flags: FollowUpFlags, io: FollowUpCommandIo): Promise<number> {
  if (flags.prompt.trim().length === 0) throw new ConfigError('--prompt is empty: give the instruction for the agent');
  if (flags.prompt.length > MAX_PROMPT_LENGTH) throw new ConfigError(`--prompt is longer than ${MAX_PROMPT_LENGTH} characters`);
  const config = loadConfig(io.env);
  const requestId = flags.requestId ?? randomUUID();
  const target = await io.resolveApiTarget(config);
  // The embedded sandbox lives as long as this command: a job it runs cannot be followed
  // later, and a state record of it would describe a job no later sandbox has.
  const embedded = target.sandbox !== undefined;
  if (embedded && !flags.wait) {
    await target.close();
    throw new ConfigError(
      '--no-wait cannot be used with the embedded sandbox (no MINTLIFY_API_KEY): it stops with this command, so nothing could follow the job later; drop --no-wait, or start `npx mintlify-exporter sandbox` in another terminal and set MINTLIFY_API_URL and MINTLIFY_API_KEY as it says',
    );
  }
  const privateState = embedded ? await mkdtemp(join(tmpdir(), 'mintlify-followup-sandbox-')) : undefined;
  const stop = abortOn(io.stopSignal);
  const sleep = io.sleep ?? ((ms: number) => abortableSleep(ms, stop.signal));
  try {
    const statusLine = (job: AgentJob, polls: number) =>
      io.stderr.write(`${new Date((io.now ?? Date.now)()).toISOString()} ${flags.job}: ${job.status}${job.prLink ? ` ${job.prLink}` : ''} (polls ${polls})\n`);
    const wired = await localDeps(config, io, target, { ...(privateState ? { stateDir: privateState } : {}), retryLines: true });
    const deps: FollowUpDeps = {
      ...wired,
      deadLetter: async (entry) => {
        io.stderr.write(`not sent: ${entry.reason}\n`);
      },
      sleep,
      onJob: (job, info) => statusLine(job, info.polls),
    };
    const base = resolveSettings({ ...settingsFromConfig(config), ...io.settings, projectIds: [flags.project] });
    // The CLI waits in-process for as long as the job may run (or not at all with --no-wait).
    const settings = resolveSettings({ ...base, pollBudgetMs: flags.wait ? base.maxWaitMs + 60_000 : 0 });
    const body = JSON.stringify({ projectId: flags.project, jobId: flags.job, prompt: flags.prompt, requestId });
    let result: ProcessResult;
    let told = '';
    for (let deliveries = 1; ; deliveries++) {
      result = await processMessage({ messageId: requestId, body, deliveries }, deps, settings, { stopSignal: stop.signal });
      // An API that never answered is a setting to fix (MINTLIFY_API_URL): waiting would not change
      // that. One that answered before (a job polled for an hour) is down for now: wait as for any deferral.
      if (result.action === 'defer' && result.cause === 'unreachable' && wired.api.stats.successes === 0) throw new ConfigError(result.reason);
      // --no-wait returns once the prompt is sent or deferred: nothing would send it later.
      if (result.action === 'handled' || !flags.wait || stop.signal.aborted) break;
      if (!result.sent && result.reason !== told) io.stderr.write(`waiting ${Math.ceil(result.delayMs / 1000)} s: ${result.reason}\n`);
      told = result.reason;
      // Another consumer holding the request may finish any moment: read its record again soon
      // rather than wait out its lease.
      await sleep(result.cause === 'held' ? Math.min(result.delayMs, HELD_RECHECK_MS) : result.delayMs);
    }
    const status = result.action === 'handled' ? result.status : result.sent ? 'sent' : 'not_sent';
    const prLink = result.action === 'handled' ? (result.prLink ?? null) : null;
    const reason = result.action === 'defer' && !result.sent ? result.reason : undefined;
    const view = { requestId, status, prLink, polls: result.polls ?? 0, job: result.job ?? null, ...(reason === undefined ? {} : { reason }) };
    if (flags.json) writeJson(io.stdout, followUpJson(view));
    else io.stdout.write(followUpLine(view));
    if (status === 'completed' || status === 'archived' || status === 'sent' || status === 'duplicate') return 0;
    return 1;
  } finally {
    stop.dispose();
    await target.close();
    if (privateState) await rm(privateState, { recursive: true, force: true });
  }
}

function idArg(value: string): string {
  if (!ID_PATTERN.test(value)) throw new InvalidArgumentError('use letters, digits, "_" and "-" (at most 128)');
  return value;
}
