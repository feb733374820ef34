/**
 * The insights in the synthesized template: the weekly report's schedule (context
 * `reportSchedule`, Monday 06:00 UTC by default), the insights topic (own KMS key, TLS only,
 * published to by the two insights functions alone, output `InsightsTopicArn`, `reportEmail`),
 * the grants scoped to the data prefixes, `reports/` and the `insights#` items, the alarms and
 * the x86_64 architecture DuckDB's binding needs.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ContextConfigError, configFromContext } from '../../infra/stack.js';
import { synthStack, withApp, rolePolicies, synthTemplate } from '../helpers/synth.js';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Condition?: unknown };

const defaults = { template: synthTemplate({ projectIds: 'proj_a' }) };
const WEEKLY = 'Weekly: the report of the last 7 complete days';
const CHECK = 'Hourly: anomalies of newly complete days';

function only<T>(items: readonly T[]): T {
  expect(items).toHaveLength(1);
  return items[0] as T;
}

function functionOf(template: Template, description: string): [string, Resource] {
  return only(
    (Object.entries(template.findResources('AWS::Lambda::Function')) as [string, Resource][]).filter(([, fn]) =>
      String(fn.Properties.Description ?? '').startsWith(description),
    ),
  );
}

function roleOf(template: Template, description: string): string {
  return (functionOf(template, description)[1].Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
}

function statementsOf(template: Template, role: string): Statement[] {
  return Object.values(rolePolicies(template) as Record<string, Resource>)
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((r) => r.Ref === role))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

function insightsTopic(template: Template): [string, Resource] {
  return only(
    Object.entries(template.findResources('AWS::SNS::Topic', { Properties: Match.objectLike({ DisplayName: 'mintlify-exporter insights' }) })) as [
      string,
      Resource,
    ][],
  );
}

function scheduleOf(template: Template, functionId: string): string {
  const rule = only(
    Object.values(template.findResources('AWS::Events::Rule') as Record<string, Resource>).filter((r) =>
      JSON.stringify(r.Properties.Targets).includes(`"${functionId}"`),
    ),
  );
  return rule.Properties.ScheduleExpression as string;
}

/** The object keys (after the bucket) a statement's resources name. */
function keysOf(statement: Statement): string[] {
  return [statement.Resource].flat().flatMap((resource) => {
    const join = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
    if (!join) return [];
    const last = join[1][join[1].length - 1];
    return typeof last === 'string' && last.startsWith('/') ? [last.slice(1)] : [];
  });
}

describe('weekly report', () => {
  it('runs on Monday 06:00 UTC by default, on reportSchedule when given, and refuses a schedule that is not one', () => {
    const [weeklyId] = functionOf(defaults.template, WEEKLY);
    expect(scheduleOf(defaults.template, weeklyId)).toBe('cron(0 6 ? * MON *)');
    const custom = synthStack({ projectIds: 'proj_a', reportSchedule: 'cron(0 7 ? * FRI *)' });
    expect(scheduleOf(custom.template, functionOf(custom.template, WEEKLY)[0])).toBe('cron(0 7 ? * FRI *)');
    withApp({ reportSchedule: 'every monday' }, (app) => {
      expect(() => configFromContext(app)).toThrow(ContextConfigError);
      expect(() => configFromContext(app)).toThrow(/"reportSchedule": "every monday" is not accepted \(expected an EventBridge expression/);
    });
    for (const [key, value] of [
      ['anomalyDrop', '1.5'],
      ['anomalyRise', '0.9'],
      ['reportEmail', 'nobody'],
    ]) {
      withApp({ [key as string]: value }, (app) => expect(() => configFromContext(app), key).toThrow(new RegExp(`"${key}"`)));
    }
  });

  it('runs on x86_64 (DuckDB’s binding) with HOME under /tmp, and the insights check after the export each hour', () => {
    for (const description of [WEEKLY, CHECK]) {
      const [, fn] = functionOf(defaults.template, description);
      expect(fn.Properties.Architectures, description).toEqual(['x86_64']);
      expect(fn.Properties.Environment.Variables.HOME, description).toBe('/tmp');
    }
    expect(scheduleOf(defaults.template, functionOf(defaults.template, CHECK)[0])).toBe('cron(35 * * * ? *)');
  });

  it('reads the data prefixes and what its page shows (outcomes, anomaly marks), writes only under reports/ and its verdicts under fix_effects/, never deletes', () => {
    const statements = statementsOf(defaults.template, roleOf(defaults.template, WEEKLY));
    const s3 = statements.filter((s) => [s.Action].flat().some((a) => a.startsWith('s3:')));
    const writes = s3.filter((s) => [s.Action].flat().some((a) => a.startsWith('s3:Put')));
    expect(writes.flatMap(keysOf).sort()).toEqual(['mintlify/fix_effects/*', 'mintlify/reports/*']);
    expect(s3.flatMap((s) => [s.Action].flat()).filter((a) => a.startsWith('s3:Delete'))).toEqual([]);
    const reads = s3.filter((s) => [s.Action].flat().includes('s3:GetObject')).flatMap(keysOf);
    expect(reads).toEqual(
      expect.arrayContaining([
        'mintlify/visitors_totals/*',
        'mintlify/_manifests/*',
        'mintlify/_staging/*',
        'mintlify/export_runs/*',
        'mintlify/followup_outcomes/*',
        'mintlify/_insights/anomalies/*',
      ]),
    );
    expect(reads.some((key) => key.startsWith('mintlify/reports') || key === 'mintlify/*' || key === '*')).toBe(false);
  });

  it('raises an alarm on the alarm topic when it fails', () => {
    const [weeklyId] = functionOf(defaults.template, WEEKLY);
    const alarmTopic = only(
      Object.keys(defaults.template.findResources('AWS::SNS::Topic', { Properties: Match.objectLike({ DisplayName: 'mintlify-exporter alarms' }) })),
    );
    defaults.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Errors',
      Dimensions: [{ Name: 'FunctionName', Value: { Ref: weeklyId } }],
      AlarmActions: [{ Ref: alarmTopic }],
      AlarmDescription: Match.stringLikeRegexp('Runbook: docs/operations.md → Runbook: WeeklyReportFailures'),
    });
  });
});

