/**
 * The scope check as the follow-up core uses it (finish.ts): the checker of the settings with
 * its token (GITHUB_TOKEN on the CLI, the secret GITHUB_TOKEN_SECRET_ARN deployed) and the
 * alert of a pull request out of scope on the insights topic. Undefined when nothing is
 * configured (check.ts's header).
 */
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SNSClient } from '@aws-sdk/client-sns';
import { awsClientConfig } from '../shared/aws-clients.js';
import { scopeCheckerFromSettings, type ScopeChecker, type ScopeSettings } from './check.js';
import type { GitHubOptions } from './github.js';
import { createTokenSource } from './token.js';
import { createScopeAlertPublisher, type ScopeAlert } from './alert.js';

export interface FollowUpScope {
  readonly check: ScopeChecker;
  /** Publishes the alert of a pull request out of scope; absent without an insights topic. */
  readonly alert?: ((message: ScopeAlert) => Promise<void>) | undefined;
}

export type FollowUpScopeSettings = Omit<ScopeSettings, 'githubToken' | 'githubTokenSecretArn'> & {
  readonly githubToken?: string | undefined;
  readonly githubTokenSecretArn?: string | undefined;
  readonly insightsTopicArn?: string | undefined;
};

export function followUpScopeOf(
  settings: FollowUpScopeSettings,
  wiring: {
    readonly secrets?: SecretsManagerClient | undefined;
    readonly sns?: SNSClient | undefined;
    readonly github?: Partial<Omit<GitHubOptions, 'token'>>;
    readonly onWarning?: (line: string) => void;
  } = {},
): FollowUpScope | undefined {
  const check = scopeCheckerFromSettings(settings, {
    token: createTokenSource(settings, wiring.secrets ? { secrets: wiring.secrets } : {}),
    ...(wiring.onWarning ? { onWarning: wiring.onWarning } : {}),
    ...(wiring.github ? { github: wiring.github } : {}),
  });
  if (check === undefined) return undefined;
  const topic = settings.insightsTopicArn;
  return {
    check,
    alert: topic === undefined ? undefined : createScopeAlertPublisher({ sns: wiring.sns ?? new SNSClient(awsClientConfig()), topicArn: topic }),
  };
}
