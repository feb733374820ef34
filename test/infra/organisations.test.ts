/**
 * The stack with context `organisations=true` (issue 46): the schedule starts the dispatcher,
 * the queue feeds the export workers with bounded concurrency, the organisations' secrets are
 * readable only under their prefix (and listable), the export's Glue tables have an `org`
 * partition (injected projection) before `dt`, and the alarms and metrics carry the organisation.
 * Without the option the stack is the one of today.
 */
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { AwsSolutionsChecks } from 'cdk-nag';
import { ORG_QUEUE_MAX_RECEIVES } from '../../infra/constructs/organisations.js';
import { synthStack, type SynthResult, rolePolicies } from '../helpers/synth.js';

let orgs: SynthResult;
let plain: SynthResult;

// Two syntheses: minutes when the machine's cores are shared.
beforeAll(() => {
  orgs = synthStack({ organisations: 'true', organisationConcurrency: '25' });
  plain = synthStack();
}, 600_000);

const resourcesOf = (template: Template) => template.toJSON().Resources as Record<string, { Type: string; Properties?: Record<string, unknown> }>;
type Statement = { Action: string | string[]; Resource: unknown };
/** The statements of the export workers' role policy. */
function workerStatements(template: Template): Statement[] {
  const role = Object.keys(template.findResources('AWS::IAM::Role')).find((id) => id.includes('OrganisationsWorker'));
  const policies = Object.values(rolePolicies(template)).filter((p) => role !== undefined && JSON.stringify(p.Properties.Roles).includes(role));
  if (policies.length === 0) throw new Error('no policy of the workers role');
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}
/** The statements of the follow-up function's role policy. */
function followUpStatements(result: SynthResult): Statement[] {
  const role = result.stack.getLogicalId(result.stack.followUps.function.role?.node.defaultChild as never);
  const policies = Object.values(rolePolicies(result.template)).filter((p) => JSON.stringify(p.Properties.Roles).includes(role));
  if (policies.length === 0) throw new Error('no policy of the follow-up role');
  return policies.flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}
const withAction = (statements: readonly Statement[], action: string) => statements.filter((s) => [s.Action].flat().includes(action));

const logicalIdOf = (template: Template, type: string, props: object) => {
  const found = Object.keys(template.findResources(type, { Properties: props }));
  expect(found, `${type} ${JSON.stringify(props)}`).toHaveLength(1);
  return found[0] as string;
};

