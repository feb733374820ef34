/**
 * Outcome notifications: every outcome record is also published to an SNS topic, so a caller
 * reacts to it (posts the PR link in chat, pages someone on `uncertain`) without polling S3.
 * The message is the record itself (the same JSON as `followup_outcomes/…/<requestId>.json`),
 * with the message attributes `status`, `kind` (`create` | `follow_up`), `projectId` and `jobId`
 * (absent when a new job's creation never named it) for subscription filter policies, e.g.
 * `{"status": ["failed", "uncertain", "rejected"]}` or `{"kind": ["create"]}`.
 *
 * When it is published, and why never twice: finish.ts and process-message.ts.
 *
 * ⚠ A topic that refuses (deleted, no permission, unreachable) holds its job back: the message
 * is not deleted until its outcome is published, so it is received again, and on a FIFO queue
 * every later prompt of the same job (its message group) waits behind it until the topic takes
 * the outcome or the message reaches the dead-letter queue (docs/follow-ups.md, "Outcomes topic").
 * `checkOutcomesTopic` therefore checks the topic before the consumer takes any message.
 */
import { GetTopicAttributesCommand, PublishCommand, type SNSClient } from '@aws-sdk/client-sns';
import { ConfigError } from '../shared/errors.js';
import type { FollowUpOutcome } from './outcome.js';
import type { OutcomeStatus } from './state.js';

/**
 * The statuses someone should look at: the filter of the deployment's optional e-mail
 * subscription (context `outcomeEmail`) and the example filter in docs/follow-ups.md.
 */
export const ALERT_STATUSES = ['failed', 'uncertain', 'rejected'] as const satisfies readonly OutcomeStatus[];

/** Publishes one outcome record; throws when the topic did not take it. */
export type OutcomeNotifier = (outcome: FollowUpOutcome) => Promise<void>;

/** SNS subjects are at most 100 printable ASCII characters (e-mail subscriptions show them). */
const MAX_SUBJECT = 100;

/** The Publish request of an outcome (without the topic): the record, its attributes, a subject. */
export function notificationOf(outcome: FollowUpOutcome) {
  return {
    Message: JSON.stringify(outcome),
    Subject:
      `mintlify-exporter ${outcome.kind === 'create' ? 'new job' : 'follow-up'} ${outcome.status}: job ${outcome.job_id ?? '(unknown)'} (${outcome.project_id})`.slice(
        0,
        MAX_SUBJECT,
      ),
    MessageAttributes: {
      status: { DataType: 'String', StringValue: outcome.status },
      kind: { DataType: 'String', StringValue: outcome.kind },
      projectId: { DataType: 'String', StringValue: outcome.project_id },
      ...(outcome.job_id === null ? {} : { jobId: { DataType: 'String', StringValue: outcome.job_id } }),
    },
  } as const;
}

/**
 * A notifier publishing to `topicArn`. A FIFO topic (`….fifo`) gets the job as its group (the
 * request for a new job that never named one) and the request id as its deduplication id, so
 * SNS itself drops a repeat within five minutes.
 */
export function createSnsNotifier(options: { readonly sns: Pick<SNSClient, 'send'>; readonly topicArn: string }): OutcomeNotifier {
  const fifo = options.topicArn.endsWith('.fifo');
  return async (outcome) => {
    await options.sns.send(
      new PublishCommand({
        TopicArn: options.topicArn,
        ...notificationOf(outcome),
        ...(fifo ? { MessageGroupId: outcome.job_id ?? outcome.request_id, MessageDeduplicationId: outcome.request_id } : {}),
      }),
    );
  };
}

/**
 * Checks that the outcomes topic exists and this identity can read it, before any message is
 * taken: one line naming the topic and the fix (`ConfigError`, exit 2) instead of every
 * message of the queue failing, and its job's later prompts waiting, on the first Publish.
 */
export async function checkOutcomesTopic(sns: Pick<SNSClient, 'send'>, topicArn: string, setting: string): Promise<void> {
  try {
    await sns.send(new GetTopicAttributesCommand({ TopicArn: topicArn }));
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    const why =
      name === 'NotFoundException' || name === 'NotFound'
        ? 'does not exist'
        : name === 'AuthorizationErrorException' || name === 'AccessDenied' || name === 'AccessDeniedException'
          ? 'may not be used by this identity (it needs sns:GetTopicAttributes and sns:Publish on it)'
          : `cannot be reached (${error instanceof Error ? error.message : String(error)})`;
    throw new ConfigError(
      `the outcomes topic ${topicArn} (${setting}) ${why}: give the FollowUpOutcomesTopicArn output of the deployment, or leave it out to publish no outcomes`,
      { cause: error },
    );
  }
}
