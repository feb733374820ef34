/**
 * The insights functions as Lambda runs them: the synth (in process, local esbuild, the
 * DuckDB packages copied into the asset), then each bundle loaded in a separate Node process
 * against fauxqs (S3 + SNS). The weekly report writes both pages and publishes one digest whose
 * figures equal an independent DuckDB query over the same lake and whose link is a pre-signed
 * URL of the week's page, and registers its verdicts' day (fix_effects) in the Glue stand-in; the
 * hourly check tells a fallen Tuesday once.
 */
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { createVerify, generateKeyPairSync } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outcomeKey } from '../../functions/follow-up/outcome.js';
import { recordAnomalies } from '../../functions/warehouse/records.js';
import { createLocalDestination } from '../../functions/shared/storage/destination-local.js';
import { createS3Destination } from '../../functions/shared/storage/destination-s3.js';
import { INSIGHTS_METRICS } from '../../functions/shared/metric-names.js';
import { completedFixOutcome, glueTableNames, startBundleStand, type BundleStand } from '../helpers/bundle-fixture.js';
import { functionEnvironment, functionHandler, invokeBundle, type Assembly } from '../../scripts/lib/bundles.js';
import type { Dynamo } from '../helpers/emulators.js';
import type { S3Sqs } from '../../scripts/lib/s3-sqs.js';
import { startIamGuard, type IamGuard, type IamGuardOptions } from '../helpers/iam.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../helpers/secrets-manager.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';
import { cachedLake } from '../helpers/lake-cache.js';
import { parquetTable, startGlueStandIn, type GlueStandIn } from '../helpers/glue-stand-in.js';
import { everyDays, FLAT_DAY, writeLake, type LakeDay } from '../helpers/insights-lake.js';
import { queryDuckDb } from '../helpers/read-back.js';
import { beyondChance } from '../../functions/warehouse/noise.js';

const PROJECTS = ['proj_a', 'proj_b'] as const;
/** Monday 06:00 UTC, the schedule's time: the week to Sunday 2026-11-22 (ISO 2026-W47) is complete. */
const EVENT = { 'detail-type': 'Scheduled Event', source: 'aws.events', time: '2026-11-23T06:00:00Z' };
const LAST_WEEK = everyDays('2026-11-09', 7);
const THIS_WEEK = everyDays('2026-11-16', 7);
const WEEKLY = 'Weekly: the report of the last 7 complete days';
const CHECK = 'Hourly: anomalies of newly complete days';

/** A different day for every project and day, so a wrong window or a lost project shows. */
function figuresOf(projectId: string, day: string, thisWeek: boolean): LakeDay {
  const n = Number(day.slice(8)) + (projectId === 'proj_b' ? 100 : 0);
  return { ...FLAT_DAY, human: 400 + n * (thisWeek ? 3 : 2), views: 1_500 + n, searches: 200 + (thisWeek ? n : 0), thumbsDown: 3 + (n % 4) };
}

/**
 * The report link key pair, as the operator makes it (docs/deploy.md): public key in context,
 * private key in the secret. Made once per content of the tree and kept with the lakes
 * (lake-cache.ts), since the public key is part of the synth's context: a new pair each run
 * made the synth's key new each run, so the cached assembly was never reused (about 20 s of CPU).
 */
async function linkKeys(): Promise<{ readonly publicKey: string; readonly privateKey: string }> {
  const { meta } = await cachedLake('report-link-keys', async () =>
    generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    }),
  );
  return meta;
}
const LINK_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:report-link-key-AbCdEf';

let stand: BundleStand;
let assembly: Assembly;
let secrets: FakeSecretsManager;
let aws: S3Sqs;
let dynamo: Dynamo;
let bucket: string;
let localLake: string;
let glue: GlueStandIn;
const GLUE_DATABASE = 'mintlify_analytics';

