import * as iam from 'aws-cdk-lib/aws-iam';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { synthStack } from '../helpers/synth.js';

/** Every finding (error or warning) cdk-nag reports and nobody acknowledged, as `rule @ path`. */
function unacknowledgedFindings(context: Record<string, unknown>): string[] {
  const { stack } = synthStack(context);
  const report = new AwsSolutionsChecks().validateScope(stack);
  return report.violations.flatMap((violation) =>
    violation.violatingResources.map((resource) => `${violation.ruleName} @ ${resource.constructPath ?? resource.resourceLogicalId}`),
  );
}

// A synth plus every AwsSolutions rule over the whole stack: seconds alone, but past the default
// 30 s when the machine's two cores are shared with the rest of the suite.
describe('cdk-nag AwsSolutions checks', { timeout: 120_000 }, () => {
  it('reports no unacknowledged finding for the default deployment (new bucket, new secret)', () => {
    expect(unacknowledgedFindings({ projectIds: 'proj_a' })).toEqual([]);
  });

  it('reports no unacknowledged finding with an existing bucket, secret, an alarm e-mail and an outcome e-mail', () => {
    const findings = unacknowledgedFindings({
      projectIds: 'proj_a,proj_b',
      bucketName: 'corp-data-lake',
      prefix: 'analytics/mintlify',
      apiKeySecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:mintlify-key-AbC123',
      alarmEmail: 'docs-team@example.com',
      outcomeEmail: 'docs-oncall@example.com',
    });
    expect(findings).toEqual([]);
  });

  it('reports no unacknowledged finding with the Iceberg tables of many organisations (tableFormat=iceberg)', () => {
    expect(unacknowledgedFindings({ projectIds: 'proj_a', tableFormat: 'iceberg', organisations: 'true' })).toEqual([]);
  });

  it("reports no unacknowledged finding with the scope check's settings on (docs repository, commit status, GitHub Enterprise)", () => {
    const findings = unacknowledgedFindings({
      projectIds: 'proj_a',
      docsRepository: 'acme/docs',
      githubScopeStatus: 'on',
      githubApiUrl: 'https://ghe.example.com/api/v3',
    });
    expect(findings).toEqual([]);
  });

  it("reports no unacknowledged finding with the scope check's token in an existing secret", () => {
    const findings = unacknowledgedFindings({
      projectIds: 'proj_a',
      docsRepository: 'acme/docs',
      githubTokenSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github-token-AbC123',
    });
    expect(findings).toEqual([]);
  });

  it('still reports a new wildcard on a function role, beyond the acknowledged key-pattern grants', () => {
    const { stack } = synthStack({ projectIds: 'proj_a' });
    stack.analyticsExport.function.addToRolePolicy(new iam.PolicyStatement({ actions: ['s3:GetObject'], resources: ['*'] }));
    const rules = new AwsSolutionsChecks().validateScope(stack).violations.map((violation) => violation.ruleName);
    expect(rules).toContain('AwsSolutions-IAM5[Resource::*]');
  });

  it('still reports an unacknowledged resource added to the stack', () => {
    const { stack } = synthStack({ projectIds: 'proj_a' });
    new sqs.Queue(stack, 'Unchecked', { enforceSSL: false });
    const rules = new AwsSolutionsChecks().validateScope(stack).violations.map((violation) => violation.ruleName);
    expect(rules).toContain('AwsSolutions-SQS4');
  });
});
