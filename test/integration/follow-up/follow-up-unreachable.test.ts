/**
 * A follow-up side that cannot reach the API at all — nothing listens on the port, TLS to a
 * plain-HTTP port — stops at once, like `export` does: one line with the cause and
 * MINTLIFY_API_URL, exit 2, and nothing claimed that a run with the right URL could not send.
 * The sandbox and fauxqs on 127.0.0.1; `follow-up` in this process (timed) and as the real bin,
 * `consume` as the real bin.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runFollowUpCommand } from '../../../functions/cli/follow-up.js';
import type { FollowUpCommandIo } from '../../../functions/cli/follow-up-deps.js';
import { ConfigError } from '../../../functions/shared/errors.js';
import { createLocalStore } from '../../../functions/shared/storage/shared-store-local.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runSpawnedCli, spawnCli, waitUntil } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv, SANDBOX_POLLS } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const PROJECT = 'proj_small';

let sandbox: Sandbox;
let aws: S3Sqs;
let scratch: string;

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([startSandbox({ agent: { activeMs: 100 } }), startS3Sqs()]);
  scratch = await makeTempDir('unreachable');
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
  await removeTempDirs();
});

/** `http://127.0.0.1:<port>` where nothing listens any more. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await new Promise((resolve) => server.close(resolve));
  return url;
}

/** The phase of the record the CLI keeps for `requestId` under `destination`. */
async function phaseOf(destination: string, requestId: string): Promise<string | undefined> {
  return (await createLocalStore(join(destination, '.followup-state')).get<{ phase?: string }>(requestId))?.phase;
}

/** `follow-up`'s io against `baseUrl`, its state under `destination`; Ctrl-C after `stopAfterMs` as a safety net. */
function followUpIo(baseUrl: string, destination: string, stopAfterMs = 20_000) {
  const err: string[] = [];
  const out: string[] = [];
  const io: FollowUpCommandIo = {
    stdout: { write: (text: string) => out.push(text) },
    stderr: { write: (text: string) => err.push(text) },
    env: { EXPORT_DESTINATION: destination },
    resolveApiTarget: async () => ({ baseUrl, apiKey: sandbox.apiKey, close: async () => undefined }),
    setExitCode: () => undefined,
    settings: { schedule: { minIntervalMs: 50, fraction: 0.1, maxIntervalMs: 500, jitter: 0 }, grace: { ms: 300, reads: 3 } },
    stopSignal: new Promise<void>((resolve) => setTimeout(resolve, stopAfterMs).unref()),
  };
  return { io, err, out };
}

describe('follow-up when the API cannot be reached', () => {
  it('a closed port: stops within 5 s with the cause and MINTLIFY_API_URL, and leaves the request for a run with the right URL', async () => {
    sandbox.createJob(PROJECT, { id: 'job_unreach_1', status: 'completed', prLink: null });
    const destination = await makeTempDir('unreachable-dest');
    const url = await closedPortUrl();
    const flags = { project: PROJECT, job: 'job_unreach_1', prompt: 'Add a FAQ page', requestId: 'req-unreach-1', wait: true };
    const closed = followUpIo(url, destination);
    const started = Date.now();

    const error = await runFollowUpCommand(flags, closed.io).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    const took = Date.now() - started;
    const phase = await phaseOf(destination, 'req-unreach-1');
    const code = await runFollowUpCommand(flags, followUpIo(sandbox.url, destination).io);

    expect(took).toBeLessThan(5_000);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(
      new RegExp(`^the API at ${url} could not be reached \\(ECONNREFUSED: nothing listens there\\): .*MINTLIFY_API_URL`),
    );
    expect((error as Error).message).not.toContain('\n');
    expect(closed.err.join('')).toBe('');
    expect(phase === undefined || phase === 'pending').toBe(true);
    expect(code).toBe(0);
    expect(sandbox.getJobState(PROJECT, 'job_unreach_1')?.prompts).toHaveLength(1);
  });

  it('the real process at a closed port: exit 2, one line', async () => {
    sandbox.createJob(PROJECT, { id: 'job_unreach_2', status: 'completed', prLink: null });
    const url = await closedPortUrl();

    const run = await runSpawnedCli(['follow-up', '--project', PROJECT, '--job', 'job_unreach_2', '--prompt', 'Add a FAQ page'], {
      ...hostEnv(),
      MINTLIFY_API_URL: url,
      MINTLIFY_API_KEY: sandbox.apiKey,
      EXPORT_DESTINATION: await makeTempDir('unreachable-dest'),
    });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(`^error: the API at ${url} could not be reached \\(ECONNREFUSED: nothing listens there\\): [^\\n]*MINTLIFY_API_URL[^\\n]*\\n$`),
    );
  }, 30_000);

  it('TLS to a plain-HTTP port: stops at once naming the TLS failure', async () => {
    sandbox.createJob(PROJECT, { id: 'job_unreach_3', status: 'completed', prLink: null });
    const url = sandbox.url.replace('http://', 'https://');
    const { io } = followUpIo(url, await makeTempDir('unreachable-dest'));
    const started = Date.now();

    const run = runFollowUpCommand({ project: PROJECT, job: 'job_unreach_3', prompt: 'Add a FAQ page', wait: true }, io);

    await expect(run).rejects.toThrow(new RegExp(`^the API at ${url} could not be reached \\(\\S+: the TLS handshake failed\\): .*MINTLIFY_API_URL`));
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sandbox.getJobState(PROJECT, 'job_unreach_3')?.prompts).toHaveLength(0);
  });
});

