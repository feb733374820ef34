/**
 * The scope check of the agent's pull requests, deployed (with context `docsRepository` or
 * `githubTokenSecretArn`; without either nothing is added and pull requests stay unchecked):
 * the Secrets Manager secret holding the GitHub token — an existing one by its complete ARN, or a
 * new one with an empty token to replace (until then every pull request is `unknown`) — readable
 * by the follow-up function only; the settings in that function's environment; and its right to
 * publish the alert of a pull request out of scope on the insights topic.
 *
 * AWS cannot grant a GitHub permission: the token's own scopes are what GitHub allows. The
 * secret's description says which to give it — read-only (Pull requests: read, Contents: read),
 * and Commit statuses: write only with `githubScopeStatus=on` — and nothing of the stack asks
 * for more (test/infra/scope-check.test.ts).
 */
import { Validations } from 'aws-cdk-lib';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { asInterface } from './as-interface.js';
import type { Insights } from './insights.js';
import type { FunctionEnvironment } from './lambda-defaults.js';

/** The token's scopes, as the secret's description and docs/follow-ups.md give them. */
export const TOKEN_SCOPES = {
  readOnly: 'a read-only GitHub token of the docs repository (fine-grained: Pull requests read, Contents read; classic: repo read)',
  withStatus: 'a GitHub token of the docs repository with Pull requests read, Contents read and Commit statuses write (GITHUB_SCOPE_STATUS=on)',
} as const;

export interface ScopeCheckProps {
  readonly followUpFunction: NodejsFunction;
  readonly insights: Insights;
  /** `DOCS_REPOSITORY`, `owner/name`. */
  readonly docsRepository?: string | undefined;
  /** Complete ARN of an existing secret holding the token. @default - a new secret */
  readonly githubTokenSecretArn?: string | undefined;
  /** `GITHUB_SCOPE_STATUS=on`: the commit status `mintlify-exporter/scope`. @default false */
  readonly githubScopeStatus?: boolean | undefined;
  /** `GITHUB_API_URL` (GitHub Enterprise). @default - https://api.github.com */
  readonly githubApiUrl?: string | undefined;
}

export class ScopeCheck extends Construct {
  readonly tokenSecret: secretsmanager.ISecret;

  constructor(scope: Construct, id: string, props: ScopeCheckProps) {
    super(scope, id);
    const status = props.githubScopeStatus === true;
    if (props.githubTokenSecretArn === undefined) {
      const secret = new secretsmanager.Secret(this, 'TokenSecret', {
        description: `GitHub token of the mintlify-exporter scope check: put ${status ? TOKEN_SCOPES.withStatus : TOKEN_SCOPES.readOnly} in it as {"token":"…"}. Until then every pull request is unknown.`,
        // An empty token (the check says the secret holds none), never a made-up one.
        generateSecretString: { secretStringTemplate: JSON.stringify({ token: '' }), generateStringKey: 'placeholder', passwordLength: 16 },
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The value is a GitHub token issued on GitHub; Secrets Manager cannot rotate it. Rotation is manual (a new token, put-secret-value, revoke the old one).',
      });
      this.tokenSecret = asInterface<secretsmanager.ISecret>(secret);
    } else {
      this.tokenSecret = secretsmanager.Secret.fromSecretCompleteArn(this, 'TokenSecret', props.githubTokenSecretArn);
    }
    // The follow-up function only: no other role of the stack reads the token.
    this.tokenSecret.grantRead(props.followUpFunction);
    const environment: FunctionEnvironment<'follow-up'> = {
      GITHUB_TOKEN_SECRET_ARN: this.tokenSecret.secretArn,
      GITHUB_SCOPE_STATUS: status ? 'on' : 'off',
      INSIGHTS_TOPIC_ARN: props.insights.topic.topicArn,
      ...(props.docsRepository === undefined ? {} : { DOCS_REPOSITORY: props.docsRepository }),
      ...(props.githubApiUrl === undefined ? {} : { GITHUB_API_URL: props.githubApiUrl }),
    };
    for (const [name, value] of Object.entries(environment)) if (value !== undefined) props.followUpFunction.addEnvironment(name, value);
    const role = props.followUpFunction.role;
    if (role instanceof iam.Role) props.insights.grantPublish(role);
    else props.insights.topic.grantPublish(props.followUpFunction);
  }
}
