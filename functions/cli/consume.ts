/**
 * `mintlify-exporter consume --queue-url URL [--wait-seconds N] [--outcomes-topic ARN] [--json]`:
 * the follow-up consumer against an SQS-compatible queue until SIGINT/SIGTERM, through the same
 * core as the Lambda (process-message.ts). Exit code 0 after a clean stop; 2 for bad input
 * before any request, or when the API cannot be reached at all (a connection refused, a host
 * name that does not resolve, TLS: MINTLIFY_API_URL) before it ever answered — it stops by itself
 * at the first message that meets it, hands that message back to the queue unsent, and says so
 * in one line. An API that answered earlier in the run and then cannot be reached is down for
 * now: its messages are deferred (not counted as failures) and the consumer goes on.
 */
import { SNSClient } from '@aws-sdk/client-sns';
import { Option, type Command } from 'commander';
import { abortableSleep, runConsumer } from './consumer.js';
import { createSqsDeadLetter, resolveDeadLetterQueueUrl } from '../follow-up/dead-letter.js';
import { checkOutcomesTopic } from '../follow-up/notify.js';
import { awsClientConfig } from '../shared/aws-clients.js';
import { consumeSummary, humanLogger, messageLine } from './render/human-log.js';
import { processMessage } from '../follow-up/process-message.js';
import type { FollowUpDeps } from '../follow-up/types.js';
import { resolveSettings, settingsFromConfig } from '../follow-up/settings.js';
import { loadConfig } from '../settings/config.js';
import { isLoopback, validateTopicArn } from '../shared/validators.js';
import { checkAwsAccess } from './aws-access.js';
import { checkedSqsClient } from './aws-settings.js';
import { ConfigError } from '../shared/errors.js';
import { createLogger } from '../shared/logger.js';
import { validatedArg, wholeNumberArg } from './args.js';
import { abortOn, localDeps, type FollowUpCommandIo } from './follow-up-deps.js';
import { organisationOf, routeByOrganisation, type ProcessOne } from '../organisations/follow-ups.js';
import { orgDestination, type Organisation } from '../organisations/organisations.js';

export interface ConsumeFlags {
  readonly queueUrl: string;
  readonly waitSeconds?: number;
  /** JSON log records on stdout even on a terminal (they are the default elsewhere). */
  readonly json?: boolean;
  /** SNS topic every outcome is published to; overrides FOLLOWUP_OUTCOMES_TOPIC_ARN. */
  readonly outcomesTopic?: string;
}

const waitArg = wholeNumberArg(0, 20, 'use a whole number of seconds from 0 to 20');
const topicArg = validatedArg((value) => validateTopicArn(value, '--outcomes-topic'));

