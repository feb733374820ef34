/**
 * CLI commands of the follow-up consumer, registered on the lead's commander program:
 *
 *   follow-up --project ID --job ID --prompt TEXT [--request-id ID] [--no-wait] [--json]
 *   consume --queue-url URL [--wait-seconds N] [--outcomes-topic ARN]
 *
 * Both run the same core as the Lambda (process-message.ts) with the same safety rules.
 * Status changes go to stderr, the result to stdout (`--json`: exactly one JSON object), so
 * stdout stays machine-readable. Exit codes: 0 completed/archived/duplicate (or sent with
 * --no-wait), 1 failed/timed_out/uncertain/rejected/not_sent, 2 bad input before any request
 * (ConfigError thrown to the caller, which prints one line).
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { SNSClient } from '@aws-sdk/client-sns';
import { SQSClient } from '@aws-sdk/client-sqs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { AgentJob } from '../shared/api-types.js';
import { createApiClient } from '../shared/api/index.js';
import { retryLinePrinter } from '../cli/retry-lines.js';
import { isLoopback, loadConfig, validateTopicArn, type Config } from '../shared/config.js';
import { openDestination } from '../shared/destinations.js';
import { ConfigError } from '../shared/errors.js';
import { createLogger, silentLogger } from '../shared/logger.js';
import { abortableSleep, runConsumer } from './consumer.js';
import { createSqsDeadLetter, resolveDeadLetterQueueUrl } from './dead-letter.js';
import { humanLogger } from './human-log.js';
import { ID_PATTERN, MAX_PROMPT_LENGTH } from './message.js';
import { createSnsNotifier } from './notify.js';
import { createOutcomeSink } from './outcome.js';
import { openStateStore } from './open-state-store.js';
import { processMessage, type FollowUpDeps, type ProcessResult } from './process-message.js';
import { resolveSettings, settingsFromConfig, type FollowUpSettings } from './settings.js';

/** What the commands need from the CLI (functions/cli.ts passes its CliIo plus two hooks). */
export interface FollowUpCommandIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
  readonly env: Record<string, string | undefined>;
  /** Default: Date.now. */
  readonly now?: () => number;
  /** Resolves on SIGINT/SIGTERM; `consume` stops, `follow-up` stops waiting. */
  readonly stopSignal?: Promise<void>;
  /** Where API calls go (the real service, or the embedded sandbox when no key is set). */
  resolveApiTarget(config: Config): Promise<{ readonly baseUrl: string; readonly apiKey: string; readonly sandbox?: unknown; close(): Promise<void> }>;
  setExitCode(code: number): void;
  /** Test hooks: clients (emulators), sleep, and setting overrides (short poll intervals). */
  readonly clients?: { readonly sqs?: SQSClient; readonly dynamo?: DynamoDBClient; readonly s3?: S3Client; readonly sns?: SNSClient };
  readonly sleep?: (ms: number) => Promise<void>;
  readonly settings?: Partial<FollowUpSettings>;
}

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

export interface ConsumeFlags {
  readonly queueUrl: string;
  readonly waitSeconds?: number;
  /** JSON log records on stdout even on a terminal (they are the default elsewhere). */
  readonly json?: boolean;
  /** SNS topic every outcome is published to; overrides FOLLOWUP_OUTCOMES_TOPIC_ARN. */
  readonly outcomesTopic?: string;
}

