/**
 * Every AWS SDK client the project builds has timeouts (issue 28): a server that accepts the
 * connection and never answers — here a TCP server on 127.0.0.1 — fails the call instead of
 * holding it (a Publish that hung kept the consumer past the message's visibility timeout).
 */
import { readdir, readFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import path from 'node:path';
import { PublishCommand, SNSClient } from '@aws-sdk/client-sns';
import { afterEach, describe, expect, it } from 'vitest';
import { AWS_REQUEST_HANDLER, awsClientConfig, MAX_LONG_POLL_SECONDS, SQS_REQUEST_HANDLER } from '../../../functions/shared/aws-clients.js';

const REPO = path.resolve(import.meta.dirname, '../../..');

let server: Server | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  const closing = server;
  server = undefined;
  if (closing) await new Promise((resolve) => closing.close(resolve));
});

/** A server that accepts every connection and never sends a byte. */
async function silentServer(): Promise<string> {
  server = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}

describe('the shared AWS request handler', () => {
  // The shared handler's settings with the idle limit cut to 1 s, so the test waits 1–4 s, not 13:
  // what is checked is that the SDK ends an idle call with the handler's settings as the project
  // gives them (`awsClientConfig`); their values are the test below's and the last's.
  const IDLE_MS = 1_000;
  it(
    'ends a Publish the server never answers within its idle timeout, as a TimeoutError',
    async () => {
      const endpoint = await silentServer();
      const config = awsClientConfig({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' }, maxAttempts: 1 });
      const sns = new SNSClient({ ...config, requestHandler: { ...config.requestHandler, socketTimeout: IDLE_MS } });
      const started = Date.now();

      const error = await sns.send(new PublishCommand({ TopicArn: 'arn:aws:sns:us-east-1:000000000000:outcomes', Message: 'x' })).catch((e: unknown) => e);

      expect((error as Error).name).toBe('TimeoutError');
      // The SDK may arm the idle timer up to 3 s after the request starts.
      expect(Date.now() - started).toBeLessThan(IDLE_MS + 5_000);
      sns.destroy();
    },
    IDLE_MS + 10_000,
  );

  it('gives every client an idle limit, a connection limit and a request limit', () => {
    expect(awsClientConfig().requestHandler).toEqual(AWS_REQUEST_HANDLER);
    expect(AWS_REQUEST_HANDLER).toMatchObject({ connectionTimeout: 5_000, socketTimeout: 10_000, requestTimeout: 60_000, throwOnRequestTimeout: true });
  });

  it('lets an SQS long poll keep its socket idle for the longest wait SQS allows', () => {
    expect(SQS_REQUEST_HANDLER.socketTimeout).toBeGreaterThan(MAX_LONG_POLL_SECONDS * 1_000);
    expect(SQS_REQUEST_HANDLER.requestTimeout).toBeGreaterThan(SQS_REQUEST_HANDLER.socketTimeout);
  });

  it('is given to every AWS SDK client the project builds', async () => {
    const files = (await readdir(path.join(REPO, 'functions'), { recursive: true })).filter((file) => file.endsWith('.ts'));
    const bare: string[] = [];
    for (const file of files) {
      const text = await readFile(path.join(REPO, 'functions', file), 'utf8');
      for (const match of text.matchAll(/new (?:S3|SQS|SNS|DynamoDB|SecretsManager|CloudWatch)Client\(([^)]*)/g)) {
        if (!/^(aws|sqs)ClientConfig\(/.test(match[1] ?? '')) bare.push(`${file}: ${match[0]}`);
      }
    }

    expect(files.length).toBeGreaterThan(50);
    expect(bare).toEqual([]);
  });
});