beforeAll(async () => {
  const keys = await linkKeys();
  [stand, secrets] = await Promise.all([
    startBundleStand({
      projectIds: PROJECTS.join(','),
      reportLinkPublicKey: keys.publicKey.trim().replaceAll('\n', '\\n'),
      reportSiteUrl: 'https://docs.example.com',
    }),
    startFakeSecretsManager({ [LINK_SECRET_ARN]: keys.privateKey }),
  ]);
  ({ assembly, aws, dynamo, bucket } = stand);
  glue = await startGlueStandIn(GLUE_DATABASE, { fix_effects: parquetTable(`s3://${bucket}/mintlify/fix_effects/`) });
  localLake = await makeTempDir('insights-bundle');
  const days = [...LAST_WEEK.map((day) => ({ day, thisWeek: false })), ...THIS_WEEK.map((day) => ({ day, thisWeek: true }))].flatMap(({ day, thisWeek }) =>
    PROJECTS.map((projectId) => ({ projectId, day, figures: figuresOf(projectId, day, thisWeek) })),
  );
  const finishedAt = (day: string) => Date.parse(`${day}T00:00:00Z`) + 27 * 3_600_000;
  await writeLake(createS3Destination({ bucket, prefix: 'mintlify', client: aws.s3 }), days, finishedAt);
  await writeLake(createLocalDestination(localLake), days, finishedAt);
  // What the page shows besides the tables: a fix made by a follow-up job (its outcome record)
  // and an anomaly mark of the hourly check, each under its own prefix.
  const outcome = completedFixOutcome('req-fix-1', 'proj_a', 'job_fix');
  await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `mintlify/${outcomeKey(outcome)}`, Body: JSON.stringify(outcome) }));
  await recordAnomalies(createS3Destination({ bucket, prefix: 'mintlify', client: aws.s3 }), [
    { projectId: 'proj_a', day: '2026-11-18', figure: 'human', value: 40, usual: 420, direction: 'drop' },
  ]);
}, 300_000);

/** The template's report link variables, as the deployed stack would resolve them. */
const linkValues = {
  REPORT_LINK_URL: 'https://d111111abcdef8.cloudfront.net',
  REPORT_LINK_KEY_PAIR_ID: 'K2JCJMDEHXQW5F',
  REPORT_LINK_KEY_SECRET_ARN: LINK_SECRET_ARN,
};

const guards: IamGuard[] = [];
/** The function's calls checked against its role's policies in the template (test/helpers/iam.ts). */
async function guard(description: string, values: Record<string, string>, upstreams: IamGuardOptions['upstreams'], revoke?: IamGuardOptions['revoke']) {
  // The Glue tables' names, which their ARNs in the role's policies are made of.
  const bind = glueTableNames(assembly.resources);
  const started = await startIamGuard({ resources: assembly.resources, description, values, upstreams, bind, ...(revoke ? { revoke } : {}) });
  guards.push(started);
  return started;
}

afterAll(async () => {
  await Promise.all([stand?.close(), secrets?.close(), glue?.close(), ...guards.map((g) => g.close())]);
  await removeTempDirs();
});

