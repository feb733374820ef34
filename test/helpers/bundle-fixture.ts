/**
 * Role: what the bundle tests (test/infra/*-bundle.test.ts) set up alike. `startBundleStand`
 * starts the synth of a test file's context (in this process, functions bundled and cdk-nag's
 * checks run: synth.ts) beside the servers a bundle talks to —
 * the API sandbox when the file needs one, fauxqs (S3, SQS, SNS) and dynalite — all at once,
 * then makes the bucket and the state table, and stops everything in one `close()`.
 * `queueCompletedFollowUp` is the completed-outcome fixture: a completed job scripted in the
 * sandbox and its follow-up prompt queued on a FIFO queue, received as Lambda hands it over;
 * `completedFixOutcome` the record of a job for a gap that completed, which the weekly report judges.
 * `FAST_POLL` is the follow-up function's shortest wait between two polls of a job at the
 * sandbox's pace (a tenth of a second and more; its default is 5 s, which a test only waits out).
 * `followUpQueueId` and `glueTableNames` bind the template's resources that no variable names.
 */
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { buildOutcome, type FollowUpOutcome } from '../../functions/follow-up/outcome.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import type { Assembly } from '../../scripts/lib/bundles.js';
import { startS3Sqs, TEST_REGION, type S3Sqs } from '../../scripts/lib/s3-sqs.js';
import { createStateTable, startDynamo, type Dynamo } from './emulators.js';
import { synthAssemblyInProcess } from './synth.js';

/** The environment that shortens the follow-up function's first wait for a job (FOLLOWUP_POLL_MIN_SECONDS). */
export const FAST_POLL = { FOLLOWUP_POLL_MIN_SECONDS: '0.2' } as const;

export interface BundleStand {
  readonly assembly: Assembly;
  readonly aws: S3Sqs;
  readonly dynamo: Dynamo;
  /** A fresh bucket of `aws`. */
  readonly bucket: string;
  /** A fresh state table of `dynamo` (`pk` string key). */
  readonly table: string;
  /** Removes the assembly and stops the servers. */
  close(): Promise<void>;
}

export interface BundleStandWithSandbox extends BundleStand {
  readonly sandbox: Sandbox;
}

/** The synth of `context`, fauxqs and dynalite (and the sandbox of `sandbox`), started at once. */
export async function startBundleStand(context: Record<string, string>, options: { readonly sandbox: SandboxOptions }): Promise<BundleStandWithSandbox>;
export async function startBundleStand(context: Record<string, string>): Promise<BundleStand>;
export async function startBundleStand(context: Record<string, string>, options: { readonly sandbox?: SandboxOptions } = {}): Promise<BundleStand> {
  const started = await Promise.allSettled([
    synthAssemblyInProcess(context),
    startS3Sqs(),
    startDynamo(),
    options.sandbox === undefined ? Promise.resolve(undefined) : startSandbox(options.sandbox),
  ] as const);
  const [assembly, aws, dynamo, sandbox] = started.map((result) => (result.status === 'fulfilled' ? result.value : undefined)) as [
    Assembly | undefined,
    S3Sqs | undefined,
    Dynamo | undefined,
    Sandbox | undefined,
  ];
  const close = async () => {
    await Promise.all([assembly?.close(), aws?.close(), dynamo?.close(), sandbox?.close()]);
  };
  const failed = started.find((result) => result.status === 'rejected');
  if (failed !== undefined || !assembly || !aws || !dynamo) {
    await close();
    throw failed?.status === 'rejected' ? failed.reason : new Error('the bundle stand did not start');
  }
  const [bucket, table] = await Promise.all([aws.createBucket(), createStateTable(dynamo.client)]);
  return { assembly, aws, dynamo, bucket, table, close, ...(sandbox ? { sandbox } : {}) };
}

type Resources = Assembly['resources'];