export function registerFollowUpCommands(program: Command, io: FollowUpCommandIo): void {
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

  program
    .command('consume')
    .description('Run the follow-up consumer against an SQS-compatible queue until SIGINT/SIGTERM.')
    .requiredOption('--queue-url <url>', 'the queue to consume')
    .addOption(new Option('--wait-seconds <n>', 'long-poll wait (0–20)').argParser(waitArg).default(20))
    .option('--json', 'JSON log records on stdout (the default when stdout is not a terminal)')
    .addOption(new Option('--outcomes-topic <arn>', 'SNS topic every outcome is also published to (default: FOLLOWUP_OUTCOMES_TOPIC_ARN)').argParser(topicArg))
    .action(async (flags: ConsumeFlags) => {
      io.setExitCode(await runConsumeCommand(flags, io));
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
    const deps: FollowUpDeps = {
      ...(await localDeps(config, io, target, { ...(privateState ? { stateDir: privateState } : {}), retryLines: true })),
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
    if (flags.json) {
      io.stdout.write(
        `${JSON.stringify({ requestId, status, prLink, polls: result.polls ?? 0, job: result.job ?? null, ...(reason === undefined ? {} : { reason }) })}\n`,
      );
    } else {
      const next = reason === undefined ? '' : `: ${reason}; run the command again with --request-id ${requestId} to go on`;
      io.stdout.write(`${status}${prLink ? ` ${prLink}` : ''} (request ${requestId})${next}\n`);
    }
    if (status === 'completed' || status === 'archived' || status === 'sent' || status === 'duplicate') return 0;
    return 1;
  } finally {
    stop.dispose();
    await target.close();
    if (privateState) await rm(privateState, { recursive: true, force: true });
  }
}

/** Runs the consumer until the stop signal; exit code 0 after a clean stop. */
export async function runConsumeCommand(flags: ConsumeFlags, io: FollowUpCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  if (config.apiKey === undefined && !isLoopback(queueHost(flags.queueUrl))) {
    // Without a key the prompts would go to the embedded sandbox, which rejects jobs it does
    // not know: a real queue's prompts would all be dead-lettered.
    throw new ConfigError('MINTLIFY_API_KEY is not set: consuming a remote queue needs the admin key (the embedded sandbox is for loopback queues only)');
  }
  const target = await io.resolveApiTarget(config);
  const stop = abortOn(io.stopSignal);
  try {
    const sqs = io.clients?.sqs ?? new SQSClient({ useQueueUrlAsEndpoint: !config.sqsEndpointOverridden });
    // A person at a terminal reads lines; a file or a log collector gets JSON records.
    const logger =
      flags.json === true || io.stdout.isTTY !== true
        ? createLogger({ serviceName: 'follow-up-consumer' })
        : humanLogger((text) => io.stdout.write(text), io.now);
    const deadLetterUrl = await resolveDeadLetterQueueUrl(sqs, flags.queueUrl, config.followUpDeadLetterQueueUrl);
    const outcomesTopic = flags.outcomesTopic ?? config.followUpOutcomesTopicArn;
    const deps: FollowUpDeps = {
      ...(await localDeps(config, io, target, { outcomesTopic })),
      logger,
      deadLetter: createSqsDeadLetter({ sqs, queueUrl: deadLetterUrl }),
      sleep: io.sleep ?? ((ms: number) => abortableSleep(ms, stop.signal)),
    };
    const settings = resolveSettings({ ...settingsFromConfig(config), ...io.settings });
    io.stderr.write(`consuming ${flags.queueUrl} (dead-letter queue ${deadLetterUrl}); stop with Ctrl-C\n`);
    if (outcomesTopic) io.stderr.write(`publishing every outcome to ${outcomesTopic}\n`);
    const stats = await runConsumer({
      queueUrl: flags.queueUrl,
      sqs,
      logger,
      stop: stop.signal,
      waitTimeSeconds: flags.waitSeconds ?? 20,
      messageBudgetMs: settings.pollBudgetMs,
      process: (message, options) => processMessage(message, deps, settings, options),
    });
    io.stderr.write(`stopped: ${stats.received} received, ${stats.handled} handled, ${stats.deferred} deferred, ${stats.failed} failed\n`);
    return 0;
  } finally {
    stop.dispose();
    await target.close();
  }
}

async function localDeps(
  config: Config,
  io: FollowUpCommandIo,
  target: { readonly baseUrl: string; readonly apiKey: string },
  options: {
    /** Keep the state records here instead of `<local destination>/.followup-state`. */
    readonly stateDir?: string;
    /** Print each retry wait (a 429's included) on stderr. */
    readonly retryLines?: boolean;
    /** SNS topic every outcome is published to (default: FOLLOWUP_OUTCOMES_TOPIC_ARN). */
    readonly outcomesTopic?: string | undefined;
  } = {},
): Promise<Omit<FollowUpDeps, 'deadLetter' | 'sleep'>> {
  const destination = openDestination(config.destination, io.clients?.s3 ? { s3Client: io.clients.s3 } : {});
  const localRoot = config.destination.startsWith('s3://') ? './data' : config.destination;
  const outcomesTopic = options.outcomesTopic ?? config.followUpOutcomesTopicArn;
  const retryLogger = options.retryLines ? { logger: retryLinePrinter((line) => io.stderr.write(line)) } : {};
  return {
    ...(outcomesTopic ? { notify: createSnsNotifier({ sns: io.clients?.sns ?? new SNSClient({}), topicArn: outcomesTopic }) } : {}),
    api: createApiClient({ baseUrl: target.baseUrl, apiKey: target.apiKey, timeoutMs: config.apiTimeoutMs, ...retryLogger }),
    store: openStateStore(config, {
      ...(io.clients?.dynamo ? { dynamo: io.clients.dynamo } : {}),
      localDir: options.stateDir ?? join(localRoot, '.followup-state'),
    }),
    outcomes: createOutcomeSink(destination),
    logger: silentLogger,
    metrics: { count: () => undefined },
    now: io.now ?? Date.now,
    // `<hostname>:<pid>` (each call adds `:<hex>`): the next run on this machine sees when this
    // process is gone (killed during a POST) and does not wait out its claim.
    owner: `${hostname()}:${process.pid}`,
  };
}

function abortOn(signal: Promise<void> | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let disposed = false;
  void signal?.then(() => {
    if (!disposed) controller.abort();
  });
  return { signal: controller.signal, dispose: () => (disposed = true) };
}

function idArg(value: string): string {
  if (!ID_PATTERN.test(value)) throw new InvalidArgumentError('use letters, digits, "_" and "-" (at most 128)');
  return value;
}

function topicArg(value: string): string {
  try {
    return validateTopicArn(value, '--outcomes-topic');
  } catch (error) {
    throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
  }
}

function waitArg(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 20) throw new InvalidArgumentError('use a whole number of seconds from 0 to 20');
  return n;
}

function queueHost(queueUrl: string): string {
  try {
    return new URL(queueUrl).hostname;
  } catch {
    throw new ConfigError(`--queue-url "${queueUrl}" is not a URL: use the queue URL SQS gives (https://sqs.<region>.amazonaws.com/<account>/<name>)`);
  }
}
