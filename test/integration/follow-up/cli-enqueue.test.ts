/**
 * The producer's side as a user runs it: `mintlify-exporter enqueue` and `consume
 * --outcomes-topic` against fauxqs (SQS + SNS) and the API sandbox on 127.0.0.1, with the
 * environment a user would set. In this process (`runCliInProcess`, the emulator's clients given),
 * and one real process (the bin) whose SQS client is built from that environment alone: a queue
 * named by its URL, no AWS_ENDPOINT_URL_SQS.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReceiveMessageCommand, type Message } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, runSpawnedCli } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv } from '../../helpers/env.js';

const PROJECT = 'proj_small';

let aws: S3Sqs;
let sandbox: Sandbox;
let scratch: string;

beforeAll(async () => {
  [aws, sandbox] = await Promise.all([startS3Sqs(), startSandbox({ agent: { activeMs: 100 } })]);
  scratch = await mkdtemp(join(tmpdir(), 'cli-enqueue-'));
});

afterAll(async () => {
  await Promise.all([aws?.close(), sandbox?.close()]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The environment of a user pointing the CLI at the emulators: nothing from this machine's AWS setup. */
function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  return { ...hostEnv(), ...emulatorAwsEnv(aws.endpoint, scratch), ...extra };
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the CLI in this process to its end, with the emulator's clients and `stdin` as what `--file -` reads. */
async function cli(args: readonly string[], options: { env?: Record<string, string>; stdin?: string } = {}): Promise<Run> {
  return runCliInProcess(args, {
    env: userEnv(options.env),
    now: Date.now,
    extra: { clients: { sqs: aws.sqs, sns: aws.sns }, stdin: [Buffer.from(options.stdin ?? '')] },
  });
}

async function fifoQueue(): Promise<string> {
  return aws.createQueue(`enqueue-${randomBytes(4).toString('hex')}`, { FifoQueue: 'true' });
}

/** Messages in a queue, visible or in flight. */
async function countIn(queueUrl: string): Promise<number> {
  const { visible, inFlight } = await aws.queueCounts(queueUrl);
  return visible + inFlight;
}

async function jsonl(name: string, lines: readonly (object | string)[]): Promise<string> {
  const file = join(scratch, name);
  await writeFile(file, `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`);
  return file;
}