describe('the synthesized insights functions', () => {
  it('synthesize with no unacknowledged cdk-nag finding, DuckDB and the queries in their assets', () => {
    expect(assembly.output).not.toMatch(/AwsSolutions-/);
    // One asset for both functions: DuckDB is staged once.
    expect(assembly.functionAssetDir(WEEKLY)).toBe(assembly.functionAssetDir(CHECK));
    for (const asset of [WEEKLY, CHECK]) {
      const dir = assembly.functionAssetDir(asset);
      expect(existsSync(join(dir, 'node_modules/@duckdb/node-bindings-linux-x64/duckdb.node')), asset).toBe(true);
      expect(existsSync(join(dir, 'queries/daily-totals.sql')), asset).toBe(true);
    }
  });

  it('the weekly report, under its role, writes both pages and publishes one digest with the figures of an independent query and a link signed for 7 days', async () => {
    const { topicArn, subscriber } = await aws.createTopicWithSubscriber();
    const values = { EXPORT_DESTINATION: `s3://${bucket}/mintlify`, INSIGHTS_TOPIC_ARN: topicArn, EXPORT_GLUE_DATABASE: GLUE_DATABASE, ...linkValues };
    const env = functionEnvironment(assembly.resources, WEEKLY, values);
    const iam = await guard(WEEKLY, values, { S3: aws.endpoint, SNS: aws.endpoint, SECRETS_MANAGER: secrets.endpoint, GLUE: glue.endpoint });
    const started = Date.now();
    const { result, error, logs } = await invokeBundle(
      assembly.outDir,
      join(assembly.functionAssetDir(WEEKLY), 'index.js'),
      EVENT,
      { ...env, ...iam.env },
      functionHandler(assembly.resources, WEEKLY),
    );
    expect(iam.denied, 'calls its role may not make').toEqual([]);
    expect(error, logs).toBeUndefined();
    expect(iam.calls).toEqual(
      expect.arrayContaining([
        `s3:GetObject on arn:aws:s3:::${bucket}/mintlify/followup_outcomes/dt=2026-11-17/req-fix-1.json`,
        `s3:GetObject on arn:aws:s3:::${bucket}/mintlify/_insights/anomalies/dt=2026-11-18/proj_a.json`,
        `sns:Publish on ${topicArn}`,
        `secretsmanager:GetSecretValue on ${LINK_SECRET_ARN}`,
      ]),
    );
    expect(result).toMatchObject({ week: '2026-W47', keys: ['reports/weekly/2026-W47.html', 'reports/latest.html'] });
    expect(logs).toContain(`"${INSIGHTS_METRICS.weeklyReports}"`);

    const page = async (key: string) =>
      (await (await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: `mintlify/${key}` }))).Body?.transformToString()) ?? '';
    const weekly = await page('reports/weekly/2026-W47.html');
    expect(weekly).toMatch(/^<!doctype html>/i);
    expect(weekly).toContain('2026-11-16');
    expect(await page('reports/latest.html')).toBe(weekly);
    // What the new grants let it read: the fix and the anomaly mark are on the page.
    expect(weekly).toContain('Fixes and their effect');
    expect(weekly).toContain('human visitors 40 vs usual 420');
    // Its verdict on the fix lands in the warehouse's fix_effects table, under the grant for that folder only.
    const put = iam.calls.find((call) =>
      new RegExp(`^s3:PutObject on arn:aws:s3:::${bucket}/mintlify/fix_effects/dt=\\d{4}-\\d{2}-\\d{2}/proj_a\\.json$`).test(call),
    );
    expect(put, iam.calls.join('\n')).toBeDefined();
    const verdict = JSON.parse(await page(put?.split(`${bucket}/mintlify/`)[1] ?? '')) as Record<string, unknown>;
    expect(verdict).toMatchObject({ gap_id: 'gap-quickstart', project_id: 'proj_a', job_id: 'job_fix', verdict: 'too_little_data' });
    // …and the verdicts' day is registered in the catalog by the run that wrote it, within its role.
    const day = /dt=(\d{4}-\d{2}-\d{2})\//.exec(put ?? '')?.[1];
    expect([...glue.partitions(GLUE_DATABASE, 'fix_effects').keys()]).toEqual([day]);
    expect(glue.partitions(GLUE_DATABASE, 'fix_effects').get(day ?? '')?.storageDescriptor['Location']).toBe(`s3://${bucket}/mintlify/fix_effects/dt=${day}/`);
    expect(iam.calls).toEqual(expect.arrayContaining([expect.stringMatching(/^glue:BatchCreatePartition on .*fix_effects$/)]));

    const messages = await aws.takeAll(subscriber);
    expect(messages).toHaveLength(1);
    const sent = JSON.parse(messages[0]?.Body ?? '{}') as { Subject: string; Message: string; MessageAttributes: Record<string, { Value: string }> };
    expect(sent.MessageAttributes['kind']?.Value).toBe('weekly-report');
    expect(sent.Subject.length).toBeLessThan(100);

    // The figures, read independently from the same lake.
    const sums = async (column: string, table: string, from: string, to: string, where = 'true') =>
      Number(
        (
          await queryDuckDb(
            `SELECT ${column} AS n FROM read_parquet('${localLake}/${table}/*/*.parquet') WHERE date >= DATE '${from}' AND date < DATE '${to}' AND ${where}`,
          )
        )[0]?.['n'] ?? 0,
      );
    const expected = {
      'Human visitors': [
        await sums('sum(human)', 'visitors_totals', '2026-11-16', '2026-11-23'),
        await sums('sum(human)', 'visitors_totals', '2026-11-09', '2026-11-16'),
      ],
      'Page views': [
        await sums('sum(total)', 'views_totals', '2026-11-16', '2026-11-23'),
        await sums('sum(total)', 'views_totals', '2026-11-09', '2026-11-16'),
      ],
      Searches: [
        await sums('sum(total_searches)', 'searches_totals', '2026-11-16', '2026-11-23'),
        await sums('sum(total_searches)', 'searches_totals', '2026-11-09', '2026-11-16'),
      ],
      'Thumbs down': [
        await sums('count(*)', 'feedback', '2026-11-16', '2026-11-23', 'helpful = false'),
        await sums('count(*)', 'feedback', '2026-11-09', '2026-11-16', 'helpful = false'),
      ],
    } as const;
    // What a rise means: more is better, worse, or neither (searches) — the digest says it in words.
    const rise = { 'Human visitors': 'better', 'Page views': 'better', Searches: undefined, 'Thumbs down': 'worse' } as const;
    for (const [label, [current, previous]] of Object.entries(expected)) {
      const row = new RegExp(`^${label}\\s+([\\d,]+)\\s+([\\d,]+)\\s+(\\S+ %|new)(?:\\s+(better|worse))?$`, 'm').exec(sent.Message);
      expect(row, `${label} row in:\n${sent.Message}`).not.toBeNull();
      expect([Number(row?.[1]?.replaceAll(',', '')), Number(row?.[2]?.replaceAll(',', ''))], label).toEqual([current, previous]);
      const change = Math.round((100 * (current - previous)) / previous);
      expect(row?.[3], label).toBe(`${change > 0 ? '+' : change < 0 ? '-' : ''}${Math.abs(change)} %`);
      const meaning = rise[label as keyof typeof rise];
      // A word only for a change beyond chance at its counts (warehouse/noise.ts, docs/report.md).
      const word =
        meaning === undefined || !beyondChance(current, previous) ? undefined : current > previous ? meaning : meaning === 'better' ? 'worse' : 'better';
      expect(row?.[4], label).toBe(word);
    }
    const [human] = expected['Human visitors'];
    expect(sent.Subject).toContain(`human visitors ${human.toLocaleString('en-US')}`);
    // The lake holds five of the seven datasets: the other two are missing, 7 days × 2 projects each.
    expect(sent.Message).toContain('missing 28, failed 0, partial 0, drifted 0');

    // The link: a CloudFront signed URL of the week's page (canned policy), valid 7 days from
    // when it was signed, verified offline against the template's public key.
    const link = /^The report: (\S+)$/m.exec(sent.Message)?.[1] ?? '';
    const url = new URL(link);
    expect(`${url.origin}${url.pathname}`).toBe(`${linkValues.REPORT_LINK_URL}/weekly/2026-W47.html`);
    expect(url.searchParams.get('Key-Pair-Id')).toBe(linkValues.REPORT_LINK_KEY_PAIR_ID);
    const expires = Number(url.searchParams.get('Expires'));
    expect(expires).toBeGreaterThanOrEqual(Math.floor(started / 1000) + 7 * 24 * 3600);
    expect(expires).toBeLessThanOrEqual(Math.floor(Date.now() / 1000) + 7 * 24 * 3600);
    expect(sent.Message).toContain(`(the link works until ${new Date(expires * 1000).toISOString()};`);
    const policy = JSON.stringify({ Statement: [{ Resource: `${url.origin}${url.pathname}`, Condition: { DateLessThan: { 'AWS:EpochTime': expires } } }] });
    const signature = (url.searchParams.get('Signature') ?? '').replaceAll('-', '+').replaceAll('_', '=').replaceAll('~', '/');
    const templateKey = Object.values(assembly.resources).find((r) => r.Type === 'AWS::CloudFront::PublicKey')?.Properties['PublicKeyConfig'] as {
      EncodedKey: string;
    };
    expect(createVerify('RSA-SHA1').update(policy).verify(templateKey.EncodedKey, signature, 'base64')).toBe(true);
    // No pre-signed S3 URL (it would die with the role session that signed it).
    expect(sent.Message).not.toMatch(/X-Amz-(Signature|Credential|Security-Token)/);
    // REPORT_SITE_URL reached the weekly function: the page links the top pages to the docs site.
    expect(weekly).toContain('href="https://docs.example.com/');
  }, 180_000);

  it('the weekly report without the grant to read what its page shows fails, naming the denied call, and publishes nothing', async () => {
    const { topicArn, subscriber } = await aws.createTopicWithSubscriber();
    const values = { EXPORT_DESTINATION: `s3://${bucket}/mintlify`, INSIGHTS_TOPIC_ARN: topicArn, EXPORT_GLUE_DATABASE: GLUE_DATABASE, ...linkValues };
    // The new grant: reading the outcome records and the anomaly marks.
    const iam = await guard(
      WEEKLY,
      values,
      { S3: aws.endpoint, SNS: aws.endpoint, SECRETS_MANAGER: secrets.endpoint },
      { action: 's3:GetObject', resource: /\/mintlify\/(followup_outcomes|_insights\/anomalies)\/\*$/ },
    );
    const { error, logs } = await invokeBundle(
      assembly.outDir,
      join(assembly.functionAssetDir(WEEKLY), 'index.js'),
      { ...EVENT, time: '2026-11-23T07:00:00Z' },
      { ...functionEnvironment(assembly.resources, WEEKLY, values), ...iam.env },
      functionHandler(assembly.resources, WEEKLY),
    );
    expect(iam.denied[0]).toMatch(new RegExp(`^s3:GetObject on arn:aws:s3:::${bucket}/mintlify/(followup_outcomes|_insights/anomalies)/dt=`));
    // The outcome records are read first (the fixes' look-back sets what is mirrored): the destination's error names the key it could not get.
    expect(error, logs).toMatch(
      /(not authorized to perform: s3:GetObject on resource: arn:aws:s3:::\S+\/|S3 GetObject of s3:\/\/\S+\/)(followup_outcomes|_insights\/anomalies)\/.*AccessDenied|not authorized to perform: s3:GetObject on resource: arn:aws:s3:::\S+\/(followup_outcomes|_insights\/anomalies)\//,
    );
    expect(await aws.takeAll(subscriber)).toEqual([]);
  }, 180_000);

  it('the hourly check tells a fallen day once, from the bundle, keeping its claim in the state table', async () => {
    const { topicArn, subscriber } = await aws.createTopicWithSubscriber();
    const { table } = stand;
    // A fourth Monday after three like it, at a tenth of their visitors (a bucket of its own,
    // under the prefix the role is granted).
    const mondays = everyDays('2026-11-02', 4, 7);
    const checkBucket = await aws.createBucket();
    await writeLake(
      createS3Destination({ bucket: checkBucket, prefix: 'mintlify', client: aws.s3 }),
      mondays.map((day, i) => ({ projectId: 'proj_a', day, figures: { ...FLAT_DAY, human: i === 3 ? 40 : 400 } })),
      (day) => Date.parse(`${day}T00:00:00Z`) + 27 * 3_600_000,
    );
    const values = { EXPORT_DESTINATION: `s3://${checkBucket}/mintlify`, INSIGHTS_TOPIC_ARN: topicArn, EXPORT_STATE_TABLE: table };
    const iam = await guard(CHECK, values, { S3: aws.endpoint, SNS: aws.endpoint, DYNAMODB: dynamo.endpoint });
    const env = {
      ...functionEnvironment(assembly.resources, CHECK, values),
      MINTLIFY_PROJECT_IDS: 'proj_a',
      EXPORT_DATASETS: 'visitors,views,searches,assistant,feedback',
      ...iam.env,
    };
    const bundle = join(assembly.functionAssetDir(CHECK), 'index.js');
    const hour = { ...EVENT, time: '2026-11-24T06:35:00Z' };
    const first = await invokeBundle(assembly.outDir, bundle, hour, env, functionHandler(assembly.resources, CHECK));
    expect(first.error, first.logs).toBeUndefined();
    const messages = await aws.takeAll(subscriber);
    const subjects = messages.map((m) => (JSON.parse(m.Body ?? '{}') as { Subject: string }).Subject);
    expect(subjects.filter((s) => s.includes('human visitors'))).toEqual(['proj_a: human visitors fell to 10 % on 2026-11-23 (40 vs 400)']);

    const again = await invokeBundle(assembly.outDir, bundle, { ...hour, time: '2026-11-24T07:35:00Z' }, env, functionHandler(assembly.resources, CHECK));
    expect(again.error, again.logs).toBeUndefined();
    expect((await aws.takeAll(subscriber)).filter((m) => (m.Body ?? '').includes('anomaly'))).toEqual([]);
    expect(iam.denied, 'calls its role may not make').toEqual([]);
    expect(iam.calls).toEqual(
      expect.arrayContaining([expect.stringMatching(/^dynamodb:PutItem on /), expect.stringMatching(/^s3:PutObject on .*\/_insights\/anomalies\//)]),
    );
  }, 180_000);
});
