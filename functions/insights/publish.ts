/**
 * Messages on the insights topic (`INSIGHTS_TOPIC_ARN`): the weekly report's digest, anomalies
 * and stale datasets. Each is a plain-text body (e-mail subscriptions show it as is) with a
 * subject, and the message attributes `kind` (`weekly-report` | `anomaly` | `stale` | `scope`) and, where
 * one applies, `projectId` — for subscription filter policies, e.g. `{"kind": ["anomaly"]}`.
 */
import { PublishCommand, type SNSClient } from '@aws-sdk/client-sns';

/** `scope`: an agent's pull request out of scope (functions/scope/alert.ts). */
export type InsightKind = 'weekly-report' | 'anomaly' | 'stale' | 'scope';

export interface InsightMessage {
  readonly kind: InsightKind;
  readonly projectId?: string;
  /** The organisation (a deployment for many organisations): a message attribute a subscription can filter on. */
  readonly organisation?: string;
  readonly subject: string;
  readonly body: string;
}

/** SNS: a subject is under 100 printable ASCII characters, without line breaks. */
export const MAX_SUBJECT = 99;

/** The subject as SNS takes it: printable ASCII, one line, at most {@link MAX_SUBJECT} characters. */
export function subjectOf(text: string): string {
  const ascii = text.replace(/[\u2012-\u2015]/g, '-').replace(/[^\x20-\x7e]/g, '');
  return ascii.length <= MAX_SUBJECT ? ascii : `${ascii.slice(0, MAX_SUBJECT - 3)}...`;
}

/** The Publish request of a message (without the topic). */
export function publishInputOf(message: InsightMessage) {
  return {
    Subject: subjectOf(message.subject),
    Message: message.body,
    MessageAttributes: {
      kind: { DataType: 'String', StringValue: message.kind },
      ...(message.projectId !== undefined ? { projectId: { DataType: 'String', StringValue: message.projectId } } : {}),
      ...(message.organisation !== undefined ? { organisation: { DataType: 'String', StringValue: message.organisation } } : {}),
    },
  } as const;
}

/** Publishes to `topicArn`; throws when the topic did not take the message. */
export function createInsightPublisher(options: { readonly sns: Pick<SNSClient, 'send'>; readonly topicArn: string }) {
  return async (message: InsightMessage): Promise<void> => {
    await options.sns.send(new PublishCommand({ TopicArn: options.topicArn, ...publishInputOf(message) }));
  };
}
