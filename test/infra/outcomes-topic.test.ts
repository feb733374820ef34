/**
 * The follow-up outcomes topic in the synthesized template: encrypted, TLS only, published to
 * by the consumer alone (and the consumer may do nothing else with it), its ARN in the
 * consumer's environment and in the stack outputs, and the optional e-mail subscription
 * filtered on the statuses someone should look at.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ContextConfigError, configFromContext } from '../../infra/stack.js';
import { synthStack, withApp, rolePolicies, synthTemplate } from '../helpers/synth.js';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Principal?: unknown; Condition?: unknown };

const defaults = { template: synthTemplate({ projectIds: 'proj_a' }) };

function outcomesTopic(template: Template): [string, Resource] {
  const found = Object.entries(
    template.findResources('AWS::SNS::Topic', { Properties: Match.objectLike({ DisplayName: 'mintlify-exporter follow-up outcomes' }) }),
  ) as [string, Resource][];
  expect(found).toHaveLength(1);
  return found[0] as [string, Resource];
}

/** Every statement of every identity policy in the template, with the roles it is attached to. */
function identityStatements(template: Template): { roles: string[]; statement: Statement }[] {
  return Object.values(rolePolicies(template) as Record<string, Resource>).flatMap((policy) =>
    (policy.Properties.PolicyDocument.Statement as Statement[]).map((statement) => ({
      roles: (policy.Properties.Roles as { Ref: string }[]).map((role) => role.Ref),
      statement,
    })),
  );
}

function consumer(template: Template): Resource {
  const found = Object.values(
    template.findResources('AWS::Lambda::Function', {
      Properties: Match.objectLike({ Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: 'mintlify-followup' }) } }),
    }),
  ) as Resource[];
  expect(found).toHaveLength(1);
  return found[0] as Resource;
}

describe('follow-up outcomes topic', () => {
  it('is encrypted and refuses every request not made over TLS', () => {
    const [topicId, topic] = outcomesTopic(defaults.template);
    const keyId = (topic.Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    defaults.template.hasResource('AWS::KMS::Key', { Properties: Match.objectLike({ EnableKeyRotation: true }) });
    expect(Object.keys(defaults.template.findResources('AWS::KMS::Key'))).toContain(keyId);
    defaults.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('is published to by the consumer, which may do nothing else with it, and by no other role', () => {
    const [topicId] = outcomesTopic(defaults.template);
    const fn = consumer(defaults.template);
    const consumerRole = (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const onTopic = identityStatements(defaults.template).filter(({ statement }) => JSON.stringify(statement.Resource).includes(`"${topicId}"`));
    expect(onTopic).toEqual([{ roles: [consumerRole], statement: { Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: topicId } } }]);
    const snsActions = identityStatements(defaults.template).filter(
      ({ roles, statement }) => roles.includes(consumerRole) && [statement.Action].flat().some((a) => a.startsWith('sns:')),
    );
    expect(snsActions).toHaveLength(1);
    // The topic's key: the consumer may encrypt for it (exactly that key), nobody else is granted.
    const [, topic] = outcomesTopic(defaults.template);
    const keyId = (topic.Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    const onKey = identityStatements(defaults.template).filter(({ statement }) => JSON.stringify(statement.Resource).includes(`"${keyId}"`));
    expect(onKey).toEqual([
      { roles: [consumerRole], statement: { Effect: 'Allow', Action: ['kms:Decrypt', 'kms:GenerateDataKey*'], Resource: { 'Fn::GetAtt': [keyId, 'Arn'] } } },
    ]);
  });

  it('is named in the consumer environment and in the stack outputs', () => {
    const [topicId] = outcomesTopic(defaults.template);
    expect(consumer(defaults.template).Properties.Environment.Variables.FOLLOWUP_OUTCOMES_TOPIC_ARN).toEqual({ Ref: topicId });
    defaults.template.hasOutput('FollowUpOutcomesTopicArn', { Value: { Ref: topicId } });
  });

  it('has no subscription by default, and the outcomeEmail address with a filter on failed, uncertain and rejected', () => {
    const [defaultTopicId] = outcomesTopic(defaults.template);
    expect(defaults.template.findResources('AWS::SNS::Subscription', { Properties: Match.objectLike({ TopicArn: { Ref: defaultTopicId } }) })).toEqual({});

    const { template } = synthStack({ projectIds: 'proj_a', outcomeEmail: 'docs-oncall@example.com' });
    const [topicId] = outcomesTopic(template);
    template.hasResourceProperties('AWS::SNS::Subscription', {
      TopicArn: { Ref: topicId },
      Protocol: 'email',
      Endpoint: 'docs-oncall@example.com',
      FilterPolicy: { status: ['failed', 'uncertain', 'rejected'] },
    });
    expect(Object.keys(template.findResources('AWS::SNS::Subscription'))).toHaveLength(1);
  });

  it('refuses an outcomeEmail that is not an address, naming the key', () => {
    expect(() => withApp({ outcomeEmail: 'oncall' }, configFromContext)).toThrow(ContextConfigError);
    expect(() => withApp({ outcomeEmail: 'oncall' }, configFromContext)).toThrow(/"outcomeEmail"/);
  });
});
