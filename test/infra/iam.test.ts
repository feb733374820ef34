/**
 * The roles as the template writes them: each function's DynamoDB access is limited to its own
 * key prefix (`dynamodb:LeadingKeys` on every statement), listing the bucket to the folders it
 * reads (`s3:prefix` on every s3:ListBucket), no S3 action family — and, through the IAM policy
 * engine the bundle tests use (test/helpers/iam.ts), what that means for real requests.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EXPORT_KEY_PREFIX, FOLLOWUP_KEY_PREFIX } from '../../functions/shared/state-keys.js';
import { INSIGHTS_KEY_PREFIX } from '../../functions/insights/state.js';
import { evaluateCall, resolver, rolePolicies, type IamCall, type PolicyStatement } from '../helpers/iam.js';
import { synthStack, synthTemplate } from '../helpers/synth.js';

const template = synthTemplate({ projectIds: 'proj_a' });
const resources = template.toJSON()['Resources'] as Record<string, { Type: string; Properties: Record<string, unknown> }>;
const BUCKET = 'data-bucket';
const bucketId = Object.keys(template.findResources('AWS::S3::Bucket')).find((id) => id.includes('Data'));
const tableId = Object.keys(template.findResources('AWS::DynamoDB::Table'))[0] ?? '';
const { resolve, getAtt } = resolver(resources, { ...(bucketId ? { [bucketId]: BUCKET } : {}), [tableId]: 'state' });
const TABLE_ARN = getAtt(tableId, 'Arn');

const FUNCTIONS = {
  export: 'Hourly',
  followUp: 'Sends queued follow-up prompts',
  check: 'Hourly: anomalies',
  weekly: 'Weekly: the report',
} as const;

function descriptionOf(start: string): string {
  const fn = Object.values(resources).find((r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties['Description']).startsWith(start));
  if (!fn) throw new Error(`no function "${start}…"`);
  return String(fn.Properties['Description']);
}

function roleOf(name: keyof typeof FUNCTIONS) {
  return rolePolicies(resources, descriptionOf(FUNCTIONS[name]), resolve);
}

function statements(name: keyof typeof FUNCTIONS): PolicyStatement[] {
  return roleOf(name).policies.flatMap(({ policy }) => policy.Statement);
}

const actions = (statement: PolicyStatement) => [statement.Action].flat();

async function may(name: keyof typeof FUNCTIONS, call: IamCall): Promise<boolean> {
  const role = roleOf(name);
  return (await evaluateCall(call, role.roleArn, role.policies, undefined)) === 'Allowed';
}

const item = (action: string, key: string): IamCall => ({ action: `dynamodb:${action}`, resource: TABLE_ARN, context: { 'dynamodb:LeadingKeys': [key] } });
const list = (prefix: string): IamCall => ({ action: 's3:ListBucket', resource: `arn:aws:s3:::${BUCKET}`, context: { 's3:prefix': prefix } });
const get = (key: string): IamCall => ({ action: 's3:GetObject', resource: `arn:aws:s3:::${BUCKET}/${key}`, context: {} });

describe('the roles of the template', () => {
  it('limit every DynamoDB statement to the function’s own key prefix', () => {
    const prefixes: Record<string, string> = {};
    for (const name of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      for (const statement of statements(name).filter((s) => actions(s).some((a) => a.startsWith('dynamodb:')))) {
        const leading = statement.Condition?.['ForAllValues:StringLike']?.['dynamodb:LeadingKeys'];
        expect(leading, `${name}: ${JSON.stringify(statement)}`).toBeDefined();
        prefixes[name] = [leading].flat().join();
      }
    }
    expect(prefixes).toEqual({ export: `${EXPORT_KEY_PREFIX}*`, followUp: `${FOLLOWUP_KEY_PREFIX}*`, check: `${INSIGHTS_KEY_PREFIX}*` });
  });

  it('limit every listing of the bucket to prefixes, and name S3 actions one by one', () => {
    for (const name of Object.keys(FUNCTIONS) as (keyof typeof FUNCTIONS)[]) {
      const s3 = statements(name).filter((s) => actions(s).some((a) => a.startsWith('s3:')));
      expect(
        s3.flatMap(actions).filter((a) => a.includes('*')),
        name,
      ).toEqual([]);
      for (const statement of s3.filter((s) => actions(s).includes('s3:ListBucket'))) {
        const prefixes = [statement.Condition?.['StringLike']?.['s3:prefix'] ?? []].flat();
        expect(prefixes.length, `${name}: ${JSON.stringify(statement)}`).toBeGreaterThan(0);
        for (const prefix of prefixes) expect(prefix, name).toMatch(/^mintlify\/[^*]+\/\*$/);
      }
    }
  });

  it('keep each function to its own items of the state table', async () => {
    expect(await may('export', item('PutItem', 'export#budget/ledger'))).toBe(true);
    expect(await may('export', item('PutItem', 'followup#req-1'))).toBe(false);
    expect(await may('export', item('UpdateItem', 'export#budget/ledger'))).toBe(false);
    expect(await may('followUp', item('GetItem', 'followup#req-1'))).toBe(true);
    expect(await may('followUp', item('PutItem', 'export#budget/ledger'))).toBe(false);
    expect(await may('followUp', { action: 'dynamodb:Scan', resource: TABLE_ARN, context: {} })).toBe(false);
    expect(await may('check', item('DeleteItem', 'insights#told/x'))).toBe(true);
    expect(await may('check', item('GetItem', 'export#budget/ledger'))).toBe(false);
    expect(await may('weekly', item('GetItem', 'insights#told/x'))).toBe(false);
  });

  it('let each function list only the folders it reads', async () => {
    expect(await may('weekly', list('mintlify/visitors_totals/dt=2026-11-16'))).toBe(true);
    expect(await may('weekly', list('mintlify/followup_outcomes/'))).toBe(true);
    expect(await may('weekly', list('mintlify/'))).toBe(false);
    expect(await may('weekly', { action: 's3:ListBucket', resource: `arn:aws:s3:::${BUCKET}`, context: {} })).toBe(false);
    expect(await may('export', list('mintlify/_manifests/visitors/'))).toBe(true);
    expect(await may('export', list('mintlify/followup_outcomes/'))).toBe(false);
    expect(await may('check', list('mintlify/_insights/anomalies/'))).toBe(true);
    expect(await may('followUp', list('mintlify/followup_outcomes/'))).toBe(false);
  });

  it('let the weekly report read what its page shows, and the consumer read nothing', async () => {
    expect(await may('weekly', get('mintlify/followup_outcomes/dt=2026-11-17/req-1.json'))).toBe(true);
    expect(await may('weekly', get('mintlify/_insights/anomalies/dt=2026-11-18/proj_a.json'))).toBe(true);
    expect(await may('weekly', get('mintlify/athena-results/q.csv'))).toBe(false);
    // The erasures that changed its figures, which its export health names (the hourly check reads none).
    expect(await may('weekly', list('mintlify/_privacy/erasures/'))).toBe(true);
    expect(await may('weekly', get('mintlify/_privacy/erasures/1700000000000-abcd.json'))).toBe(true);
    expect(await may('check', list('mintlify/_privacy/erasures/'))).toBe(false);
    expect(await may('followUp', get('mintlify/followup_outcomes/dt=2026-11-17/req-1.json'))).toBe(false);
    expect(await may('check', get('mintlify/followup_outcomes/dt=2026-11-17/req-1.json'))).toBe(false);
  });
});

describe('the report link distribution (context reportLinkPublicKey)', () => {
  const { publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const linked = synthStack({ projectIds: 'proj_a', reportLinkPublicKey: publicKey.trim().replaceAll('\n', '\\n') }).template;
  const all = linked.toJSON()['Resources'] as Record<string, { Type: string; Properties: Record<string, any> }>;

  it('serves only signed requests of its key group, over HTTPS, from the reports folder', () => {
    const [distribution] = Object.values(linked.findResources('AWS::CloudFront::Distribution'));
    const config = distribution?.['Properties'].DistributionConfig;
    expect(config.DefaultCacheBehavior.TrustedKeyGroups).toHaveLength(1);
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('https-only');
    expect(config.Origins[0].OriginPath).toBe('/mintlify/reports');
    expect(config.Origins[0].OriginAccessControlId).toBeDefined();
    const [key] = Object.values(linked.findResources('AWS::CloudFront::PublicKey'));
    expect(key?.['Properties'].PublicKeyConfig.EncodedKey).toBe(publicKey.trim());
  });

  it('lets the distribution read the reports folder of the bucket and nothing else', () => {
    const statements = Object.values(all)
      .filter((r) => r.Type === 'AWS::S3::BucketPolicy')
      .flatMap((r) => r.Properties.PolicyDocument.Statement as { Principal?: { Service?: string }; Action: string; Resource: unknown }[])
      .filter((s) => s.Principal?.Service === 'cloudfront.amazonaws.com');
    expect(statements).toHaveLength(1);
    expect(statements[0]?.Action).toBe('s3:GetObject');
    expect(JSON.stringify(statements[0]?.Resource)).toMatch(/"\/mintlify\/reports\/\*"\]\]\}$/);
  });

  it('gives the weekly function the link settings and the private key secret to read, and no other function either', () => {
    const weekly = Object.values(all).find((r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description).startsWith('Weekly'));
    expect(Object.keys(weekly?.Properties.Environment.Variables ?? {})).toEqual(
      expect.arrayContaining(['REPORT_LINK_URL', 'REPORT_LINK_KEY_PAIR_ID', 'REPORT_LINK_KEY_SECRET_ARN']),
    );
    const secretId = Object.keys(linked.findResources('AWS::SecretsManager::Secret')).find((id) => id.startsWith('ReportLinks'));
    const readers = Object.values(all)
      .filter(
        (r) =>
          (r.Type === 'AWS::IAM::Policy' || r.Type === 'AWS::IAM::ManagedPolicy') &&
          JSON.stringify(r.Properties.PolicyDocument).includes(`"Ref":"${secretId}"`),
      )
      .map((r) => JSON.stringify(r.Properties.Roles));
    expect(readers).toHaveLength(1);
    expect(readers[0]).toMatch(/WeeklyReport/);
  });
});
