/**
 * `mintlify-exporter consume` as a real process: the bin is spawned with the same environment
 * a user would set (MINTLIFY_API_URL/KEY, EXPORT_DESTINATION, the AWS endpoint variables)
 * against the API sandbox and fauxqs on 127.0.0.1, and stopped with real signals.
 *
 * The child may only open connections to loopback (a preload refuses everything else), so a
 * missed endpoint override fails the test instead of reaching AWS or the real API.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStore } from '../../../functions/shared/storage/shared-store-local.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { spawnCli, type CliChild } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv, SANDBOX_POLLS } from '../../helpers/env.js';

const PROJECT = 'proj_small';

/**
 * A preload that refuses every non-loopback TCP connection and name lookup in the child
 * (fetch and the AWS SDK both go through net and dns), so nothing can leave this machine.
 * With `dotLocalhost`, names under `.localhost` resolve to 127.0.0.1 as RFC 6761 specifies
 * (systemd-resolved does so, glibc alone does not): fauxqs names its queues that way.
 */
function loopbackOnly(dotLocalhost: boolean): string {
  return `import dns from 'node:dns';
import net from 'node:net';
const loopback = new Set(['127.0.0.1', '::1', 'localhost']);
const lookup = dns.lookup;
dns.lookup = function (hostname, ...rest) {
  if (loopback.has(hostname)) return lookup.call(this, hostname, ...rest);
  if (${dotLocalhost} && hostname.endsWith('.localhost')) return lookup.call(this, '127.0.0.1', ...rest);
  const callback = rest[rest.length - 1];
  const error = Object.assign(new Error('test: lookup of ' + hostname + ' refused (loopback only)'), { code: 'ENOTFOUND', hostname });
  process.nextTick(() => callback(error));
  return {};
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  const host = options.host ?? 'localhost';
  if (options.path === undefined && !loopback.has(host) && !(${dotLocalhost} && host.endsWith('.localhost'))) {
    process.nextTick(() => this.destroy(new Error('test: connection to ' + host + ' refused (loopback only)')));
    return this;
  }
  return connect.apply(this, args);
};
`;
}

let sandbox: Sandbox;
let aws: S3Sqs;
let scratch: string;
/** Preloads: loopback only, with and without `.localhost` names resolving. */
let preloads: { readonly dotLocalhost: string; readonly strict: string };
/** Added to the sandbox's clock: lets a test end a long agent run without waiting for it. */
let clockOffsetMs = 0;
/** A key unique to this run, so finding it in an output can only mean a leak. */
const apiKey = `mint_test_${randomBytes(12).toString('hex')}`;
/** Every consumer process started, for the leak checks. */
const consumers: Consumer[] = [];
/** Every destination directory handed to a consumer, for the leak checks. */
const destinations: string[] = [];
/** Every prompt enqueued, for the leak checks. */
const prompts: string[] = [];

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([startSandbox({ apiKey, agent: { activeMs: 200 }, now: () => Date.now() + clockOffsetMs }), startS3Sqs()]);
  scratch = await mkdtemp(join(tmpdir(), 'cli-consume-'));
  preloads = { dotLocalhost: join(scratch, 'loopback-dot-localhost.mjs'), strict: join(scratch, 'loopback-strict.mjs') };
  await writeFile(preloads.dotLocalhost, loopbackOnly(true));
  await writeFile(preloads.strict, loopbackOnly(false));
});

