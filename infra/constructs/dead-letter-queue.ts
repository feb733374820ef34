/**
 * A queue where failures wait for a person: the export's failure queue, the organisations'
 * and the follow-ups' dead-letter queues. Encrypted, TLS only, kept the 14 days SQS allows at
 * most; it has no dead-letter queue of its own (cdk-nag's AwsSolutions-SQS3), for the reason
 * each caller gives.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

/** The dead-letter queue `id` in `scope`; `fifo` for a FIFO queue's (content-based deduplication off, as its source's). */
export function deadLetterQueue(scope: Construct, id: string, options: { readonly reason: string; readonly fifo?: boolean }): sqs.Queue {
  const queue = new sqs.Queue(scope, id, {
    ...(options.fifo ? { fifo: true, contentBasedDeduplication: false } : {}),
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: options.reason });
  return queue;
}
