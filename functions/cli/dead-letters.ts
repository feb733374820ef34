/**
 * `mintlify-exporter dead-letters (list | redrive) --queue-url URL [--json]`: the follow-up
 * dead-letter queue read and moved back with the SDK, without the aws CLI.
 *
 * The dead-letter queue is the one of `--queue-url` (FOLLOWUP_DEAD_LETTER_QUEUE_URL, else the
 * queue's redrive policy), as `consume` finds it. `list` receives the messages with a short
 * visibility timeout and makes them visible again at once: nothing is taken off the queue (if
 * the command dies, they come back when that timeout ends). `redrive` sends each message back
 * to the queue — same body and message group, so one job's prompts keep their order — and only
 * then deletes it here: at least once (a crash between the two leaves a copy in both queues;
 * the copy's deduplication id `redrive-<message id>` makes SQS drop a second copy sent within
 * 5 minutes, and the consumer sends a request id at most once). SQS's own StartMessageMoveTask
 * is not used: SQS emulators lack it, and it would not say which messages moved.
 */
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Command } from 'commander';
import { DEAD_LETTER_ATTRIBUTES, resolveDeadLetterQueueUrl } from '../follow-up/dead-letter.js';
import { loadConfig } from '../shared/config.js';
import { describeError } from '../shared/errors.js';
import { checkedSqsClient } from './aws-settings.js';
import { bodyIds } from './consumer.js';
import type { CliIo } from './io.js';
import { printDeadLetters, printRedrive } from './render/dead-letters.js';

export interface DeadLettersIo extends Pick<CliIo, 'stdout' | 'stderr' | 'env'> {
  setExitCode(code: number): void;
  /** Test hook: an SQS client (emulator). */
  readonly clients?: { readonly sqs?: SQSClient };
}

export interface DeadLettersFlags {
  readonly queueUrl: string;
  readonly json?: boolean;
}

/** A dead-lettered message, as `list` shows it. */
export interface DeadLetterMessage {
  readonly messageId: string;
  /** From the body (or the consumer's attribute); undefined when neither says. */
  readonly requestId?: string | undefined;
  readonly projectId?: string | undefined;
  readonly jobId?: string | undefined;
  /** FIFO message group (the job id when known). */
  readonly groupId?: string | undefined;
  /** When it reached the dead-letter queue (ISO 8601). */
  readonly deadLetteredAt?: string | undefined;
  /** The consumer's reason, or what SQS did when it moved the message itself. */
  readonly reason: string;
  /** The body as it is on the queue (the prompt included: fix it, or enqueue it again). */
  readonly body: string;
}

export interface DeadLetterListing {
  readonly deadLetterQueueUrl: string;
  /** SQS's approximate count of the messages on the dead-letter queue. */
  readonly approximateTotal: number;
  /** The messages SQS would hand out now: on a FIFO queue, the first of each message group. */
  readonly messages: readonly DeadLetterMessage[];
}

export interface RedriveReport {
  readonly deadLetterQueueUrl: string;
  readonly queueUrl: string;
  readonly moved: readonly (DeadLetterMessage & { readonly newMessageId: string })[];
  /** Set when a message could not be moved: the move stopped there (it stays on the dead-letter queue). */
  readonly failed?: { readonly messageId: string; readonly requestId?: string | undefined; readonly error: string } | undefined;
}

/** How long `list` holds a message out of sight at most (s), should it die before making it visible again. */
const LIST_VISIBILITY_SECONDS = 30;
/** How long `redrive` holds a message it is moving (s). */
const MOVE_VISIBILITY_SECONDS = 60;

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
    .description('Move every dead-lettered message back to the queue (same body and message group), at least once.')
    .requiredOption('--queue-url <url>', 'the follow-up queue (stack output FollowUpQueueUrl)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (flags: DeadLettersFlags) => {
      const { sqs, deadLetterQueueUrl } = await open(flags, io);
      const report = await redriveDeadLetters(sqs, flags.queueUrl, deadLetterQueueUrl);
      printRedrive(report, flags, io);
      io.setExitCode(report.failed ? 1 : 0);
    });
}

async function open(flags: DeadLettersFlags, io: DeadLettersIo): Promise<{ sqs: Pick<SQSClient, 'send'>; deadLetterQueueUrl: string }> {
  const config = loadConfig(io.env);
  const sqs = io.clients?.sqs ?? (await checkedSqsClient(flags.queueUrl, config));
  return { sqs, deadLetterQueueUrl: await resolveDeadLetterQueueUrl(sqs, flags.queueUrl, config.followUpDeadLetterQueueUrl) };
}

