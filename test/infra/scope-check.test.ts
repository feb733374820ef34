/**
 * The scope check in the synthesized template (issue 52): nothing without context
 * `docsRepository`/`githubTokenSecretArn`; with it, the GitHub token's secret readable by the
 * follow-up function only, the settings in that function's environment, the insights topic
 * publishable by it; and no GitHub write permission asked for (the secret's description, the
 * environment) unless `githubScopeStatus=on`. The stack grants secret reads, never anything on
 * GitHub: AWS cannot.
 */
import { describe, expect, it } from 'vitest';
import { ContextConfigError } from '../../infra/stack.js';
import { rolePolicies, synthStack, synthTemplate } from '../helpers/synth.js';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

const FOLLOW_UP = 'Sends queued follow-up prompts';
const SECRET_ARN = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github-token-AbCdEf';
// Synthesized once, as the other template tests do (the first synth of a worker is the slow one).
const defaults = { template: synthTemplate({ projectIds: 'proj_a' }) };

function followUp(template: ReturnType<typeof synthStack>['template']): [string, Resource] {
  const found = (Object.entries(template.findResources('AWS::Lambda::Function')) as [string, Resource][]).filter(([, fn]) =>
    String(fn.Properties.Description ?? '').startsWith(FOLLOW_UP),
  );
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

/** The roles whose policies name `needle` (a resource's logical id or an ARN) for `action`. */
function rolesGranted(template: ReturnType<typeof synthStack>['template'], action: string, needle: string): string[] {
  return Object.values(rolePolicies(template) as Record<string, Resource>)
    .filter((policy) =>
      (policy.Properties.PolicyDocument.Statement as Statement[]).some(
        (statement) => [statement.Action].flat().includes(action) && JSON.stringify(statement.Resource).includes(needle),
      ),
    )
    .flatMap((policy) => (policy.Properties.Roles as { Ref: string }[]).map((role) => role.Ref))
    .sort();
}

describe('the scope check in the template', () => {
  it('adds nothing without docsRepository or githubTokenSecretArn: pull requests stay unchecked', () => {
    const { template } = defaults;
    const variables = followUp(template)[1].Properties.Environment.Variables as Record<string, unknown>;
    expect(Object.keys(variables).filter((name) => /^(GITHUB_|DOCS_REPOSITORY|SCOPE_|INSIGHTS_TOPIC_ARN)/.test(name))).toEqual([]);
    expect(Object.keys(template.findOutputs('GitHubTokenSecretArn'))).toEqual([]);
  });

  it('a new secret for the token, readable by the follow-up function only, with its settings and the insights topic', () => {
    const { template } = synthStack({ projectIds: 'proj_a', docsRepository: 'acme/docs' });
    const secrets = Object.entries(template.findResources('AWS::SecretsManager::Secret') as Record<string, Resource>).filter(([, secret]) =>
      String(secret.Properties.Description).startsWith('GitHub token'),
    );
    expect(secrets).toHaveLength(1);
    const [secretId, secret] = secrets[0] as [string, Resource];
    const [, fn] = followUp(template);
    const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(rolesGranted(template, 'secretsmanager:GetSecretValue', secretId)).toEqual([role]);
    const variables = fn.Properties.Environment.Variables as Record<string, unknown>;
    expect(variables).toMatchObject({ GITHUB_TOKEN_SECRET_ARN: { Ref: secretId }, DOCS_REPOSITORY: 'acme/docs', GITHUB_SCOPE_STATUS: 'off' });
    const topicId = (variables['INSIGHTS_TOPIC_ARN'] as { Ref: string }).Ref;
    expect(rolesGranted(template, 'sns:Publish', topicId)).toContain(role);
    template.hasOutput('GitHubTokenSecretArn', { Value: { Ref: secretId } });
    // The token it asks for: read-only.
    expect(secret.Properties.Description).toMatch(/read-only/);
    expect(secret.Properties.Description).not.toMatch(/write/i);
    expect(JSON.parse(secret.Properties.GenerateSecretString.SecretStringTemplate)).toEqual({ token: '' });
  });

  it('an existing secret by its complete ARN: read by the follow-up function only', () => {
    const { template } = synthStack({ projectIds: 'proj_a', docsRepository: 'acme/docs', githubTokenSecretArn: SECRET_ARN });
    const [, fn] = followUp(template);
    const role = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(rolesGranted(template, 'secretsmanager:GetSecretValue', SECRET_ARN)).toEqual([role]);
    expect(fn.Properties.Environment.Variables.GITHUB_TOKEN_SECRET_ARN).toBe(SECRET_ARN);
  });

  it('asks for Commit statuses write only with githubScopeStatus=on', () => {
    const { template } = synthStack({ projectIds: 'proj_a', docsRepository: 'acme/docs', githubScopeStatus: 'on' });
    const secret = Object.values(template.findResources('AWS::SecretsManager::Secret') as Record<string, Resource>).find((s) =>
      String(s.Properties.Description).startsWith('GitHub token'),
    );
    expect(secret?.Properties.Description).toMatch(/Commit statuses write/);
    expect(followUp(template)[1].Properties.Environment.Variables.GITHUB_SCOPE_STATUS).toBe('on');
  });

  it('refuses a repository that is not owner/name, and a partial secret ARN', () => {
    expect(() => synthStack({ projectIds: 'proj_a', docsRepository: 'https://github.com/acme/docs' })).toThrow(ContextConfigError);
    expect(() => synthStack({ projectIds: 'proj_a', githubTokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github-token' })).toThrow(
      /githubTokenSecretArn/,
    );
  });
});