describe('insights topic', () => {
  it('is encrypted with its own key and refuses every request not made over TLS', () => {
    const [topicId, topic] = insightsTopic(defaults.template);
    const keyId = (topic.Properties.KmsMasterKeyId as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
    expect(defaults.template.findResources('AWS::KMS::Key')[keyId]?.Properties.EnableKeyRotation).toBe(true);
    defaults.template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      Topics: [{ Ref: topicId }],
      PolicyDocument: {
        Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      },
    });
  });

  it('is published to by the two insights functions only, named in their environment and the outputs', () => {
    const [topicId] = insightsTopic(defaults.template);
    const roles = [roleOf(defaults.template, WEEKLY), roleOf(defaults.template, CHECK)];
    const publishers = Object.values(rolePolicies(defaults.template) as Record<string, Resource>)
      .filter((policy) => JSON.stringify(policy.Properties.PolicyDocument).includes(`{"Ref":"${topicId}"}`))
      .flatMap((policy) => (policy.Properties.Roles as { Ref: string }[]).map((r) => r.Ref));
    expect(publishers.sort()).toEqual([...roles].sort());
    for (const role of roles) {
      expect(statementsOf(defaults.template, role).filter((s) => [s.Action].flat().some((a) => a.startsWith('sns:')))).toEqual([
        { Effect: 'Allow', Action: 'sns:Publish', Resource: { Ref: topicId } },
      ]);
    }
    for (const description of [WEEKLY, CHECK]) {
      expect(functionOf(defaults.template, description)[1].Properties.Environment.Variables.INSIGHTS_TOPIC_ARN).toEqual({ Ref: topicId });
    }
    defaults.template.hasOutput('InsightsTopicArn', { Value: { Ref: topicId }, Description: Match.stringLikeRegexp('weekly report') });
  });

  it('subscribes reportEmail when given, and nobody otherwise', () => {
    expect(Object.keys(defaults.template.findResources('AWS::SNS::Subscription', { Properties: Match.objectLike({ Endpoint: 'docs@example.com' }) }))).toEqual(
      [],
    );
    const withEmail = synthStack({ projectIds: 'proj_a', reportEmail: 'docs@example.com' });
    const [topicId] = insightsTopic(withEmail.template);
    withEmail.template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'docs@example.com', TopicArn: { Ref: topicId } });
  });

  it("lets the hourly check touch only the state table's insights# items", () => {
    const dynamo = statementsOf(defaults.template, roleOf(defaults.template, CHECK)).filter((s) => [s.Action].flat().some((a) => a.startsWith('dynamodb:')));
    expect(dynamo).toEqual([
      expect.objectContaining({
        Action: ['dynamodb:DeleteItem', 'dynamodb:GetItem', 'dynamodb:PutItem'],
        Condition: { 'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': ['insights#*'] } },
      }),
    ]);
  });
});