export function registerConsumeCommand(program: Command, io: FollowUpCommandIo): void {
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

/** Runs the consumer until the stop signal; exit code 0 after a clean stop. Throws ConfigError when the API cannot be reached (exit 2). */
export async function runConsumeCommand(flags: ConsumeFlags, io: FollowUpCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const orgs = io.organisations;
  if (config.apiKey === undefined && orgs === undefined && !isLoopback(queueHost(flags.queueUrl))) {
    // Without a key the prompts would go to the embedded sandbox, which rejects jobs it does
    // not know: a real queue's prompts would all be dead-lettered.
    throw new ConfigError('MINTLIFY_API_KEY is not set: consuming a remote queue needs the admin key (the embedded sandbox is for loopback queues only)');
  }
  const targets: { close(): Promise<void> }[] = [];
  const stop = abortOn(io.stopSignal);
  try {
    const sqs = io.clients?.sqs ?? (await checkedSqsClient(flags.queueUrl, config));
    // A person at a terminal reads lines; a file or a log collector gets JSON records.
    const human = flags.json !== true && io.stdout.isTTY === true;
    const logger = human ? humanLogger((text) => io.stdout.write(text), io.now) : createLogger({ serviceName: 'follow-up-consumer' });
    const deadLetterUrl = await resolveDeadLetterQueueUrl(sqs, flags.queueUrl, config.followUpDeadLetterQueueUrl);
    const outcomesTopic = flags.outcomesTopic ?? config.followUpOutcomesTopicArn;
    const topicSetting = flags.outcomesTopic !== undefined ? '--outcomes-topic' : 'FOLLOWUP_OUTCOMES_TOPIC_ARN';
    if (outcomesTopic) {
      const sns = io.clients?.sns ?? new SNSClient(awsClientConfig());
      await checkAwsAccess(sns, `consume publishes outcomes to ${topicSetting}`);
      await checkOutcomesTopic(sns, outcomesTopic, topicSetting);
    }
    const deadLetter = createSqsDeadLetter({ sqs, queueUrl: deadLetterUrl });
    const sleep = io.sleep ?? ((ms: number) => abortableSleep(ms, stop.signal));
    const settings = resolveSettings({ ...settingsFromConfig(config), ...io.settings });
    /** The dependencies of one key and lake: the deployment's, or an organisation's. */
    const wiredFor = async (scoped: typeof config) => {
      const target = await io.resolveApiTarget(scoped);
      targets.push(target);
      const wired = await localDeps(scoped, io, target, { outcomesTopic });
      return { wired, deps: { ...wired, logger, deadLetter, sleep } satisfies FollowUpDeps };
    };
    const wiredAll: { readonly api: { readonly stats: { readonly successes: number } } }[] = [];
    let processOne: ProcessOne;
    if (orgs === undefined) {
      const { wired, deps } = await wiredFor(config);
      wiredAll.push(wired);
      processOne = (message, options) => processMessage(message, deps, settings, options);
    } else {
      // Each message with its organisation's key and lake; one of no organisation is refused.
      const byOrg = new Map<string, Promise<FollowUpDeps>>();
      const depsOf = (org: Organisation) => {
        let deps = byOrg.get(org.id);
        if (deps === undefined) {
          deps = wiredFor({ ...config, apiKey: org.apiKey, destination: orgDestination(config.destination, org.id) }).then(({ wired, deps }) => {
            wiredAll.push(wired);
            return deps;
          });
          byOrg.set(org.id, deps);
        }
        return deps;
      };
      processOne = routeByOrganisation({
        lookup: async (ref) => organisationOf(orgs, ref),
        processFor: (org) => async (message, options) => processMessage(message, await depsOf(org), settings, options),
        deadLetter,
        onRefused: (reason, messageId) => logger.warn('message dead-lettered', { reason, messageId }),
      });
    }
    io.stderr.write(`consuming ${flags.queueUrl} (dead-letter queue ${deadLetterUrl}); stop with Ctrl-C\n`);
    if (orgs !== undefined) io.stderr.write(`each message with its organisation's key (MINTLIFY_ORGS_FILE: ${orgs.map((org) => org.id).join(', ')})\n`);
    if (outcomesTopic) io.stderr.write(`publishing every outcome to ${outcomesTopic}\n`);
    const stats = await runConsumer({
      queueUrl: flags.queueUrl,
      sqs,
      logger,
      stop: stop.signal,
      waitTimeSeconds: flags.waitSeconds ?? 20,
      messageBudgetMs: settings.pollBudgetMs,
      process: processOne,
      // An API that never answered in this run is a setting to fix (MINTLIFY_API_URL): every other
      // message would meet the same. One that answered before is down for now: its messages wait.
      stopOn: (result) =>
        result.action === 'defer' && result.cause === 'unreachable' && wiredAll.every((wired) => wired.api.stats.successes === 0) ? result.reason : undefined,
      onMessage: (report) => (human ? io.stdout.write(messageLine(report, io.now)) : logger.info('message processed', { ...report })),
    });
    io.stderr.write(consumeSummary(stats));
    if (stats.stoppedBy !== undefined) throw new ConfigError(stats.stoppedBy);
    return 0;
  } finally {
    stop.dispose();
    await Promise.all(targets.map((target) => target.close()));
  }
}

function queueHost(queueUrl: string): string {
  try {
    return new URL(queueUrl).hostname;
  } catch {
    throw new ConfigError(`--queue-url "${queueUrl}" is not a URL: use the queue URL SQS gives (https://sqs.<region>.amazonaws.com/<account>/<name>)`);
  }
}
