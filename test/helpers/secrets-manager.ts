/**
 * Role: a stand-in for Secrets Manager on loopback (no emulator of ours serves it): answers
 * GetSecretValue (JSON protocol) for the secrets it is given, by ARN or name, and ListSecrets
 * with a `name` filter (a prefix match, as Secrets Manager's) over pages of `MaxResults`;
 * anything else is refused as Secrets Manager refuses it. Every call's target and secret (or
 * filter) are recorded.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeSecretsManager {
  readonly endpoint: string;
  /** `secretsmanager.GetSecretValue <SecretId>` and `secretsmanager.ListSecrets <prefix>`, in order. */
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
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as ListInput & { SecretId?: string };
      const { SecretId } = input;
      response.setHeader('content-type', 'application/x-amz-json-1.1');
      if (target === 'secretsmanager.ListSecrets') {
        const prefixes = input.Filters?.find((filter) => filter.Key === 'name')?.Values ?? [];
        calls.push(`${target} ${prefixes.join(',')}`);
        response.end(JSON.stringify(listSecrets(Object.keys(secrets), prefixes, input)));
        return;
      }
      calls.push(`${target} ${SecretId}`);
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

interface ListInput {
  readonly Filters?: readonly { readonly Key?: string; readonly Values?: readonly string[] }[];
  readonly MaxResults?: number;
  readonly NextToken?: string;
}

/** A secret's name: the part of an ARN after `secret:` less its 6-character suffix, or the id itself. */
function nameOf(id: string): string {
  return id.startsWith('arn:') ? (id.split(':secret:')[1] ?? id).replace(/-[A-Za-z0-9]{6}$/, '') : id;
}

/** One page of ListSecrets: the names matching every prefix given, sorted, from NextToken on. */
function listSecrets(ids: readonly string[], prefixes: readonly string[], input: ListInput) {
  const names = ids
    .map(nameOf)
    .filter((name) => prefixes.every((prefix) => name.startsWith(prefix)))
    .sort();
  const from = Number(input.NextToken ?? 0);
  const size = input.MaxResults ?? 100;
  const page = names.slice(from, from + size);
  return {
    SecretList: page.map((name) => ({ Name: name, ARN: `arn:aws:secretsmanager:us-east-1:123456789012:secret:${name}-AbCdEf` })),
    ...(from + size < names.length ? { NextToken: String(from + size) } : {}),
  };
}