// cdk-nag over the whole stack takes seconds alone, more with the two cores shared.
describe('with -c organisations=true', { timeout: 120_000 }, () => {
  it('starts the dispatcher on the hourly schedule, and no longer the single-organisation export', () => {
    const t = orgs.template;
    const dispatcher = logicalIdOf(t, 'AWS::Lambda::Function', { Handler: 'index.dispatcher' });
    t.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'cron(5 * * * ? *)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [dispatcher, 'Arn'] } })],
    });
    const exportFn = orgs.stack.getLogicalId(orgs.stack.analyticsExport.function.node.defaultChild as never);
    t.hasResourceProperties('AWS::Events::Rule', { State: 'DISABLED', Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [exportFn, 'Arn'] } })] });
  });

  it('gives the dispatcher the queue to send to, and the queue to the workers one message at a time with bounded concurrency and batch item failures', () => {
    const t = orgs.template;
    const queue = orgs.stack.getLogicalId(orgs.stack.organisations?.queue.node.defaultChild as never);
    const worker = logicalIdOf(t, 'AWS::Lambda::Function', { Handler: 'index.worker' });
    t.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.dispatcher',
      Environment: { Variables: Match.objectLike({ EXPORT_ORGS_QUEUE_URL: { Ref: queue } }) },
    });
    t.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] },
      FunctionName: { Ref: worker },
      BatchSize: 1,
      ScalingConfig: { MaximumConcurrency: 25 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    const dlq = orgs.stack.getLogicalId(orgs.stack.organisations?.deadLetterQueue.node.defaultChild as never);
    // A handback (budget) is a receive, not a failure: the redrive only catches a crashing worker, and a message outlives a 12 h handback.
    t.hasResourceProperties('AWS::SQS::Queue', {
      RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlq, 'Arn'] }, maxReceiveCount: ORG_QUEUE_MAX_RECEIVES },
      MessageRetentionPeriod: 14 * 3600,
    });
    expect(ORG_QUEUE_MAX_RECEIVES).toBeGreaterThan(1);
  });

  it("lets the dispatcher list secrets (names only) and the workers read only the secrets under the organisations' prefix", () => {
    const t = orgs.template;
    const policies = Object.values(rolePolicies(t)).map((p) => JSON.stringify(p));
    const dispatcherRole = orgs.stack.getLogicalId(orgs.stack.organisations?.dispatcher.role?.node.defaultChild as never);
    const followUpRole = orgs.stack.getLogicalId(orgs.stack.followUps.function.role?.node.defaultChild as never);
    // The dispatcher and the follow-up function (which finds a project's organisation) list names.
    const listing = policies.filter((p) => p.includes('secretsmanager:ListSecrets'));
    expect(listing).toHaveLength(2);
    expect(listing.every((p) => p.includes(dispatcherRole) || p.includes(followUpRole))).toBe(true);
    const dispatcherPolicy = listing.filter((p) => p.includes(dispatcherRole));
    expect(dispatcherPolicy).toHaveLength(1);
    expect(dispatcherPolicy[0]).not.toContain('secretsmanager:GetSecretValue');
    const reads = withAction(workerStatements(t), 'secretsmanager:GetSecretValue');
    const text = JSON.stringify(reads);
    expect(text).toContain(':secret:MintlifyExporter/orgs/*');
    expect(text).not.toMatch(/"\*"|secret:\*/);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.worker',
      Environment: { Variables: Match.objectLike({ EXPORT_ORGS_SECRET_PREFIX: 'MintlifyExporter/orgs/' }) },
    });
    t.hasOutput('OrganisationsSecretPrefix', { Value: 'MintlifyExporter/orgs/' });
  });

  it("lets the follow-up function read only the organisations' secrets, never the deployment key, and write outcomes under orgs/<id>/", () => {
    const statements = followUpStatements(orgs);
    const reads = withAction(statements, 'secretsmanager:GetSecretValue');
    expect(reads).toHaveLength(1);
    expect(JSON.stringify(reads[0]?.Resource)).toContain(':secret:MintlifyExporter/orgs/*');
    expect(JSON.stringify(reads)).not.toMatch(/"\*"|secret:\*|ApiKey/);
    // ListSecrets returns names only: how a message naming only its project finds its organisation.
    expect([withAction(statements, 'secretsmanager:ListSecrets')[0]?.Action].flat()).toEqual(['secretsmanager:ListSecrets']);
    const puts = JSON.stringify(withAction(statements, 's3:PutObject'));
    expect(puts).toContain('/mintlify/orgs/*/followup_outcomes/*');
    expect(puts).not.toMatch(/\/mintlify\/followup_outcomes\//);
    const fn = orgs.stack.getLogicalId(orgs.stack.followUps.function.node.defaultChild as never);
    const variables = resourcesOf(orgs.template)[fn]?.Properties?.['Environment'] as { Variables: Record<string, unknown> };
    expect(variables.Variables['EXPORT_ORGS_SECRET_PREFIX']).toBe('MintlifyExporter/orgs/');
    expect(variables.Variables['MINTLIFY_API_KEY_SECRET_ARN']).toBeUndefined();
    // Without the option: the deployment's key, and the root's outcomes folder.
    const single = followUpStatements(plain);
    expect(JSON.stringify(withAction(single, 'secretsmanager:GetSecretValue'))).not.toContain('/orgs/');
    expect(JSON.stringify(withAction(single, 's3:PutObject'))).toContain('/mintlify/followup_outcomes/*');
  });

  it("gives the export's Glue tables an injected org partition before dt, at orgs/<org>/", () => {
    const tables = Object.values(orgs.template.findResources('AWS::Glue::Table')).map((r) => r.Properties.TableInput);
    const visitors = tables.find((table) => table.Name === 'visitors_totals');
    expect(visitors.PartitionKeys.map((k: { Name: string }) => k.Name)).toEqual(['org', 'dt']);
    expect(visitors.Parameters['projection.org.type']).toBe('injected');
    expect(visitors.Parameters['projection.dt.type']).toBe('date');
    expect(JSON.stringify(visitors.Parameters['storage.location.template'])).toContain(['/mintlify/orgs/$', '{org}/visitors_totals/dt=$', '{dt}/'].join(''));
    // The run tables too (DESIGN: each organisation's lake is orgs/<id>/ with the layout inside).
    for (const name of ['followup_outcomes', 'export_runs', 'fix_effects']) {
      const table = tables.find((t) => t.Name === name);
      expect(
        table.PartitionKeys.map((k: { Name: string }) => k.Name),
        name,
      ).toEqual(['org', 'dt']);
      expect(JSON.stringify(table.Parameters['storage.location.template']), name).toContain(['/mintlify/orgs/$', `{org}/${name}/dt=$`, '{dt}/'].join(''));
    }
  });

  it("lets the workers register (org, dt) partitions on the dataset tables and their run log only, in the stack's database", () => {
    const t = orgs.template;
    const registering = withAction(workerStatements(t), 'glue:BatchCreatePartition');
    expect(registering).toHaveLength(1);
    expect([registering[0]?.Action].flat().sort()).toEqual(['glue:BatchCreatePartition', 'glue:GetTable']);
    const tableIds = Object.entries(t.findResources('AWS::Glue::Table')).map(([id, r]) => [r.Properties.TableInput.Name as string, id] as const);
    const text = JSON.stringify(registering[0]?.Resource);
    for (const [name, id] of tableIds) {
      if (name === 'visitors_totals' || name === 'visitors_pages') expect(text, name).toContain(id);
      if (name === 'export_runs') expect(text, name).toContain(id);
      if (name === 'followup_outcomes' || name === 'fix_effects') expect(text, name).not.toContain(id);
    }
    // The follow-up function registers its outcomes' days, on that table only.
    const outcomes = withAction(followUpStatements(orgs), 'glue:BatchCreatePartition');
    expect(outcomes).toHaveLength(1);
    const outcomesText = JSON.stringify(outcomes[0]?.Resource);
    for (const [name, id] of tableIds) expect(outcomesText.includes(id), name).toBe(name === 'followup_outcomes');
    expect(text).not.toMatch(/table\/\*|"\*"/);
    t.hasResourceProperties('AWS::Lambda::Function', {
      Handler: 'index.worker',
      Environment: { Variables: Match.objectLike({ EXPORT_GLUE_DATABASE: Match.anyValue() }) },
    });
  });

  it('draws a graph per organisation on the dashboard (Metrics Insights by Organisation: runs, requests, failures, lag), and none without the option', () => {
    const body = (t: Template) => JSON.stringify(Object.values(t.findResources('AWS::CloudWatch::Dashboard')).map((r) => r.Properties.DashboardBody));
    const text = body(orgs.template);
    for (const metric of ['UnitsCompleted', 'AnalyticsRequests', 'OrganisationRunsFailed', 'BacklogRequests']) {
      expect(text).toMatch(new RegExp(`SELECT (SUM|MAX)\\(${metric}\\) FROM SCHEMA\\(.*Organisation, service\\) GROUP BY Organisation`));
    }
    expect(text).toContain('Lag per organisation');
    expect(body(plain.template)).not.toContain('GROUP BY Organisation');
  });

  it("lets the workers write only under orgs/<id>/ of the export's folders", () => {
    const puts = withAction(workerStatements(orgs.template), 's3:PutObject');
    const text = JSON.stringify(puts);
    expect(text).toContain('/mintlify/orgs/*/visitors_totals/*');
    expect(text).toContain('/mintlify/orgs/*/export_runs/*');
    expect(text).not.toMatch(/\/mintlify\/visitors_totals\//);
  });

  it("runs the weekly report and the hourly check once per organisation, listing the organisations' folders and writing in each one's lake", () => {
    const t = orgs.template;
    t.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.weeklyReportOrganisations' });
    t.hasResourceProperties('AWS::Lambda::Function', { Handler: 'index.checkOrganisations' });
    const policies = JSON.stringify(rolePolicies(t));
    expect(policies).toContain('"s3:prefix":"mintlify/orgs/","s3:delimiter":"/"');
    expect(policies).toContain('/mintlify/orgs/*/reports/*');
    // Its verdicts on fixes in each organisation's fix_effects folder (the root's grant does not reach orgs/<id>/).
    expect(policies).toContain('/mintlify/orgs/*/fix_effects/*');
    expect(JSON.stringify(plain.template.findResources('AWS::Lambda::Function'))).not.toMatch(/weeklyReportOrganisations|checkOrganisations/);
    expect(policies).toContain('/mintlify/orgs/*/_insights/anomalies/*');
  });

  it('alarms on failed organisations with a contributor per organisation, on the dead letters and on the dispatcher, to the alarm topic', () => {
    const t = orgs.template;
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({ Expression: 'SELECT SUM(OrganisationRunsFailed) FROM SCHEMA("MintlifyExporter", Organisation, service) GROUP BY Organisation' }),
      ]),
      AlarmActions: [{ Ref: orgs.stack.getLogicalId(orgs.stack.operations.topic.node.defaultChild as never) }],
    });
    const dlq = orgs.stack.getLogicalId(orgs.stack.organisations?.deadLetterQueue.node.defaultChild as never);
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlq, 'QueueName'] } }],
    });
  });

  it('passes cdk-nag with its acknowledgements scoped to exact findings', () => {
    const report = new AwsSolutionsChecks().validateScope(orgs.stack);
    const findings = report.violations.flatMap((violation) =>
      violation.violatingResources.map((resource) => `${violation.ruleName} @ ${resource.constructPath ?? resource.resourceLogicalId}`),
    );
    expect(findings).toEqual([]);
  });
});