describe('consume when the API cannot be reached', () => {
  it('ends by itself: exit 2, one stop summary, the cause and MINTLIFY_API_URL in one line, the message back on the queue unclaimed', async () => {
    // Prepare: a create message (a new job: claimed before its POST) on the queue
    const tag = randomBytes(4).toString('hex');
    const queueUrl = await aws.createQueue(`unreach-${tag}.fifo`, { FifoQueue: 'true' });
    const deadLetterUrl = await aws.createQueue(`unreach-${tag}-dlq.fifo`, { FifoQueue: 'true' });
    const destination = await makeTempDir('unreachable-dest');
    const requestId = `unreach-create-${tag}`;
    const body = JSON.stringify({ projectId: PROJECT, prompt: 'Write a page about webhooks', requestId });
    await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: requestId, MessageDeduplicationId: requestId }));
    const url = await closedPortUrl();
    const before = sandbox.requests.filter((request) => request.route === 'agent-create').length;

    // Act
    const consumer = spawnCli(
      ['consume', '--queue-url', queueUrl, '--wait-seconds', '1'],
      {
        ...hostEnv(),
        ...emulatorAwsEnv(aws.endpoint, scratch),
        MINTLIFY_API_URL: url,
        MINTLIFY_API_KEY: sandbox.apiKey,
        MINTLIFY_PROJECT_IDS: PROJECT,
        EXPORT_DESTINATION: destination,
        FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl,
      },
      { entry: 'bin' },
    );
    const exit = await Promise.race([consumer.exited, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 25_000))]);
    if (exit === undefined) consumer.child.kill('SIGKILL');

    // Assess
    expect(exit?.code, consumer.stderr()).toBe(2);
    const output = `${consumer.stdout()}\n${consumer.stderr()}`;
    expect(output.match(/stopped: /g)).toHaveLength(1);
    expect(consumer.stdout()).not.toContain('consumer stopped');
    const lines = consumer
      .stderr()
      .split('\n')
      .filter((line) => line !== '');
    expect(lines.at(-1)).toMatch(new RegExp(`^error: the API at ${url} could not be reached \\(ECONNREFUSED: nothing listens there\\): .*MINTLIFY_API_URL`));
    expect(lines).toContain('stopped: 1 received — 1 deferred (back on the queue)');
    expect(await phaseOf(destination, requestId)).toBe('pending');
    await waitUntil(async () => (await aws.queueCounts(queueUrl)).visible === 1, 'the message is visible again', 5_000);
    expect(await aws.queueCounts(deadLetterUrl)).toEqual({ visible: 0, inFlight: 0 });
    expect(sandbox.requests.filter((request) => request.route === 'agent-create').length - before).toBe(0);
  }, 40_000);

  it('after the API has answered, a later outage is not a setting: the consumer defers the message and runs on', async () => {
    // Prepare: an API of its own that answers the first prompt, then goes away
    const api = await startSandbox({ agent: { activeMs: 100 } });
    api.createJob(PROJECT, { id: 'job_outage', status: 'completed', prLink: null });
    const tag = randomBytes(4).toString('hex');
    const queueUrl = await aws.createQueue(`outage-${tag}.fifo`, { FifoQueue: 'true' });
    const deadLetterUrl = await aws.createQueue(`outage-${tag}-dlq.fifo`, { FifoQueue: 'true' });
    const prompt = (requestId: string) => JSON.stringify({ projectId: PROJECT, jobId: 'job_outage', prompt: `Tidy the FAQ (${requestId})`, requestId });
    const send = (requestId: string) =>
      aws.sqs.send(
        new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: prompt(requestId), MessageGroupId: requestId, MessageDeduplicationId: requestId }),
      );
    const destination = await makeTempDir('unreachable-dest');
    const consumer = spawnCli(
      ['consume', '--queue-url', queueUrl, '--wait-seconds', '1'],
      {
        ...hostEnv(),
        ...emulatorAwsEnv(aws.endpoint, scratch),
        MINTLIFY_API_URL: api.url,
        MINTLIFY_API_KEY: api.apiKey,
        EXPORT_DESTINATION: destination,
        FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl,
        ...SANDBOX_POLLS,
      },
      { entry: 'bin' },
    );
    try {
      await send(`outage-1-${tag}`);
      await waitUntil(async () => (await phaseOf(destination, `outage-1-${tag}`)) === 'done', `the first prompt is done\n${consumer.stderr()}`, 30_000);

      // Act: the API goes away, and a second prompt arrives
      await api.close();
      await send(`outage-2-${tag}`);
      await waitUntil(async () => (await phaseOf(destination, `outage-2-${tag}`)) === 'pending', `the second prompt waits\n${consumer.stderr()}`, 15_000);
      await new Promise((resolve) => setTimeout(resolve, 1_000));

      // Assess: still running, the prompt deferred (not failed, not dead-lettered)
      expect(consumer.child.exitCode, consumer.stderr()).toBeNull();
      expect(await aws.queueCounts(deadLetterUrl)).toEqual({ visible: 0, inFlight: 0 });
    } finally {
      consumer.child.kill('SIGTERM');
      await consumer.exited;
      await api.close();
    }
    expect(consumer.stderr()).not.toMatch(/^error: /m);
  }, 60_000);
});