afterAll(async () => {
  for (const consumer of consumers) if (consumer.child.exitCode === null && consumer.child.signalCode === null) consumer.child.kill('SIGKILL');
  await Promise.all([sandbox?.close(), aws?.close()]);
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

type Exit = Awaited<CliChild['exited']>;

interface Consumer extends CliChild {
  /** Sends `signal` and resolves with the exit and how long it took (ms). */
  stop(signal: NodeJS.Signals): Promise<Exit & { readonly ms: number }>;
}

/** Spawns `node bin/mintlify-exporter.js consume --queue-url URL --wait-seconds 1`. */
function startConsumer(queueUrl: string, env: Record<string, string>, options: { readonly dotLocalhost?: boolean } = {}): Consumer {
  const preload = options.dotLocalhost === false ? preloads.strict : preloads.dotLocalhost;
  const cli = spawnCli(
    ['consume', '--queue-url', queueUrl, '--wait-seconds', '1'],
    {
      ...hostEnv(),
      // Nothing from this machine's AWS setup may leak in: dummy credentials, no files, no IMDS.
      ...emulatorAwsEnv(aws.endpoint, scratch),
      MINTLIFY_API_URL: sandbox.url,
      MINTLIFY_API_KEY: apiKey,
      MINTLIFY_PROJECT_IDS: PROJECT,
      // The most verbose logs give a leak the most chances to show.
      POWERTOOLS_LOG_LEVEL: 'DEBUG',
      ...SANDBOX_POLLS,
      ...env,
    },
    { entry: 'bin', nodeArgs: ['--import', pathToFileURL(preload).href] },
  );
  const { child, exited } = cli;
  const consumer: Consumer = {
    ...cli,
    async stop(signal) {
      const started = Date.now();
      child.kill(signal);
      const exit = await Promise.race([exited, delay(10_000).then(() => ({ code: null, signal: null }))]);
      return { ...exit, ms: Date.now() - started };
    },
  };
  consumers.push(consumer);
  return consumer;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `probe` every 50 ms until it returns a value; fails with the consumer's output after `timeoutMs`. */
async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, consumer: Consumer, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (consumer.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(
        `${what}: not seen after ${timeoutMs} ms (consumer exit ${consumer.child.exitCode})\n--- stderr\n${consumer.stderr()}\n--- stdout\n${consumer.stdout().slice(-4000)}`,
      );
    }
    await delay(50);
  }
}

/** Every file under `dir` (dot-directories included), as paths. */
async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** `followup_outcomes/dt=…/<requestId>.json` records, by requestId. */
async function outcomesIn(dir: string): Promise<Map<string, Record<string, unknown>>> {
  const outcomes = new Map<string, Record<string, unknown>>();
  for (const file of await filesUnder(join(dir, 'followup_outcomes'))) {
    const match = /dt=\d{4}-\d{2}-\d{2}[\\/]([^\\/]+)\.json$/.exec(file);
    if (match) outcomes.set(match[1] as string, JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>);
  }
  return outcomes;
}

/** The follow-up record the CLI keeps for `requestId` in its local state folder. */
async function stateOf(dir: string, requestId: string): Promise<Record<string, unknown> | undefined> {
  return createLocalStore(join(dir, '.followup-state')).get<Record<string, unknown>>(requestId);
}

/** Visible plus in-flight messages of a queue. */
function messagesIn(queueUrl: string): Promise<{ readonly visible: number; readonly inFlight: number }> {
  return aws.queueCounts(queueUrl);
}

async function enqueue(queueUrl: string, groupId: string, dedupId: string, body: string): Promise<void> {
  await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, MessageGroupId: groupId, MessageDeduplicationId: dedupId }));
}