describe('without the option', () => {
  it('synthesizes the resources of today: no dispatcher, no workers, no org partition, the export scheduled', () => {
    const types = (template: Template) => Object.values(resourcesOf(template)).map((r) => r.Type);
    const handlers = Object.values(plain.template.findResources('AWS::Lambda::Function')).map((r) => r.Properties.Handler);
    expect(handlers).not.toContain('index.dispatcher');
    expect(handlers).not.toContain('index.worker');
    expect(types(plain.template).filter((type) => type === 'AWS::Lambda::EventSourceMapping')).toHaveLength(1); // the follow-ups'
    const tables = Object.values(plain.template.findResources('AWS::Glue::Table')).map((r) => r.Properties.TableInput);
    for (const table of tables) expect(table.PartitionKeys.map((k: { Name: string }) => k.Name)).toEqual(['dt']);
    expect(JSON.stringify(plain.template.findResources('AWS::Events::Rule'))).not.toContain('DISABLED');
    // The same resources as with the option, less exactly the organisations' own.
    // A role's grants may take its inline policy past IAM's size: CDK then adds an overflow managed policy (not a resource of its own concern).
    const orgIds = Object.keys(resourcesOf(orgs.template)).filter((id) => !id.startsWith('Organisations') && !/RoleOverflowPolicy/.test(id));
    const plainIds = Object.keys(resourcesOf(plain.template)).filter((id) => !/RoleOverflowPolicy/.test(id));
    expect(plainIds.sort()).toEqual(orgIds.sort());
  });
});
