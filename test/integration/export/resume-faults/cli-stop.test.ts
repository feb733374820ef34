/**
 * The first SIGINT/SIGTERM (issue 28): `enqueue` stopped half-way sends no further batch and says
 * how many prompts the queue accepted and that enqueuing the same file again is safe (exit 130);
 * `status` and `plan`, which only read, end at once with exit 130 — here while the bucket they
 * read never answers, where they used to ignore the signal.
 */
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { SendMessageBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliInProcess, spawnCli, waitUntil } from '../../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../../scripts/lib/s3-sqs.js';
import { emulatorAwsEnv, hostEnv } from '../../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../../helpers/files.js';

let aws: S3Sqs;
let silent: Server;
const sockets: Socket[] = [];

beforeAll(async () => {
  aws = await startS3Sqs();
  // A bucket endpoint that accepts every connection and never answers.
  silent = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => silent?.close(resolve));
  await aws?.close();
  await removeTempDirs();
});

describe('enqueue stopped half-way', () => {
  it('sends no batch after the stop, says how many prompts were accepted and that the same file may be enqueued again, exit 130', async () => {
    const queueUrl = await aws.createQueue(`stop-${randomBytes(4).toString('hex')}.fifo`, { FifoQueue: 'true' });
    const scratch = await makeTempDir('enqueue-stop');
    const file = join(scratch, 'prompts.jsonl');
    await writeFile(
      file,
      Array.from({ length: 25 }, (_, i) => JSON.stringify({ projectId: 'proj_small', jobId: `job_${i}`, prompt: `Prompt ${i}` })).join('\n'),
    );
    let stop = (): void => undefined;
    const stopSignal = new Promise<void>((resolve) => (stop = resolve));
    // The user presses Ctrl-C while the first batch is on its way.
    const sqs = {
      send: async (command: unknown) => {
        if (command instanceof SendMessageBatchCommand) stop();
        return aws.sqs.send(command as SendMessageBatchCommand);
      },
    } as unknown as SQSClient;

    const run = await runCliInProcess(['enqueue', '--queue-url', queueUrl, '--file', file], {
      env: { ...hostEnv(), ...emulatorAwsEnv(aws.endpoint, scratch) },
      now: Date.now,
      stopSignal,
      extra: { clients: { sqs } },
    });

    expect(run.code).toBe(130);
    expect(run.stderr).toBe(
      'Stopped: 10 of 25 prompt(s) were accepted by the queue before the stop; the other 15 were not sent. Enqueuing the same, unchanged file again is safe: each line keeps its request id, the queue drops one it took in the last 5 minutes, and after that the consumer never sends a request id it already handled (it remembers them for 15 days).\n',
    );
    const { visible } = await aws.queueCounts(queueUrl);
    expect(visible).toBe(10);
  });
});

describe.each(['status', 'plan'])('%s stopped while the bucket does not answer', (command) => {
  it('ends at the first SIGINT within a second and a half, exit 130, one line', async () => {
    const scratch = await makeTempDir(`${command}-stop`);
    const address = silent.address();
    const endpoint = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const env = {
      ...emulatorAwsEnv(endpoint, scratch),
      MINTLIFY_API_URL: 'http://127.0.0.1:9',
      MINTLIFY_API_KEY: 'mint_StopTestKey0123456789abcdef',
      EXPORT_STATE_DIR: scratch,
      HOME: scratch,
    };
    const connections = sockets.length;
    const cli = spawnCli([command, '--date', '2026-11-20', '--project', 'proj_1', '--out', 's3://stop-bucket/exports'], env);
    await waitUntil(() => sockets.length > connections, 'the CLI to reach the bucket');

    const signalled = Date.now();
    cli.child.kill('SIGINT');
    const { code } = await cli.exited;

    // Before the silent bucket's request could time out (the SDK's idle limit): 5 s holds under load.
    expect(Date.now() - signalled).toBeLessThan(5_000);
    expect(code).toBe(130);
    expect(cli.stderr()).toBe(`stopped: ${command} was interrupted before it finished; it changes nothing, run it again\n`);
  });
});
