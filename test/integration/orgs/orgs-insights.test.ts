/**
 * The insights of a deployment for many organisations (issue 46), in process against fauxqs
 * (S3 + SNS): the weekly report writes one page and publishes one digest per organisation found
 * under `<prefix>/orgs/`, each page in its own lake, each digest with the attribute
 * `organisation` (an organisation with nothing exported in the two weeks is skipped); the
 * hourly check tells one organisation's anomaly, naming it, from its own lake and state.
 */
import { ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insightsDepsFromConfig } from '../../../functions/insights/handler.js';
import { createOrganisationsInsightsHandler } from '../../../functions/insights/organisations.js';
import { weeklyDepsFromConfig } from '../../../functions/insights/weekly/handler.js';
import { createMemoryStore } from '../../../functions/shared/storage/shared-store.js';
import { createOrganisationsWeeklyHandler, type OrganisationsWeeklyAnswer } from '../../../functions/insights/weekly/organisations.js';
import { loadConfigFor } from '../../../functions/settings/config.js';
import { createS3Destination } from '../../../functions/shared/storage/destination-s3.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { removeTempDirs } from '../../helpers/files.js';
import { everyDays, FLAT_DAY, writeLake } from '../../helpers/insights-lake.js';

/** Monday 06:00 UTC: the week to Sunday 2026-11-22 (ISO 2026-W47) is complete. */
const NOW = Date.parse('2026-11-23T06:00:00Z');
const DAYS = everyDays('2026-11-09', 14);
const ORGS = { acme: 'proj_a', beta: 'proj_b' } as const;

let aws: S3Sqs;
let bucket: string;
let subscriber: string;
let answer: OrganisationsWeeklyAnswer;

beforeAll(async () => {
  aws = await startS3Sqs();
  bucket = await aws.createBucket();
  const topic = await aws.createTopicWithSubscriber();
  subscriber = topic.subscriber;
  const finishedAt = (day: string) => Date.parse(`${day}T00:00:00Z`) + 27 * 3_600_000;
  for (const [org, projectId] of Object.entries(ORGS)) {
    const lake = createS3Destination({ bucket, prefix: `mintlify/orgs/${org}`, client: aws.s3 });
    await writeLake(
      lake,
      DAYS.map((day) => ({ projectId, day, figures: { ...FLAT_DAY, human: org === 'acme' ? 500 : 900 } })),
      finishedAt,
    );
  }
  // An organisation whose first export has not happened yet: only its run log.
  await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'mintlify/orgs/quiet/export_runs/dt=2026-11-22/run.json', Body: '{}' }));
  const config = loadConfigFor({ EXPORT_DESTINATION: `s3://${bucket}/mintlify`, INSIGHTS_TOPIC_ARN: topic.topicArn }, 'weekly-report');
  const deps = weeklyDepsFromConfig(config, { s3: aws.s3, sns: aws.sns });
  answer = await createOrganisationsWeeklyHandler({ ...deps, now: () => NOW })({ time: '2026-11-23T06:00:00Z' });
}, 120_000);

afterAll(async () => {
  await aws?.close();
  await removeTempDirs();
});

describe('the weekly report of many organisations', () => {
  it('writes each organisation its pages in its own lake, and skips the one with nothing exported', async () => {
    expect(answer.organisations.map((o) => [o.organisation, o.week])).toEqual([
      ['acme', '2026-W47'],
      ['beta', '2026-W47'],
    ]);
    expect(answer.skipped).toEqual(['quiet']);
    const { Contents = [] } = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/' }));
    const pages = Contents.map((o) => o.Key ?? '').filter((key) => key.includes('/reports/') || key.startsWith('mintlify/reports'));
    expect(pages.sort()).toEqual([
      'mintlify/orgs/acme/reports/latest.html',
      'mintlify/orgs/acme/reports/weekly/2026-W47.html',
      'mintlify/orgs/beta/reports/latest.html',
      'mintlify/orgs/beta/reports/weekly/2026-W47.html',
    ]);
  });

  it('publishes one digest per organisation, named in its subject and its organisation attribute', async () => {
    const sent = (await aws.takeAll(subscriber)).map(
      (m) => JSON.parse(m.Body ?? '{}') as { Subject: string; Message: string; MessageAttributes: Record<string, { Value: string }> },
    );
    expect(sent.map((s) => [s.MessageAttributes['organisation']?.Value, s.MessageAttributes['kind']?.Value]).sort()).toEqual([
      ['acme', 'weekly-report'],
      ['beta', 'weekly-report'],
    ]);
    for (const s of sent) expect(s.Subject).toMatch(new RegExp(`^${s.MessageAttributes['organisation']?.Value}: `));
    expect(sent.find((s) => s.MessageAttributes['organisation']?.Value === 'beta')?.Message).toContain('s3://');
  });
});

describe('the hourly check of many organisations', () => {
  it("tells an anomaly of one organisation's lake, naming the organisation, with its own state", async () => {
    const tuesdays = everyDays('2026-10-20', 5, 7);
    const last = '2026-11-17';
    const at = Date.parse('2026-11-18T06:00:00Z');
    const checkBucket = await aws.createBucket();
    const topic = await aws.createTopicWithSubscriber();
    const finishedAt = (day: string) => Date.parse(`${day}T00:00:00Z`) + 27 * 3_600_000;
    for (const [org, projectId] of Object.entries(ORGS)) {
      const lake = createS3Destination({ bucket: checkBucket, prefix: `mintlify/orgs/${org}`, client: aws.s3 });
      const human = (day: string) => (org === 'beta' && day === last ? 50 : 500);
      await writeLake(
        lake,
        tuesdays.map((day) => ({ projectId, day, figures: { ...FLAT_DAY, human: human(day) } })),
        finishedAt,
      );
    }
    const config = loadConfigFor(
      {
        EXPORT_DESTINATION: `s3://${checkBucket}/mintlify`,
        INSIGHTS_TOPIC_ARN: topic.topicArn,
        EXPORT_STATE_TABLE: 'unused-here',
        EXPORT_DATASETS: 'visitors,views,searches,assistant,feedback',
      },
      'insights',
    );
    const store = createMemoryStore();
    const deps = { ...insightsDepsFromConfig(config, { s3: aws.s3, sns: aws.sns }), store, now: () => at };
    const result = await createOrganisationsInsightsHandler({ ...deps, s3: aws.s3 })({ time: '2026-11-18T06:00:00Z' });

    expect(result.organisations.map((o) => [o.organisation, o.anomalies.map((a) => [a.projectId, a.day, a.figure])])).toEqual([
      ['acme', []],
      ['beta', [['proj_b', last, 'human']]],
    ]);
    const sent = (await aws.takeAll(topic.subscriber)).map(
      (m) => JSON.parse(m.Body ?? '{}') as { Subject: string; MessageAttributes: Record<string, { Value: string }> },
    );
    expect(sent.map((s) => [s.MessageAttributes['organisation']?.Value, s.MessageAttributes['kind']?.Value])).toEqual([['beta', 'anomaly']]);
    expect(sent[0]?.Subject).toMatch(/^beta: proj_b: human visitors fell/);
    // Each organisation's watermark and claims are its own.
    expect((await store.list('')).every((d) => d.key.startsWith('orgs/acme/') || d.key.startsWith('orgs/beta/'))).toBe(true);
  });
});
