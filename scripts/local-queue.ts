/**
 * `npm run --silent local-queue [-- --port N]`: the follow-up queue and its dead-letter queue on
 * an SQS emulator (fauxqs, a devDependency) on 127.0.0.1, until Ctrl-C — the queue side of the
 * local recipe in docs/follow-ups.md. The port is a free one unless `--port` names it; a busy
 * port is one line naming `--port` (exit 2). It prints the queue URLs and the `export` line the
 * other terminals paste (region, dummy keys, the emulator's endpoint, FOLLOWUP_QUEUE_URL).
 */
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { CreateQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { listenOn } from '../functions/cli/ports.js';
import { ConfigError } from '../functions/shared/errors.js';

/** The region and account fauxqs names its queues with. */
const REGION = 'us-east-1';
const ACCOUNT = '000000000000';
/** Receives before SQS itself moves a message to the dead-letter queue (the stack uses more). */
const MAX_RECEIVE_COUNT = 5;

async function main(argv: readonly string[]): Promise<number> {
  const port = portOf(argv);
  const { buildApp } = await import('fauxqs');
  const app = buildApp({ logger: false, defaultRegion: REGION });
  // 127.0.0.1 only: fauxqs's own CLI listens on every interface.
  await listenOn(port, '--port', () => app.listen({ host: '127.0.0.1', port }));
  const endpoint = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  const sqs = new SQSClient({ endpoint, region: REGION, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const fifo = { FifoQueue: 'true' };
  const deadLetters = await sqs.send(new CreateQueueCommand({ QueueName: 'prompts-dlq.fifo', Attributes: fifo }));
  const redrive = JSON.stringify({ deadLetterTargetArn: `arn:aws:sqs:${REGION}:${ACCOUNT}:prompts-dlq.fifo`, maxReceiveCount: MAX_RECEIVE_COUNT });
  const queue = await sqs.send(new CreateQueueCommand({ QueueName: 'prompts.fifo', Attributes: { ...fifo, RedrivePolicy: redrive } }));
  sqs.destroy();
  process.stdout.write(
    [
      `SQS emulator listening on ${endpoint}`,
      `queue             ${queue.QueueUrl}`,
      `dead-letter queue ${deadLetters.QueueUrl}`,
      'In the other terminals (the emulator names its queues by a host that need not resolve; AWS_ENDPOINT_URL_SQS sends the calls to it):',
      `export AWS_REGION=${REGION} AWS_ACCESS_KEY_ID=test AWS_SECRET_ACCESS_KEY=test AWS_ENDPOINT_URL_SQS=${endpoint} FOLLOWUP_QUEUE_URL=${queue.QueueUrl}`,
      'Stop with Ctrl-C (the queues live in memory).',
      '',
    ].join('\n'),
  );
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await app.close();
  return 0;
}

function portOf(argv: readonly string[]): number {
  let values: { port?: string | undefined };
  try {
    ({ values } = parseArgs({ args: [...argv], options: { port: { type: 'string' } }, strict: true }));
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}: the only flag is --port N`);
  }
  if (values.port === undefined) return 0;
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65_535) throw new ConfigError(`--port "${values.port}": use a port from 0 to 65535 (0 picks a free one)`);
  return port;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = error instanceof ConfigError ? 2 : 1;
  },
);
