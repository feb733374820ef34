/**
 * The follow-up side on a laptop, as a user meets it, against fauxqs on 127.0.0.1. A busy port
 * and missing AWS settings are each one line naming the fix (exit 2). Missing AWS settings and
 * `consume` run the real process (the bin): the SDK reads its region and credentials from the
 * process's environment, not the CLI's `env`, and the consumer's records are the process's
 * stdout, stopped by Ctrl-C. `dead-letters` and the busy port run in this process, the former
 * with the emulator's SQS client.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { createSqsDeadLetter } from '../../../functions/follow-up/dead-letter.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, runSpawnedCli, spawnCli, waitUntil } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv, noAwsSetup, SANDBOX_POLLS } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

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
async function queueWithDeadLetters(maxReceiveCount = 5): Promise<{ readonly queueUrl: string; readonly deadLetterUrl: string }> {
  const tag = randomBytes(4).toString('hex');
  const deadLetterUrl = await aws.createQueue(`laptop-${tag}-dlq.fifo`, { FifoQueue: 'true' });
  const redrive = JSON.stringify({ deadLetterTargetArn: `arn:aws:sqs:us-east-1:000000000000:laptop-${tag}-dlq.fifo`, maxReceiveCount });
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
    ...SANDBOX_POLLS,
  };
}

/** `args` in this process with `env` and the emulator's SQS client. */
function queueCli(args: readonly string[], env: Record<string, string>) {
  return runCliInProcess(args, { env, now: Date.now, extra: { clients: { sqs: aws.sqs } } });
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
    const run = await withBusyPort((port) => runCliInProcess(['sandbox', '--port', String(port)], { env: hostEnv(), now: () => Date.now() }));

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
    // No job named: the consumer creates one, and the line names the job it made.
    await send(queueUrl, `create-${tag}`, 'create', JSON.stringify({ projectId: PROJECT, prompt: 'Write a page about webhooks', requestId: `create-${tag}` }));

    // Act
    const consumer = spawnCli(['consume', '--queue-url', queueUrl, '--wait-seconds', '1'], await consumerEnv(), { entry: 'bin' });
    await waitUntil(
      async () => (await aws.queueCounts(deadLetterUrl)).visible === 2 && consumer.stdout().split('"message processed"').length - 1 >= 5,
      `five messages processed\n${consumer.stderr()}`,
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
    expect(processed).toContainEqual(
      expect.objectContaining({ kind: 'create', projectId: PROJECT, requestId: `create-${tag}`, status: 'completed', jobId: expect.any(String) }),
    );
    expect(consumer.stderr()).toMatch(/^stopped: 5 received — 2 completed, 1 failed, 2 rejected \(dead-lettered\)\n$/m);
  }, 40_000);
});

describe('dead-letters', () => {
  /** A dead-letter queue as the consumer and SQS fill it: two prompts the consumer dead-lettered (one job), one SQS moved after its receives ran out. */
  async function filledDeadLetterQueue() {
    const { queueUrl, deadLetterUrl } = await queueWithDeadLetters(1);
    const deadLetter = createSqsDeadLetter({ sqs: aws.sqs, queueUrl: deadLetterUrl });
    const body = (requestId: string, prompt: string) => JSON.stringify({ projectId: PROJECT, jobId: 'job_a', prompt, requestId });
    await deadLetter({
      body: body('first', 'x'.repeat(3)),
      reason: 'rejected: job job_a not found (404)',
      requestId: 'first',
      messageId: 'm-1',
      groupId: 'job_a',
    });
    await deadLetter({ body: body('second', 'y'), reason: 'rejected: out of agent credits (402)', requestId: 'second', messageId: 'm-2', groupId: 'job_a' });
    // Received twice and never deleted: SQS moves it (maxReceiveCount 1).
    await send(queueUrl, 'job_b', 'moved-by-sqs', JSON.stringify({ projectId: PROJECT, jobId: 'job_b', prompt: 'z', requestId: 'moved-by-sqs' }));
    for (let i = 0; i < 2; i++) await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, VisibilityTimeout: 0, WaitTimeSeconds: 0 }));
    await waitUntil(async () => (await aws.queueCounts(deadLetterUrl)).visible === 3, 'SQS moved the third message');
    return { queueUrl, deadLetterUrl };
  }

  it('list shows each message with its reason and leaves every message on the dead-letter queue', async () => {
    const { queueUrl, deadLetterUrl } = await filledDeadLetterQueue();
    const env = await consumerEnv();

    const text = await queueCli(['dead-letters', 'list', '--queue-url', queueUrl], env);
    const json = await queueCli(['dead-letters', 'list', '--queue-url', queueUrl, '--json'], env);

    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('request first (project proj_small, job job_a');
    expect(text.stdout).toContain(': rejected: job job_a not found (404)');
    expect(text.stdout).toMatch(/request moved-by-sqs \(project proj_small, job job_b.*: moved by SQS after 1 receive\(s\) without a delete/);
    // FIFO: the second prompt of job_a waits behind the first, and the listing says so.
    expect(text.stdout).not.toContain('request second');
    expect(text.stderr).toContain('3 message(s) on the dead-letter queue');
    expect(text.stderr).toMatch(/1 more wait behind/);
    expect(text.stderr).toContain(`mintlify-exporter dead-letters redrive --queue-url ${queueUrl}`);
    expect(json.code, json.stderr).toBe(0);
    const listed = JSON.parse(json.stdout) as { deadLetterQueueUrl: string; approximateTotal: number; messages: Record<string, unknown>[] };
    expect(listed.deadLetterQueueUrl).toBe(deadLetterUrl);
    expect(listed.approximateTotal).toBe(3);
    expect(listed.messages).toContainEqual(
      expect.objectContaining({
        requestId: 'first',
        projectId: PROJECT,
        jobId: 'job_a',
        groupId: 'job_a',
        reason: 'rejected: job job_a not found (404)',
        body: expect.any(String),
      }),
    );
    expect(await aws.queueCounts(deadLetterUrl)).toEqual({ visible: 3, inFlight: 0 });
  }, 30_000);

  it('redrive moves every message back to the queue in its message group, and empties the dead-letter queue', async () => {
    const { queueUrl, deadLetterUrl } = await filledDeadLetterQueue();

    const run = await queueCli(['dead-letters', 'redrive', '--queue-url', queueUrl], await consumerEnv());

    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(run.stderr).toContain(`3 of the 3 message(s) present moved back to ${queueUrl}`);
    expect(run.stderr).toContain(`0 message(s) left on the dead-letter queue ${deadLetterUrl}`);
    expect(run.stderr).toContain('at least once');
    expect(await aws.queueCounts(deadLetterUrl)).toEqual({ visible: 0, inFlight: 0 });
    const back = await aws.takeAll(queueUrl);
    expect(back.map((m) => [m.Attributes?.['MessageGroupId'], JSON.parse(m.Body ?? '{}').requestId]).sort()).toEqual([
      ['job_a', 'first'],
      ['job_a', 'second'],
      ['job_b', 'moved-by-sqs'],
    ]);
    // One job's prompts keep their order.
    const jobA = back.filter((m) => m.Attributes?.['MessageGroupId'] === 'job_a').map((m) => JSON.parse(m.Body ?? '{}').requestId);
    expect(jobA).toEqual(['first', 'second']);
  }, 30_000);
});