function followUp(jobId: string, requestId: string, text: string): string {
  prompts.push(text);
  return JSON.stringify({ projectId: PROJECT, jobId, prompt: text, requestId });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

async function newDestination(): Promise<string> {
  const dir = await mkdtemp(join(scratch, 'dest-'));
  destinations.push(dir);
  return dir;
}

describe('mintlify-exporter consume (a real process)', () => {
  it('sends each FIFO prompt once and in order, records the outcomes, dead-letters a malformed message and exits 0 on SIGTERM', async () => {
    // Prepare
    const tag = randomBytes(4).toString('hex');
    const jobId = `job_consume_${tag}`;
    sandbox.createJob(PROJECT, { id: jobId, status: 'completed', prLink: null });
    const queueUrl = await aws.createQueue(`consume-${tag}`, { FifoQueue: 'true' });
    const deadLetterUrl = await aws.createQueue(`consume-${tag}-dlq`, { FifoQueue: 'true' });
    const first = `Add a FAQ page about single sign-on, marker ${tag}-one`;
    const second = `Link the new SSO FAQ from the quickstart, marker ${tag}-two`;
    await enqueue(queueUrl, jobId, `req-${tag}-1`, followUp(jobId, `req-${tag}-1`, first));
    await enqueue(queueUrl, jobId, `req-${tag}-2`, followUp(jobId, `req-${tag}-2`, second));
    await enqueue(
      queueUrl,
      'job_malformed',
      `req-${tag}-bad`,
      JSON.stringify({ projectId: PROJECT, jobId: 'job_malformed', prompt: '   ', requestId: `req-${tag}-bad` }),
    );
    const dest = await newDestination();

    // Act
    const consumer = startConsumer(queueUrl, { EXPORT_DESTINATION: dest, FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl });
    const outcomes = await waitFor(
      'two outcome files',
      async () => {
        const found = await outcomesIn(dest);
        return found.size >= 2 ? found : undefined;
      },
      consumer,
      25_000,
    );
    await waitFor(
      'an empty source queue',
      async () => {
        const count = await messagesIn(queueUrl);
        return count.visible === 0 && count.inFlight === 0 ? count : undefined;
      },
      consumer,
    );
    const exit = await consumer.stop('SIGTERM');

    // Assess
    const job = sandbox.getJobState(PROJECT, jobId);
    expect(job?.prompts.map((p) => p.promptSha256)).toEqual([sha256(first), sha256(second)]);
    expect(job?.violations).toEqual([]);
    expect(sandbox.requests.filter((r) => r.route === 'agent-message' && r.jobId === jobId)).toHaveLength(2);
    expect([...outcomes.keys()].sort()).toEqual([`req-${tag}-1`, `req-${tag}-2`]);
    for (const outcome of outcomes.values()) {
      expect(outcome).toMatchObject({
        project_id: PROJECT,
        job_id: jobId,
        status: 'completed',
        pr_link: expect.stringMatching(/^https:\/\/github\.com\/.+\/pull\/\d+$/),
      });
    }
    expect(outcomes.get(`req-${tag}-1`)?.['prompt_sha256']).toBe(sha256(first));
    const { Messages } = await aws.sqs.send(
      new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'], WaitTimeSeconds: 0 }),
    );
    expect(
      Messages?.map((m) => ({ requestId: m.MessageAttributes?.['requestId']?.StringValue, reason: m.MessageAttributes?.['reason']?.StringValue })),
    ).toEqual([{ requestId: `req-${tag}-bad`, reason: expect.stringMatching(/^malformed message: .*prompt is empty/) }]);
    expect(exit, consumer.stderr()).toEqual({ code: 0, signal: null, ms: expect.any(Number) });
    // Before its long poll (20 s) or the message's visibility (30 s) could end it; 5 s holds under load.
    expect(exit.ms).toBeLessThan(5_000);
  });

  it('on SIGINT mid-poll exits 0 and keeps the message, and a second consumer finishes it without a second POST', async () => {
    // Prepare: a run that stays active for a minute of the sandbox's clock
    const tag = randomBytes(4).toString('hex');
    const jobId = `job_interrupt_${tag}`;
    const requestId = `req-${tag}-3`;
    const prLink = `https://github.com/sandbox-docs/small-docs/pull/9${parseInt(tag.slice(0, 4), 16)}`;
    sandbox.createJob(PROJECT, { id: jobId, status: 'completed', prLink: null });
    sandbox.scriptNextRun(PROJECT, jobId, { outcome: 'completed', prLink, activeMs: 60_000 });
    // The dead-letter queue comes from the queue's redrive policy this time (no env variable).
    const deadLetterUrl = await aws.createQueue(`interrupt-${tag}-dlq`, { FifoQueue: 'true' });
    const { Attributes } = await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterUrl, AttributeNames: ['QueueArn'] }));
    const queueUrl = await aws.createQueue(`interrupt-${tag}`, {
      FifoQueue: 'true',
      VisibilityTimeout: '30',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.['QueueArn'], maxReceiveCount: 10 }),
    });
    const text = `Rewrite the billing overview for the new plans, marker ${tag}-long`;
    await enqueue(queueUrl, jobId, requestId, followUp(jobId, requestId, text));
    const dest = await newDestination();

    // Act 1: interrupt while the prompt is sent and its job still active
    const first = startConsumer(queueUrl, { EXPORT_DESTINATION: dest });
    await waitFor('the state record to say sent', async () => ((await stateOf(dest, requestId))?.['phase'] === 'sent' ? true : undefined), first);
    const interrupted = await first.stop('SIGINT');

    // Assess 1: prompt in flight, nothing lost, nothing recorded as finished
    expect(interrupted, first.stderr()).toEqual({ code: 0, signal: null, ms: expect.any(Number) });
    // Before its long poll (20 s) or the message's visibility (30 s) could end it; 5 s holds under load.
    expect(interrupted.ms).toBeLessThan(5_000);
    expect(await stateOf(dest, requestId)).toMatchObject({ phase: 'sent' });
    const left = await messagesIn(queueUrl);
    expect(left.visible + left.inFlight).toBe(1);
    expect(await outcomesIn(dest)).toEqual(new Map());
    expect(sandbox.getJobState(PROJECT, jobId)?.status).toBe('active');

    // Act 2: the run ends; a new consumer picks the message up again
    clockOffsetMs += 61_000;
    const second = startConsumer(queueUrl, { EXPORT_DESTINATION: dest });
    const outcome = await waitFor('the outcome file', async () => (await outcomesIn(dest)).get(requestId), second, 45_000);
    await waitFor(
      'an empty source queue',
      async () => {
        const count = await messagesIn(queueUrl);
        return count.visible === 0 && count.inFlight === 0 ? count : undefined;
      },
      second,
    );
    const stopped = await second.stop('SIGTERM');

    // Assess 2: one POST in all, the outcome of that run recorded
    const job = sandbox.getJobState(PROJECT, jobId);
    expect(job?.prompts.map((p) => p.promptSha256)).toEqual([sha256(text)]);
    expect(job?.violations).toEqual([]);
    expect(sandbox.requests.filter((r) => r.route === 'agent-message' && r.jobId === jobId)).toHaveLength(1);
    expect(outcome).toMatchObject({ request_id: requestId, status: 'completed', pr_link: prLink, attempts: 1 });
    expect(await stateOf(dest, requestId)).toMatchObject({ phase: 'done', outcome: 'completed' });
    expect(stopped, second.stderr()).toEqual({ code: 0, signal: null, ms: expect.any(Number) });
  }, 60_000);

  it('reaches the queue at AWS_ENDPOINT_URL_SQS even when the queue URL names a host that does not resolve', async () => {
    // Prepare: fauxqs's own queue URLs (sqs.<region>.localhost), and a child where such names
    // do not resolve (glibc without systemd-resolved): only the endpoint variable leads to the queue.
    const tag = randomBytes(4).toString('hex');
    const queueUrl = await aws.createQueue(`endpoint-${tag}`, { FifoQueue: 'true' });
    const deadLetterUrl = await aws.createQueue(`endpoint-${tag}-dlq`, { FifoQueue: 'true' });
    expect(new URL(queueUrl).hostname).not.toBe(new URL(aws.endpoint).hostname);
    await enqueue(queueUrl, 'job_malformed', `req-${tag}-bad`, 'not json');
    const dest = await newDestination();

    // Act
    const consumer = startConsumer(queueUrl, { EXPORT_DESTINATION: dest, FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl }, { dotLocalhost: false });
    const deadLettered = await waitFor(
      'the malformed message in the dead-letter queue',
      async () => {
        const count = await messagesIn(deadLetterUrl);
        return count.visible > 0 ? count.visible : undefined;
      },
      consumer,
      8_000,
    ).finally(() => consumer.stop('SIGTERM'));

    // Assess
    expect(deadLettered).toBe(1);
    expect(await messagesIn(queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('never writes the API key or a prompt text to stdout, stderr or any file', async () => {
    // Prepare: what the earlier consumers printed and wrote (this test reads their traces)
    expect(consumers.length, 'run the whole file: this test checks the traces of the tests above').toBeGreaterThan(0);
    const files = (await Promise.all(destinations.map(filesUnder))).flat();
    const written = await Promise.all(files.map(async (file) => ({ file, text: await readFile(file, 'utf8') })));
    // The search sees the right material: prompts are identified there by their hash.
    expect(written.map((w) => w.text).join('\n')).toContain(sha256(prompts[0] as string));
    expect(consumers.map((c) => c.stdout()).join('\n')).toContain(sha256(prompts[0] as string));

    // Act
    const traces = [
      ...consumers.flatMap((c, i) => [
        { where: `consumer ${i} stdout`, text: c.stdout() },
        { where: `consumer ${i} stderr`, text: c.stderr() },
      ]),
      ...written.map((w) => ({ where: w.file, text: w.text })),
    ];
    const leaks = traces.flatMap(({ where, text }) => [
      ...(text.includes(apiKey) ? [`${where}: the API key`] : []),
      ...prompts.filter((prompt) => text.includes(prompt) || text.includes(prompt.slice(-16))).map((prompt) => `${where}: prompt "${prompt.slice(-16)}"`),
    ]);

    // Assess
    expect(leaks).toEqual([]);
  });
});
