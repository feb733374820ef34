/**
 * Role: a stand-in for Secrets Manager on loopback (no emulator of ours serves it): answers
 * GetSecretValue (JSON protocol) for the secrets it is given, by ARN; anything else is refused
 * as Secrets Manager refuses it. Every call's target and secret are recorded.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSecretsManager {
  readonly endpoint: string;
  /** `secretsmanager.GetSecretValue <SecretId>`, in order. */
  readonly calls: string[];
  close(): Promise<void>;
}

export async function startFakeSecretsManager(secrets: Record<string, string>): Promise<FakeSecretsManager> {
  const calls: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      const { SecretId } = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { SecretId?: string };
      calls.push(`${target} ${SecretId}`);
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      const value = SecretId === undefined ? undefined : secrets[SecretId];
      if (target !== 'secretsmanager.GetSecretValue' || value === undefined) {
        response.statusCode = 400;
        response.end(
          JSON.stringify({ __type: 'ResourceNotFoundException', message: `Secrets Manager can't find the specified secret (${target} ${SecretId})` }),
        );
        return;
      }
      response.end(
        JSON.stringify({
          ARN: SecretId,
          Name: String(SecretId).split(':').pop(),
          SecretString: value,
          VersionId: 'v1',
          VersionStages: ['AWSCURRENT'],
          CreatedDate: 1_700_000_000,
        }),
      );
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
