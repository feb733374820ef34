/**
 * `consume --outcomes-topic` checks the topic before it takes any message (issue 28): a topic
 * that does not exist would fail every message's Publish, and hold back every later prompt of
 * its job (the FIFO group waits). The real process (the bin) against fauxqs on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runSpawnedCli } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

let aws: S3Sqs;
let sandbox: Sandbox;

beforeAll(async () => {
  [aws, sandbox] = await Promise.all([startS3Sqs(), startSandbox()]);
});

afterAll(async () => {
  await Promise.all([aws?.close(), sandbox?.close()]);
  await removeTempDirs();
});

describe('consume with an outcomes topic that does not exist', () => {
  it('says so in one line naming the topic, exit 2, and takes no message', async () => {
    const tag = randomBytes(4).toString('hex');
    const queueUrl = await aws.createQueue(`topic-check-${tag}.fifo`, { FifoQueue: 'true' });
    const deadLetterUrl = await aws.createQueue(`topic-check-dlq-${tag}.fifo`, { FifoQueue: 'true' });
    const scratch = await makeTempDir('consume-topic');
    await aws.sqs.send(
      new SendMessageCommand({
        QueueUrl: queueUrl,
        MessageBody: JSON.stringify({ projectId: 'proj_small', jobId: 'job_1', prompt: 'Add a page', requestId: `r-${tag}` }),
        MessageGroupId: 'job_1',
        MessageDeduplicationId: `r-${tag}`,
      }),
    );
    const topicArn = `arn:aws:sns:us-east-1:000000000000:no-such-topic-${tag}`;
    const env = {
      ...hostEnv(),
      ...emulatorAwsEnv(aws.endpoint, scratch),
      MINTLIFY_API_URL: sandbox.url,
      MINTLIFY_API_KEY: sandbox.apiKey,
      EXPORT_DESTINATION: scratch,
      FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl,
    };

    const run = await runSpawnedCli(['consume', '--queue-url', queueUrl, '--wait-seconds', '1', '--outcomes-topic', topicArn], env, { entry: 'bin' });

    expect(run.stderr).toBe(
      `error: the outcomes topic ${topicArn} (--outcomes-topic) does not exist: give the FollowUpOutcomesTopicArn output of the deployment, or leave it out to publish no outcomes\n`,
    );
    expect(run.code).toBe(2);
    const { visible, inFlight } = await aws.queueCounts(queueUrl);
    expect({ visible, inFlight }).toEqual({ visible: 1, inFlight: 0 });
  });
});
