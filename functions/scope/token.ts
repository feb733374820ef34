/**
 * Where the scope check's GitHub token comes from: `GITHUB_TOKEN` (CLI) or the Secrets Manager
 * secret `GITHUB_TOKEN_SECRET_ARN` (the follow-up function; the raw token or `{"token":"…"}`),
 * read on first use and again after 5 minutes, so a rotated token is picked up without a cold
 * start. The token is never logged. A secret that cannot be read rejects: the pull request is
 * then `unknown` (check.ts), never in scope.
 */
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { awsClientConfig } from '../shared/aws-clients.js';
import type { ScopeSettings } from './check.js';

/** How long a token read from the secret is used before it is read again (ms). */
export const TOKEN_MAX_AGE_MS = 5 * 60_000;

export interface TokenDeps {
  /** @default a client with the environment's region, credentials and endpoint */
  readonly secrets?: Pick<SecretsManagerClient, 'send'>;
  /** @default Date.now */
  readonly now?: () => number;
}

/** The token source of the settings: undefined when neither a token nor its secret is set. */
export function createTokenSource(
  settings: Pick<ScopeSettings, 'githubToken' | 'githubTokenSecretArn'>,
  deps: TokenDeps = {},
): () => Promise<string | undefined> {
  const fixed = settings.githubToken;
  if (fixed !== undefined) return async () => fixed;
  const arn = settings.githubTokenSecretArn;
  if (arn === undefined) return async () => undefined;
  const now = deps.now ?? Date.now;
  let cached: { token: string; at: number } | undefined;
  return async () => {
    if (cached && now() - cached.at < TOKEN_MAX_AGE_MS) return cached.token;
    const client = deps.secrets ?? new SecretsManagerClient(awsClientConfig());
    let value: string | undefined;
    try {
      value = (await client.send(new GetSecretValueCommand({ SecretId: arn }))).SecretString;
    } catch (error) {
      const name = error instanceof Error ? error.name : 'error';
      throw new Error(
        `could not read the GitHub token secret ${arn} (${name}): check that it exists and that this role may call secretsmanager:GetSecretValue on it`,
      );
    }
    const token = tokenOf(value);
    if (token === undefined) throw new Error(`the GitHub token secret ${arn} holds no token: store the raw token or {"token":"…"}`);
    cached = { token, at: now() };
    return token;
  };
}

function tokenOf(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (!text.startsWith('{')) return text;
  try {
    const parsed = JSON.parse(text) as { token?: unknown };
    return typeof parsed.token === 'string' && parsed.token.trim() !== '' ? parsed.token.trim() : undefined;
  } catch {
    return undefined;
  }
}