/** Lists the dead-letter queue's messages, then makes every one visible again. */
export async function listDeadLetters(sqs: Pick<SQSClient, 'send'>, queueUrl: string, deadLetterQueueUrl: string): Promise<DeadLetterListing> {
  const [approximateTotal, maxReceiveCount] = await Promise.all([approximateCount(sqs, deadLetterQueueUrl), sourceMaxReceiveCount(sqs, queueUrl)]);
  const held: Message[] = [];
  try {
    for (;;) {
      const batch = await receive(sqs, deadLetterQueueUrl, LIST_VISIBILITY_SECONDS);
      const fresh = batch.filter((message) => !held.some((seen) => seen.MessageId === message.MessageId));
      if (fresh.length === 0) break;
      held.push(...fresh);
    }
  } finally {
    await releaseAll(sqs, deadLetterQueueUrl, held);
  }
  return { deadLetterQueueUrl, approximateTotal, messages: held.map((message) => describeMessage(message, maxReceiveCount)) };
}

/** Moves every message of the dead-letter queue back to `queueUrl`: send, then delete. Stops at the first message it cannot send. */
export async function redriveDeadLetters(sqs: Pick<SQSClient, 'send'>, queueUrl: string, deadLetterQueueUrl: string): Promise<RedriveReport> {
  const maxReceiveCount = await sourceMaxReceiveCount(sqs, queueUrl);
  const fifo = queueUrl.endsWith('.fifo');
  const moved: (DeadLetterMessage & { newMessageId: string })[] = [];
  for (;;) {
    const batch = await receive(sqs, deadLetterQueueUrl, MOVE_VISIBILITY_SECONDS);
    if (batch.length === 0) return { deadLetterQueueUrl, queueUrl, moved };
    for (const [index, message] of batch.entries()) {
      const described = describeMessage(message, maxReceiveCount);
      let newMessageId: string;
      try {
        const sent = await sqs.send(
          new SendMessageCommand({
            QueueUrl: queueUrl,
            MessageBody: message.Body ?? '',
            ...(fifo
              ? { MessageGroupId: described.groupId ?? described.jobId ?? 'dead-letter', MessageDeduplicationId: `redrive-${described.messageId}` }
              : {}),
          }),
        );
        newMessageId = sent.MessageId ?? '';
      } catch (error) {
        await releaseAll(sqs, deadLetterQueueUrl, batch.slice(index));
        return { deadLetterQueueUrl, queueUrl, moved, failed: { messageId: described.messageId, requestId: described.requestId, error: describeError(error) } };
      }
      // Sent: a failed delete leaves a copy here, which a later redrive moves again (at least once).
      await sqs.send(new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: message.ReceiptHandle ?? '' }));
      moved.push({ ...described, newMessageId });
    }
  }
}

async function receive(sqs: Pick<SQSClient, 'send'>, queueUrl: string, visibilitySeconds: number): Promise<Message[]> {
  const { Messages } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      // Long polling asks every SQS server; a short poll may miss messages that are there.
      WaitTimeSeconds: 1,
      VisibilityTimeout: visibilitySeconds,
      MessageAttributeNames: ['All'],
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return Messages ?? [];
}

/** Makes received messages visible again at once, 10 per call. */
async function releaseAll(sqs: Pick<SQSClient, 'send'>, queueUrl: string, messages: readonly Message[]): Promise<void> {
  for (let i = 0; i < messages.length; i += 10) {
    const entries = messages.slice(i, i + 10).map((message, n) => ({ Id: `m${i + n}`, ReceiptHandle: message.ReceiptHandle ?? '', VisibilityTimeout: 0 }));
    await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}

async function approximateCount(sqs: Pick<SQSClient, 'send'>, queueUrl: string): Promise<number> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(Attributes?.ApproximateNumberOfMessages ?? 0) + Number(Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

/** The `maxReceiveCount` of the queue's redrive policy: how many receives SQS allows before it moves a message itself. */
async function sourceMaxReceiveCount(sqs: Pick<SQSClient, 'send'>, queueUrl: string): Promise<number | undefined> {
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['RedrivePolicy'] }));
  try {
    const count = Number((JSON.parse(Attributes?.RedrivePolicy ?? '{}') as { maxReceiveCount?: unknown }).maxReceiveCount);
    return Number.isInteger(count) && count > 0 ? count : undefined;
  } catch {
    return undefined;
  }
}

function describeMessage(message: Message, maxReceiveCount: number | undefined): DeadLetterMessage {
  const attribute = (name: string) => message.MessageAttributes?.[name]?.StringValue;
  const body = bodyIds(message.Body ?? '');
  const sent = Number(message.Attributes?.SentTimestamp);
  const reason =
    attribute(DEAD_LETTER_ATTRIBUTES.reason) ??
    `moved by SQS after ${maxReceiveCount ?? 'its'} receive(s) without a delete (the queue's maxReceiveCount): the consumer failed on it, deferred it or stopped that often`;
  return {
    messageId: message.MessageId ?? '',
    requestId: attribute(DEAD_LETTER_ATTRIBUTES.requestId) ?? body.requestId,
    projectId: body.projectId,
    jobId: body.jobId,
    groupId: message.Attributes?.MessageGroupId,
    deadLetteredAt: Number.isFinite(sent) && sent > 0 ? new Date(sent).toISOString() : undefined,
    reason,
    body: message.Body ?? '',
  };
}