describe('mintlify-exporter enqueue', () => {
  it('refuses the whole file on a bad line, naming the line and the reason, and queues nothing', async () => {
    const queueUrl = await fifoQueue();
    const file = await jsonl('bad.jsonl', [
      { projectId: PROJECT, jobId: 'job_1', prompt: 'Add a FAQ page', requestId: 'bad-1' },
      { projectId: PROJECT, jobId: 'job_2', prompt: '   ', requestId: 'bad-2' },
      { projectId: PROJECT, jobId: 'job_3', prompt: 'Fix the typo', requestId: 'bad-3' },
    ]);

    const run = await cli(['enqueue', '--queue-url', queueUrl, '--file', file]);

    expect(run.code).toBe(2);
    expect(run.stderr).toBe(`error: ${file} refused, nothing was sent: line 2: prompt is empty\n`);
    expect(run.stdout).toBe('');
    expect(await countIn(queueUrl)).toBe(0);
  });

  it('enqueues a good file with the job as group and the request id as deduplication id, and the same file again adds nothing', async () => {
    const queueUrl = await fifoQueue();
    const file = await jsonl('good.jsonl', [
      { projectId: PROJECT, jobId: 'job_a', prompt: 'Add a FAQ page about SSO', requestId: 'faq-sso-1' },
      '',
      { jobId: 'job_b', prompt: 'Document the new rate limits' },
      { projectId: PROJECT, jobId: 'job_a', prompt: 'Link the FAQ from the quickstart', requestId: 'faq-sso-2' },
    ]);
    const env = { MINTLIFY_PROJECT_IDS: PROJECT };

    const first = await cli(['enqueue', '--queue-url', queueUrl, '--file', file], { env });
    const again = await cli(['enqueue', '--queue-url', queueUrl, '--file', file], { env });

    expect(first.code, first.stderr).toBe(0);
    const made = /line 3: accepted request (\S+) for job job_b/.exec(first.stdout)?.[1];
    expect(made).toMatch(/^f[0-9a-f]{20}-3$/);
    expect(first.stdout).toBe(
      [
        `line 1: accepted request faq-sso-1 for job job_a (project ${PROJECT})`,
        `line 3: accepted request ${made} for job job_b (project ${PROJECT})`,
        `line 4: accepted request faq-sso-2 for job job_a (project ${PROJECT})`,
        '',
      ].join('\n'),
    );
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toBe(first.stdout);
    // SQS answers success for a deduplication id it took in the last 5 minutes and drops the
    // message: the summary says so instead of counting the prompts as enqueued again.
    expect(again.stderr).toBe(
      `3 prompt(s) accepted by ${queueUrl}; the queue drops a request id it already took in the last 5 minutes (and answers success all the same), and the consumer never sends a request id twice\n`,
    );
    expect(again.stderr).not.toMatch(/enqueued/);
    expect(await countIn(queueUrl)).toBe(3);
    const messages = await aws.takeAll(queueUrl);
    expect(
      messages
        .map((m) => ({ group: m.Attributes?.['MessageGroupId'], dedup: m.Attributes?.['MessageDeduplicationId'], body: JSON.parse(m.Body ?? '') as unknown }))
        .sort((a, b) => String(a.dedup).localeCompare(String(b.dedup))),
    ).toEqual(
      [
        { group: 'job_a', dedup: 'faq-sso-1', body: { projectId: PROJECT, jobId: 'job_a', prompt: 'Add a FAQ page about SSO', requestId: 'faq-sso-1' } },
        {
          group: 'job_a',
          dedup: 'faq-sso-2',
          body: { projectId: PROJECT, jobId: 'job_a', prompt: 'Link the FAQ from the quickstart', requestId: 'faq-sso-2' },
        },
        { group: 'job_b', dedup: made, body: { projectId: PROJECT, jobId: 'job_b', prompt: 'Document the new rate limits', requestId: made } },
      ].sort((a, b) => String(a.dedup).localeCompare(String(b.dedup))),
    );
  });

  it('enqueues one prompt given by flags and prints the request id it made', async () => {
    const queueUrl = await fifoQueue();

    const run = await cli(['enqueue', '--queue-url', queueUrl, '--job', 'job_flags', '--prompt', 'Add a changelog entry'], {
      env: { MINTLIFY_PROJECT_IDS: PROJECT },
    });

    expect(run.code, run.stderr).toBe(0);
    const requestId = /^accepted request (\S+) for job job_flags \(project proj_small\)\n$/.exec(run.stdout)?.[1];
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(run.stderr).toContain(`--request-id ${requestId}`);
    const [message] = await aws.takeAll(queueUrl);
    expect(JSON.parse(message?.Body ?? '')).toEqual({ projectId: PROJECT, jobId: 'job_flags', prompt: 'Add a changelog entry', requestId });
    expect(message?.Attributes).toMatchObject({ MessageGroupId: 'job_flags', MessageDeduplicationId: requestId });
  });

  it('reads the messages from stdin with --file - and prints one JSON object with --json', async () => {
    const queueUrl = await fifoQueue();
    const stdin = `${JSON.stringify({ projectId: PROJECT, jobId: 'job_c', prompt: 'Tighten the intro', requestId: 'stdin-1' })}\n`;

    const run = await cli(['enqueue', '--queue-url', queueUrl, '--file', '-', '--json'], { stdin });

    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      queueUrl,
      enqueued: [{ line: 1, requestId: 'stdin-1', requestIdMade: false, projectId: PROJECT, jobId: 'job_c', messageId: expect.any(String) }],
      notSent: [],
    });
    expect(await countIn(queueUrl)).toBe(1);
  });

  it('refuses a queue that is not FIFO with one line, sending nothing', async () => {
    const queueUrl = await aws.createQueue(`standard-${randomBytes(4).toString('hex')}`);

    const run = await cli(['enqueue', '--queue-url', queueUrl, '--project', PROJECT, '--job', 'job_d', '--prompt', 'x']);

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: queue \S+ is not a FIFO queue: .*FollowUpQueueUrl.*\n$/);
    expect(run.stderr.split('\n')).toHaveLength(2);
    expect(await countIn(queueUrl)).toBe(0);
  });

  it("says only its own line when the queue is named by its URL alone (no AWS_ENDPOINT_URL_SQS): no notice of the SDK's", async () => {
    // A queue URL on an emulator of this machine (one fauxqs does not hold: it names its own
    // queues by a host that does not resolve here), and no endpoint variable beside it.
    const queueUrl = `${aws.endpoint}/000000000000/missing-${randomBytes(4).toString('hex')}.fifo`;
    const { AWS_ENDPOINT_URL_SQS: _, ...env } = userEnv();

    const run = await runSpawnedCli(['enqueue', '--queue-url', queueUrl, '--project', PROJECT, '--job', 'job_e', '--prompt', 'x'], env, {
      entry: 'bin',
      stdin: '',
    });

    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^error: queue \S+ does not exist: .*FollowUpQueueUrl.*\n$/);
    expect(run.stderr.split('\n')).toHaveLength(2);
  });
});

