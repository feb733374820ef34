/**
 * The follow-up side on a laptop, as a user meets it: the real process (the bin) against fauxqs
 * on 127.0.0.1. A busy port and missing AWS settings are each one line naming the fix (exit 2).
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runSpawnedCli } from '../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../helpers/emulators.js';
import { hostEnv, noAwsSetup } from '../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';

let aws: S3Sqs;
let scratch: string;

beforeAll(async () => {
  aws = await startS3Sqs();
  scratch = await makeTempDir('cli-laptop');
});

afterAll(async () => {
  await aws?.close();
  await removeTempDirs();
});

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
