/**
 * The loop as a user runs it, every step a real process (the bin) on loopback: `gaps
 * --prompts` over a sandbox export → `enqueue --file` on a FIFO queue (fauxqs) → `consume`
 * creates one job per prompt in the sandbox and records its outcome with kind and gap →
 * `gaps` again marks those gaps done and writes no prompt for them.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gap } from '../../../functions/gaps/gaps.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliAt, runSpawnedCli, spawnCli, waitUntil } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv, SANDBOX_POLLS } from '../../helpers/env.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';

const PROJECT = 'proj_small';
const FROM = '2026-01-10';
const TO = '2026-01-12';

let aws: S3Sqs;
let sandbox: Sandbox;
let dest: string;

beforeAll(async () => {
  [aws, sandbox] = await Promise.all([startS3Sqs(), startSandbox({ agent: { activeMs: 200 } })]);
  dest = await makeTempDir('gaps-loop');
  const args = [
    'export',
    '--from',
    FROM,
    '--to',
    TO,
    '--project',
    PROJECT,
    '--out',
    dest,
    '--dataset',
    'searches',
    '--dataset',
    'feedback',
    '--dataset',
    'assistant',
  ];
  const { code, stderr } = await runCliAt(sandbox, args, { now: Date.UTC(2026, 0, 20) });
  expect(code, stderr).toBe(0);
}, 120_000);

afterAll(async () => {
  await Promise.all([aws?.close(), sandbox?.close()]);
  await removeTempDirs();
});

function env(): Record<string, string> {
  return {
    ...hostEnv(),
    ...emulatorAwsEnv(aws.endpoint, dest),
    HOME: dest,
    MINTLIFY_API_URL: sandbox.url,
    MINTLIFY_API_KEY: sandbox.apiKey,
    MINTLIFY_PROJECT_IDS: PROJECT,
    EXPORT_DESTINATION: dest,
  };
}

/** The outcome records under the destination. */
async function outcomeFiles(): Promise<string[]> {
  return (await listFiles(join(dest, 'followup_outcomes'))).filter((file) => file.endsWith('.json'));
}

const cli = (args: readonly string[]) => runSpawnedCli(args, env(), { entry: 'bin' });

describe('gaps → prompts → enqueue → consume → gaps (real processes)', () => {
  it('creates one job per reviewed prompt, records kind create with the gap, and then leaves those gaps out', async () => {
    const promptsFile = join(dest, 'prompts.jsonl');
    const queueUrl = await aws.createQueue(`gaps-${randomBytes(4).toString('hex')}`, { FifoQueue: 'true' });
    const deadLetterUrl = await aws.createQueue(`gaps-dlq-${randomBytes(4).toString('hex')}`, { FifoQueue: 'true' });
    const period = ['--from', FROM, '--to', TO, '--top', '3'];

    const written = await cli(['gaps', ...period, '--prompts', promptsFile]);
    const prompts = (await readFile(promptsFile, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { gapId: string; requestId: string });
    const enqueued = await cli(['enqueue', '--queue-url', queueUrl, '--file', promptsFile]);
    // Enqueued twice by mistake: the request ids make the second time add nothing.
    const again = await cli(['enqueue', '--queue-url', queueUrl, '--file', promptsFile]);
    const consumer = spawnCli(
      ['consume', '--queue-url', queueUrl, '--wait-seconds', '1'],
      { ...env(), ...SANDBOX_POLLS, FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl },
      { entry: 'bin' },
    );
    await waitUntil(async () => (await outcomeFiles()).length === prompts.length, 'every prompt has its outcome', 60_000);
    consumer.child.kill('SIGTERM');
    await consumer.exited;
    const after = await cli(['gaps', ...period, '--json', '--prompts', join(dest, 'prompts-after.jsonl')]);
    const all = await cli(['gaps', '--from', FROM, '--to', TO, '--top', '10000', '--json']);
    const next = (JSON.parse(after.stdout) as { gaps: Gap[] }).gaps;
    const prompted = new Set(prompts.map((p) => p.gapId));
    const gaps = (JSON.parse(all.stdout) as { gaps: Gap[] }).gaps.filter((g) => prompted.has(g.gapId));

    expect(written.code, written.stderr).toBe(0);
    expect(prompts).toHaveLength(3);
    expect(enqueued.code, enqueued.stderr).toBe(0);
    expect(again.code, again.stderr).toBe(0);
    const created = sandbox.requests.filter((r) => r.route === 'agent-create' && r.status === 201);
    expect(created).toHaveLength(3);
    expect(gaps).toHaveLength(3);
    for (const gap of gaps) {
      expect(gap.requests[0]).toMatchObject({ state: 'done', status: 'completed', requestId: `${gap.gapId}-r1`, jobId: expect.stringMatching(/^job_new_/) });
      expect(gap.requests[0]?.prLink).toMatch(/^https:\/\/github\.com\//);
      expect(gap.promptable).toBe(false);
    }
    // --top lists open gaps first: the second run names the next three, never the done ones.
    expect(next).toHaveLength(3);
    for (const gap of next) {
      expect(prompted.has(gap.gapId)).toBe(false);
      expect(gap.promptable).toBe(true);
    }
    const after3 = (await readFile(join(dest, 'prompts-after.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(after3).toHaveLength(3);
    expect(after.stderr).toContain('3 prompt(s) written');
  }, 120_000);
});