describe('mintlify-exporter consume --outcomes-topic', () => {
  it('publishes every outcome once, with status, projectId and jobId, to an SQS subscription of the topic', async () => {
    // Prepare: prompts enqueued with the CLI, a topic with a subscriber queue
    const tag = randomBytes(4).toString('hex');
    const ok = `job_notify_ok_${tag}`;
    const bad = `job_notify_bad_${tag}`;
    sandbox.createJob(PROJECT, { id: ok });
    sandbox.createJob(PROJECT, { id: bad });
    const queueUrl = await fifoQueue();
    const deadLetterUrl = await fifoQueue();
    const { topicArn: TopicArn, subscriber } = await aws.createTopicWithSubscriber();
    const file = await jsonl(`notify-${tag}.jsonl`, [
      { projectId: PROJECT, jobId: ok, prompt: 'Add a page', requestId: `ok-${tag}` },
      { projectId: PROJECT, jobId: bad, prompt: 'Break it [fail]', requestId: `bad-${tag}` },
    ]);
    const dest = await mkdtemp(join(scratch, 'dest-'));
    const env = {
      MINTLIFY_API_URL: sandbox.url,
      MINTLIFY_API_KEY: sandbox.apiKey,
      EXPORT_DESTINATION: dest,
      FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl,
    };
    expect((await cli(['enqueue', '--queue-url', queueUrl, '--file', file])).code).toBe(0);

    // Act
    let stop = (): void => undefined;
    const consumer = runCliInProcess(['consume', '--queue-url', queueUrl, '--wait-seconds', '1', '--outcomes-topic', TopicArn ?? ''], {
      env: userEnv(env),
      now: Date.now,
      stopSignal: new Promise<void>((resolve) => (stop = resolve)),
      extra: { clients: { sqs: aws.sqs, sns: aws.sns } },
    });
    let ended = false;
    void consumer.finally(() => (ended = true));
    const received: Message[] = [];
    const deadline = Date.now() + 30_000;
    while (received.length < 2 && Date.now() < deadline && !ended) {
      const { Messages = [] } = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: subscriber, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
      received.push(...Messages);
    }
    // Nothing more arrives once both are done: no second publish of either outcome.
    const { Messages: late = [] } = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: subscriber, MaxNumberOfMessages: 10, WaitTimeSeconds: 2 }));
    stop();
    const { code, stderr } = await consumer;

    // Assess
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`publishing every outcome to ${TopicArn}`);
    const notifications = [...received, ...late].map((m) => {
      const envelope = JSON.parse(m.Body ?? '{}') as { Message: string; MessageAttributes: Record<string, { Value: string }> };
      return {
        record: JSON.parse(envelope.Message) as Record<string, unknown>,
        attributes: Object.fromEntries(Object.entries(envelope.MessageAttributes).map(([name, value]) => [name, value.Value])),
      };
    });
    expect(notifications.map((n) => n.attributes).sort((a, b) => String(a['jobId']).localeCompare(String(b['jobId'])))).toEqual([
      { status: 'failed', kind: 'follow_up', projectId: PROJECT, jobId: bad },
      { status: 'completed', kind: 'follow_up', projectId: PROJECT, jobId: ok },
    ]);
    expect(notifications.find((n) => n.attributes['jobId'] === ok)?.record).toMatchObject({
      request_id: `ok-${tag}`,
      project_id: PROJECT,
      job_id: ok,
      status: 'completed',
      pr_link: expect.stringMatching(/\/pull\/\d+$/),
    });
  });
});
