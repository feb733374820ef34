/**
 * Follow-ups of many organisations (issue 53): with an organisations file and no
 * MINTLIFY_API_KEY, `follow-up --project <beta's project>` sends with beta's key only and records
 * its outcome in beta's lake; `consume`, given messages of two organisations and one of a project
 * in none, sends each with its own organisation's key, writes each outcome under that
 * organisation's `orgs/<id>/`, and dead-letters the stray one with `unknown_project`.
 * The CLI runs in this process against the sandbox (two keys) and fauxqs.
 */
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, waitUntil } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv } from '../../helpers/env.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';

const KEYS = { acme: 'mint_acme_follow_0123456789', beta: 'mint_beta_follow_0123456789' } as const;
const FAST = {
  schedule: { minIntervalMs: 50, fraction: 0.1, maxIntervalMs: 500, jitter: 0 },
  grace: { ms: 300, reads: 3 },
  activeDeferMs: 50,
};

let sandbox: Sandbox;
let aws: S3Sqs;
let folder: string;
let env: Record<string, string>;

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([startSandbox({ apiKey: KEYS.acme, moreApiKeys: [KEYS.beta], agent: { activeMs: 100 } }), startS3Sqs()]);
  folder = await makeTempDir('orgs-follow-ups');
  const orgsFile = path.join(folder, 'orgs.json');
  await writeFile(
    orgsFile,
    JSON.stringify({
      organisations: [
        { id: 'acme', apiKeyEnv: 'ACME_MINTLIFY_KEY', projectIds: ['proj_small'] },
        { id: 'beta', apiKeyEnv: 'BETA_MINTLIFY_KEY', projectIds: ['proj_medium'] },
      ],
    }),
  );
  env = {
    ...hostEnv(),
    ...emulatorAwsEnv(aws.endpoint, folder),
    MINTLIFY_API_URL: sandbox.url,
    MINTLIFY_ORGS_FILE: orgsFile,
    ACME_MINTLIFY_KEY: KEYS.acme,
    BETA_MINTLIFY_KEY: KEYS.beta,
    API_TIMEOUT_MS: '5000',
  };
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
  await removeTempDirs();
});

const agentKeys = () => sandbox.requests.filter((entry) => entry.route.startsWith('agent-')).map((entry) => entry.keyIndex);

describe('follow-up with an organisations file', () => {
  it("sends with beta's key only, without MINTLIFY_API_KEY, and records the outcome in beta's lake", async () => {
    sandbox.clearRequests();
    sandbox.createJob('proj_medium', { id: 'job_beta_1', status: 'completed', prLink: null });
    const out = path.join(folder, 'lake-follow-up');
    const run = await runCliInProcess(['follow-up', '--project', 'proj_medium', '--job', 'job_beta_1', '--prompt', 'tidy the FAQ', '--json'], {
      env: { ...env, EXPORT_DESTINATION: out },
      now: Date.now,
      extra: { settings: FAST },
    });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'completed' });
    expect(env['MINTLIFY_API_KEY']).toBeUndefined();
    expect(agentKeys().length).toBeGreaterThan(0);
    expect(new Set(agentKeys())).toEqual(new Set([1]));
    const files = await listFiles(out);
    expect(files.filter((file) => file.includes('followup_outcomes/'))).toEqual([
      expect.stringMatching(/^orgs\/beta\/followup_outcomes\/dt=\d{4}-\d{2}-\d{2}\//),
    ]);
  });
});

describe('consume with an organisations file', () => {
  it('sends each message with its organisation key, writes each outcome under orgs/<id>/, and dead-letters a project of none', async () => {
    sandbox.clearRequests();
    sandbox.createJob('proj_small', { id: 'job_acme_2', status: 'completed', prLink: null });
    sandbox.createJob('proj_medium', { id: 'job_beta_2', status: 'completed', prLink: null });
    const queueUrl = await aws.createQueue();
    const deadLetterUrl = await aws.createQueue();
    const messages = [
      { projectId: 'proj_small', jobId: 'job_acme_2', prompt: 'fix the table', requestId: 'req-acme-2' },
      { org: 'beta', projectId: 'proj_medium', jobId: 'job_beta_2', prompt: 'fix the list', requestId: 'req-beta-2' },
      { projectId: 'proj_large', jobId: 'job_nobody', prompt: 'anything', requestId: 'req-nobody' },
    ];
    for (const message of messages) await aws.sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(message) }));
    const out = path.join(folder, 'lake-consume');
    let stop = (): void => undefined;
    const stopSignal = new Promise<void>((resolve) => (stop = resolve));
    const running = runCliInProcess(['consume', '--queue-url', queueUrl, '--wait-seconds', '1', '--json'], {
      env: { ...env, EXPORT_DESTINATION: out, FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl },
      now: Date.now,
      stopSignal,
      extra: { settings: FAST, clients: { sqs: aws.sqs } },
    });
    const outcomes = async () => (await listFiles(out).catch(() => [])).filter((file) => file.includes('followup_outcomes/'));
    await waitUntil(async () => (await outcomes()).length === 2, 'both outcomes are written', 30_000);
    stop();
    const run = await running;
    expect(run.code, run.stderr).toBe(0);
    const written = await outcomes();
    expect(written.filter((file) => file.startsWith('orgs/acme/followup_outcomes/'))).toHaveLength(1);
    expect(written.filter((file) => file.startsWith('orgs/beta/followup_outcomes/'))).toHaveLength(1);
    // Each job was reached with its own organisation's key, and nothing of the stray project was sent.
    const sent = sandbox.requests.filter((entry) => entry.route === 'agent-message');
    expect(sent.map((entry) => [entry.projectId, entry.keyIndex]).sort()).toEqual([
      ['proj_medium', 1],
      ['proj_small', 0],
    ]);
    expect(sandbox.requests.filter((entry) => entry.projectId === 'proj_large')).toEqual([]);
    const dead = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: deadLetterUrl, MaxNumberOfMessages: 10, MessageAttributeNames: ['All'] }));
    expect(dead.Messages).toHaveLength(1);
    expect(JSON.stringify(dead.Messages?.[0])).toMatch(/unknown_project: project \\"proj_large\\" is in no organisation \(acme, beta\)/);
    expect(await readdir(out)).toEqual(['orgs']);
  }, 60_000);
});
