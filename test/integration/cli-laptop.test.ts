/**
 * The follow-up side on a laptop, as a user meets it: the real process (the bin) against fauxqs
 * on 127.0.0.1. A busy port and missing AWS settings are each one line naming the fix (exit 2).
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { runSpawnedCli, spawnCli, waitUntil } from '../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../helpers/emulators.js';
import { emulatorAwsEnv, hostEnv, noAwsSetup } from '../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';

const PROJECT = 'proj_small';

let aws: S3Sqs;
let sandbox: Sandbox;
let scratch: string;

beforeAll(async () => {
  [aws, sandbox] = await Promise.all([startS3Sqs(), startSandbox({ agent: { activeMs: 100 } })]);
  scratch = await makeTempDir('cli-laptop');
});

afterAll(async () => {
  await Promise.all([aws?.close(), sandbox?.close()]);
  await removeTempDirs();
});

/** A FIFO queue whose redrive policy names a FIFO dead-letter queue, as the stack makes them. */
async function queueWithDeadLetters(): Promise<{ readonly queueUrl: string; readonly deadLetterUrl: string }> {
  const tag = randomBytes(4).toString('hex');
  const deadLetterUrl = await aws.createQueue(`laptop-${tag}-dlq.fifo`, { FifoQueue: 'true' });
  const redrive = JSON.stringify({ deadLetterTargetArn: `arn:aws:sqs:us-east-1:000000000000:laptop-${tag}-dlq.fifo`, maxReceiveCount: 5 });
  const queueUrl = await aws.createQueue(`laptop-${tag}.fifo`, { FifoQueue: 'true', RedrivePolicy: redrive });
  return { queueUrl, deadLetterUrl };
}

async function send(queueUrl: string, group: string, dedup: string, body: string): Promise<void> {
  await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageGroupId: group, MessageDeduplicationId: dedup, MessageBody: body }));
}

/** The CLI's environment against the sandbox and the emulators. */
async function consumerEnv(): Promise<Record<string, string>> {
  return {
    ...hostEnv(),
    ...emulatorAwsEnv(aws.endpoint, scratch),
    MINTLIFY_API_URL: sandbox.url,
    MINTLIFY_API_KEY: sandbox.apiKey,
    EXPORT_DESTINATION: await makeTempDir('laptop-dest'),
  };
}

/** A port something else listens on, for as long as `use` runs. */
async function withBusyPort<T>(use: (port: number) => Promise<T>): Promise<T> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  try {
    return await use(address.port);
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describe('a busy port', () => {
  it('sandbox says the port is in use and names --port, in one line, exit 2', async () => {
    const run = await withBusyPort((port) => runSpawnedCli(['sandbox', '--port', String(port)], hostEnv(), { entry: 'bin' }));

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: port \d+ on 127\.0\.0\.1 is in use .*--port N, or --port 0 for a free one\n$/);
    expect(run.stdout).toBe('');
  });
});

describe('enqueue without AWS settings', () => {
  it('says in one line what to set, before any request, exit 2', async () => {
    // The URL the emulator gives, and neither a region nor an endpoint: what a new user types first.
    const queueUrl = await aws.createQueue('no-settings.fifo', { FifoQueue: 'true' });

    const run = await runSpawnedCli(
      ['enqueue', '--queue-url', queueUrl, '--project', 'proj_small', '--job', 'job_1', '--prompt', 'Add a FAQ page'],
      { ...hostEnv(), ...noAwsSetup(scratch) },
      { entry: 'bin' },
    );

    expect(run.code).toBe(2);
    expect(run.stderr.split('\n')).toHaveLength(2);
    const port = new URL(queueUrl).port;
    expect(run.stderr).toBe(
      `error: no AWS region: set AWS_REGION=us-east-1 (the queue URL's region), and for an emulator AWS_ENDPOINT_URL_SQS=http://127.0.0.1:${port}\n`,
    );
    expect(await aws.queueCounts(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });
});

describe('consume', () => {
  it('names project, job, status and pull-request link per message, and its summary counts every outcome by kind', async () => {
    // Prepare: one prompt that completes, one whose job fails, two the consumer dead-letters
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters();
    const tag = randomBytes(4).toString('hex');
    sandbox.createJob(PROJECT, { id: `job_ok_${tag}`, status: 'completed', prLink: null });
    sandbox.createJob(PROJECT, { id: `job_bad_${tag}`, status: 'completed', prLink: null });
    const prompt = (jobId: string, text: string, requestId: string) => JSON.stringify({ projectId: PROJECT, jobId, prompt: text, requestId });
    await send(queueUrl, `job_ok_${tag}`, 'ok', prompt(`job_ok_${tag}`, 'Add a FAQ page about SSO', `ok-${tag}`));
    await send(queueUrl, `job_bad_${tag}`, 'bad', prompt(`job_bad_${tag}`, 'Rewrite everything [fail]', `bad-${tag}`));
    await send(queueUrl, 'job_x', 'not-json', 'this is not JSON');
    await send(queueUrl, 'job_y', 'empty', prompt('job_y', '   ', `empty-${tag}`));

    // Act
    const consumer = spawnCli(['consume', '--queue-url', queueUrl, '--wait-seconds', '1'], await consumerEnv(), { entry: 'bin' });
    await waitUntil(
      async () => (await aws.queueCounts(deadLetterUrl)).visible === 2 && consumer.stdout().split('"message processed"').length - 1 >= 4,
      `four messages processed\n${consumer.stderr()}`,
      30_000,
    );
    consumer.child.kill('SIGINT');
    const exit = await consumer.exited;

    // Assess
    expect(exit.code, consumer.stderr()).toBe(0);
    const processed = consumer
      .stdout()
      .split('\n')
      .filter((line) => line.includes('"message processed"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(processed).toContainEqual(
      expect.objectContaining({
        projectId: PROJECT,
        jobId: `job_ok_${tag}`,
        requestId: `ok-${tag}`,
        status: 'completed',
        prLink: expect.stringMatching(/^https:\/\/github\.com\/.+\/pull\/\d+$/),
      }),
    );
    expect(processed).toContainEqual(expect.objectContaining({ projectId: PROJECT, jobId: `job_bad_${tag}`, status: 'failed' }));
    expect(processed).toContainEqual(expect.objectContaining({ jobId: 'job_y', status: 'rejected' }));
    expect(consumer.stderr()).toMatch(/^stopped: 4 received — 1 completed, 1 failed, 2 rejected \(dead-lettered\)\n$/m);
  }, 40_000);
});
