/**
 * Alerts where teams talk: with the `chat…` context the insights topic is subscribed through AWS
 * Chatbot to a Slack and/or Teams channel whose guardrail and role allow nothing but reading;
 * without it the template has no chat resource; half a channel's context is refused by name.
 */
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { ContextConfigError, configFromContext } from '../../infra/stack.js';
import { synthStack, withApp, synthTemplate } from '../helpers/synth.js';

type Resource = { Type: string; Properties: Record<string, any> };

const SLACK = { chatSlackWorkspaceId: 'T0123ABCD', chatSlackChannelId: 'C0456EFGH' };
const TEAMS = {
  chatTeamsTeamId: '0a1b2c3d-0000-4000-8000-00000000000a',
  chatTeamsChannelId: '19%3ab6ef35dc342d4c%40thread.tacv2',
  chatTeamsTenantId: '0a1b2c3d-0000-4000-8000-00000000000b',
};
const READ_ONLY = { 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/ReadOnlyAccess']] };

function only(resources: Record<string, unknown>): Resource {
  const values = Object.values(resources) as Resource[];
  expect(values).toHaveLength(1);
  return values[0] as Resource;
}

function insightsTopic(template: ReturnType<typeof synthStack>['template']): string {
  const topics = template.findResources('AWS::SNS::Topic', { Properties: { DisplayName: 'mintlify-exporter insights' } });
  return Object.keys(topics)[0] as string;
}

// Synths (and cdk-nag over one) take seconds alone, far more when the machine's cores are shared.
describe('the insights topic in chat', { timeout: 180_000 }, () => {
  it('posts the insights topic to the Slack channel, its guardrail ReadOnlyAccess and its role able to read CloudWatch only', () => {
    const { template } = synthStack({ projectIds: 'proj_a', ...SLACK });

    const slack = only(template.findResources('AWS::Chatbot::SlackChannelConfiguration'));
    expect(slack.Properties).toMatchObject({
      SlackWorkspaceId: 'T0123ABCD',
      SlackChannelId: 'C0456EFGH',
      SnsTopicArns: [{ Ref: insightsTopic(template) }],
      GuardrailPolicies: [READ_ONLY],
      UserRoleRequired: false,
    });
    const roleId = (slack.Properties.IamRoleArn as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const role = template.toJSON().Resources[roleId] as Resource;
    expect(role.Properties.AssumeRolePolicyDocument.Statement).toEqual([
      { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'chatbot.amazonaws.com' } },
    ]);
    expect(role.Properties.ManagedPolicyArns).toEqual([{ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/CloudWatchReadOnlyAccess']] }]);
    // No statement of its own: nothing beyond the read-only managed policy.
    const policies = Object.values(template.findResources('AWS::IAM::Policy') as Record<string, Resource>).filter((p) =>
      (p.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === roleId),
    );
    expect(policies).toEqual([]);
    expect(template.findResources('AWS::Chatbot::MicrosoftTeamsChannelConfiguration')).toEqual({});
  });

  it('posts it to the Teams channel with the same guardrail and role', () => {
    const { template } = synthStack({ projectIds: 'proj_a', ...TEAMS });

    const teams = only(template.findResources('AWS::Chatbot::MicrosoftTeamsChannelConfiguration'));
    expect(teams.Properties).toMatchObject({
      TeamId: TEAMS.chatTeamsTeamId,
      TeamsChannelId: TEAMS.chatTeamsChannelId,
      TeamsTenantId: TEAMS.chatTeamsTenantId,
      SnsTopicArns: [{ Ref: insightsTopic(template) }],
      GuardrailPolicies: [READ_ONLY],
      UserRoleRequired: false,
    });
    expect(template.findResources('AWS::Chatbot::SlackChannelConfiguration')).toEqual({});
  });

  it('leaves cdk-nag no unacknowledged finding with both channels', () => {
    const { stack } = synthStack({ projectIds: 'proj_a', ...SLACK, ...TEAMS });

    const findings = new AwsSolutionsChecks()
      .validateScope(stack)
      .violations.flatMap((v) => v.violatingResources.map((r) => `${v.ruleName} @ ${r.constructPath ?? r.resourceLogicalId}`));

    expect(findings).toEqual([]);
  });

  it('has no chat resource without the context', () => {
    const template = synthTemplate({ projectIds: 'proj_a' });

    expect(template.findResources('AWS::Chatbot::SlackChannelConfiguration')).toEqual({});
    expect(template.findResources('AWS::Chatbot::MicrosoftTeamsChannelConfiguration')).toEqual({});
  });

  it('refuses half a channel, naming the key missing', () => {
    const read = (context: Record<string, string>) => () => withApp(context, (app) => configFromContext(app));

    expect(read({ chatSlackWorkspaceId: 'T0123ABCD' })).toThrow(ContextConfigError);
    expect(read({ chatSlackWorkspaceId: 'T0123ABCD' })).toThrow('CDK context "chatSlackChannelId" is missing');
    expect(read({ chatTeamsTeamId: TEAMS.chatTeamsTeamId, chatTeamsChannelId: TEAMS.chatTeamsChannelId })).toThrow(
      'CDK context "chatTeamsTenantId" is missing',
    );
    expect(read({ ...SLACK, chatSlackWorkspaceId: 'not a workspace' })).toThrow('Invalid CDK context "chatSlackWorkspaceId"');
    expect(read({ ...TEAMS, chatTeamsChannelId: '19:b6ef35dc342d4c@thread.tacv2' })).toThrow('Invalid CDK context "chatTeamsChannelId"');
  });
});