/** The logical id of the follow-up function's queue (FIFO, with a dead-letter queue): what its event source reads. */
export function followUpQueueId(resources: Resources): string {
  const [id] = Object.entries(resources).find(
    ([, r]) => r.Type === 'AWS::SQS::Queue' && r.Properties['RedrivePolicy'] !== undefined && r.Properties['FifoQueue'] === true,
  ) ?? [''];
  return id;
}

/** The Glue tables' names by logical id, which their ARNs in the roles' policies are made of. */
export function glueTableNames(resources: Resources): Record<string, string> {
  return Object.fromEntries(
    Object.entries(resources)
      .filter(([, resource]) => resource.Type === 'AWS::Glue::Table')
      .map(([id, resource]) => [id, String((resource.Properties['TableInput'] as { Name: string }).Name)]),
  );
}

/**
 * The outcome record of a job made for the gap `gap-quickstart` of `projectId` that completed on
 * 17 November 2026 with a merged pull request: what the weekly report's bundle judges a verdict on.
 */
export function completedFixOutcome(requestId: string, projectId: string, jobId: string): FollowUpOutcome {
  return buildOutcome({
    requestId,
    projectId,
    jobId,
    kind: 'follow_up',
    gapId: 'gap-quickstart',
    promptLength: 40,
    promptSha256: 'a'.repeat(64),
    status: 'completed',
    prLink: 'https://github.com/acme/docs/pull/9',
    sentAt: Date.parse('2026-11-17T09:00:00Z'),
    finishedAt: Date.parse('2026-11-17T10:00:00Z'),
    polls: 3,
    attempts: 1,
  });
}

export interface CompletedFollowUp {
  /** The FIFO queue the prompt was sent to and received from. */
  readonly queueUrl: string;
  /** A FIFO queue for the function's dead letters. */
  readonly deadLetterUrl: string;
  /** The received message as one SQS record, as Lambda hands it to the function. */
  readonly event: SQSEvent;
}

/**
 * A completed job `jobId` of `projectId` in the sandbox whose next run completes at once with
 * `prLink`, and the follow-up prompt `prompt` for it (`requestId`) sent to a new FIFO queue and
 * received from it, as the event of one record; a FIFO dead-letter queue beside it.
 */
export async function queueCompletedFollowUp(
  aws: S3Sqs,
  sandbox: Sandbox,
  prompt: { readonly projectId: string; readonly jobId: string; readonly prompt: string; readonly requestId: string; readonly prLink: string },
): Promise<CompletedFollowUp> {
  const { projectId, jobId, requestId } = prompt;
  sandbox.createJob(projectId, { id: jobId, status: 'completed' });
  sandbox.scriptNextRun(projectId, jobId, { outcome: 'completed', prLink: prompt.prLink, activeMs: 0 });
  const [deadLetterUrl, queueUrl] = await Promise.all([aws.createQueue(undefined, { FifoQueue: 'true' }), aws.createQueue(undefined, { FifoQueue: 'true' })]);
  const body = JSON.stringify({ projectId, jobId, prompt: prompt.prompt, requestId });
  await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: jobId, MessageDeduplicationId: requestId }));
  const { Messages } = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, AttributeNames: ['All'] }));
  const message = Messages?.[0];
  if (message === undefined) throw new Error(`the follow-up prompt ${requestId} was not received from its queue`);
  const { Attributes } = await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  const event = {
    Records: [
      {
        messageId: message.MessageId ?? '',
        receiptHandle: message.ReceiptHandle ?? '',
        body: message.Body ?? '',
        attributes: {
          ApproximateReceiveCount: '1',
          MessageGroupId: jobId,
          MessageDeduplicationId: requestId,
          SentTimestamp: String(Date.now()),
          SenderId: 'test',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: message.MD5OfBody ?? '',
        eventSource: 'aws:sqs',
        eventSourceARN: Attributes?.['QueueArn'] ?? '',
        awsRegion: TEST_REGION,
      },
    ],
  };
  return { queueUrl, deadLetterUrl, event };
}
