/**
 * What `enqueue --file` reads (issue 28): a byte order mark is accepted, invalid UTF-8 is refused
 * with its line (never sent as U+FFFD), and a prompt holding a character SQS refuses (U+FFFF)
 * is sent as a JSON escape, so SQS cannot refuse it half-way through a file — all or nothing. The real process (the bin)
 * against fauxqs on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSpawnedCli } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const PROJECT = 'proj_small';

let aws: S3Sqs;
let scratch: string;

beforeAll(async () => {
  aws = await startS3Sqs();
  scratch = await makeTempDir('enqueue-input');
});

afterAll(async () => {
  await aws?.close();
  await removeTempDirs();
});

const line = (prompt: string, requestId: string) => Buffer.from(`${JSON.stringify({ projectId: PROJECT, jobId: 'job_1', prompt, requestId })}\n`, 'utf8');

async function enqueueFile(name: string, bytes: Buffer) {
  const queueUrl = await aws.createQueue(`input-${randomBytes(4).toString('hex')}`, { FifoQueue: 'true' });
  const file = join(scratch, name);
  await writeFile(file, bytes);
  const run = await runSpawnedCli(
    ['enqueue', '--queue-url', queueUrl, '--file', file],
    { ...hostEnv(), ...emulatorAwsEnv(aws.endpoint, scratch) },
    { entry: 'bin' },
  );
  const { visible, inFlight } = await aws.queueCounts(queueUrl);
  return { ...run, file, queued: visible + inFlight };
}

describe('enqueue --file input', () => {
  it('accepts a file that starts with a byte order mark', async () => {
    const run = await enqueueFile(
      'bom.jsonl',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), line('Add a FAQ page', 'bom-1'), line('Fix the typo', 'bom-2')]),
    );

    expect(run.code, run.stderr).toBe(0);
    expect(run.queued).toBe(2);
  });

  it('refuses invalid UTF-8 naming its line, and queues nothing', async () => {
    const run = await enqueueFile(
      'latin1.jsonl',
      Buffer.concat([
        line('Add a FAQ page', 'l-1'),
        Buffer.from('{"projectId":"proj_small","jobId":"job_1","prompt":"caf\xe9","requestId":"l-2"}\n', 'latin1'),
      ]),
    );

    expect(run.stderr).toBe(`error: ${run.file} refused, nothing was sent: line 2: is not valid UTF-8: save the file as UTF-8\n`);
    expect(run.code).toBe(2);
    expect(run.queued).toBe(0);
  });

  it('queues a prompt holding U+FFFF with the ones above it: the body carries it as an escape SQS accepts', async () => {
    const run = await enqueueFile(
      'noncharacter.jsonl',
      Buffer.concat([line('Add a FAQ page', 'n-1'), line('Fix the typo', 'n-2'), line('odd \uFFFF here', 'n-3')]),
    );

    expect(run.code, run.stderr).toBe(0);
    expect(run.queued).toBe(3);
  });
});
