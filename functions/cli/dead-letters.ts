/**
 * `mintlify-exporter dead-letters (list | redrive [--include-rejected]) --queue-url URL [--json]`:
 * the follow-up dead-letter queue read and moved back with the SDK, without the aws CLI.
 *
 * The dead-letter queue is the one of `--queue-url` (FOLLOWUP_DEAD_LETTER_QUEUE_URL, else the
 * queue's redrive policy), as `consume` finds it. `list` receives the messages with a short
 * visibility timeout and makes every one visible again before it ends: nothing is taken off the
 * queue (if the command dies, they come back when that timeout ends). `redrive` sends each
 * message back to the queue — the same request (a body without `requestId` gets the id the
 * consumer used) and message group, so one job's prompts keep their order — and only then
 * deletes it here: at least once (a crash between the two leaves a copy in both queues; the
 * copy's deduplication id `redrive-<message id>` makes SQS drop a second copy sent within 5
 * minutes, and the consumer sends a request id at most once). It moves at most the messages
 * present when it starts, each once, and skips the ones the consumer would reject again at once
 * (malformed, a reused request id) unless `--include-rejected`; so it ends while a consumer
 * runs. SQS's own StartMessageMoveTask is not used: it gives every message a new id, which makes
 * a body without `requestId` a new request (a second job), and it would not say what it moved.
 */
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Command } from 'commander';
import { resolveDeadLetterQueueUrl } from '../follow-up/dead-letter.js';
import { loadConfig } from '../settings/config.js';
import { checkedSqsClient } from './aws-settings.js';
import type { CliIo } from './io.js';
import { printDeadLetters, printRedrive } from './render/dead-letters.js';
import { listDeadLetters, redriveDeadLetters } from './dead-letter-queue.js';

export interface DeadLettersIo extends Pick<CliIo, 'stdout' | 'stderr' | 'env'> {
  setExitCode(code: number): void;
  /** Test hook: an SQS client (emulator). */
  readonly clients?: { readonly sqs?: SQSClient };
}

export interface DeadLettersFlags {
  readonly queueUrl: string;
  readonly json?: boolean;
  /** `redrive` only: move the messages the consumer would reject again at once too. */
  readonly includeRejected?: boolean;
}

export function registerDeadLettersCommand(program: Command, io: DeadLettersIo): void {
  const command = program
    .command('dead-letters')
    .description('Read or move back the follow-up dead-letter queue (the queue of --queue-url: its redrive policy or FOLLOWUP_DEAD_LETTER_QUEUE_URL).');
  command
    .command('list')
    .description('List the dead-lettered messages with the reason of each; they stay on the queue.')
    .requiredOption('--queue-url <url>', 'the follow-up queue (stack output FollowUpQueueUrl)')
    .option('--json', 'print one JSON object on stdout (with each message body)')
    .action(async (flags: DeadLettersFlags) => {
      const { sqs, deadLetterQueueUrl } = await open(flags, io);
      printDeadLetters(await listDeadLetters(sqs, flags.queueUrl, deadLetterQueueUrl), flags, io);
      io.setExitCode(0);
    });
  command
    .command('redrive')
    .description(
      'Move the dead-lettered messages back to the queue (same request and message group), at least once; at most those present when it starts, each once.',
    )
    .requiredOption('--queue-url <url>', 'the follow-up queue (stack output FollowUpQueueUrl)')
    .option('--include-rejected', 'also move the messages the consumer rejected as malformed or as a reused request id (it rejects them again unless fixed)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (flags: DeadLettersFlags) => {
      const { sqs, deadLetterQueueUrl } = await open(flags, io);
      const report = await redriveDeadLetters(sqs, flags.queueUrl, deadLetterQueueUrl, { includeRejected: flags.includeRejected === true });
      printRedrive(report, flags, io);
      io.setExitCode(report.failed ? 1 : 0);
    });
}

async function open(flags: DeadLettersFlags, io: DeadLettersIo): Promise<{ sqs: Pick<SQSClient, 'send'>; deadLetterQueueUrl: string }> {
  const config = loadConfig(io.env);
  const sqs = io.clients?.sqs ?? (await checkedSqsClient(flags.queueUrl, config));
  return { sqs, deadLetterQueueUrl: await resolveDeadLetterQueueUrl(sqs, flags.queueUrl, config.followUpDeadLetterQueueUrl) };
}
