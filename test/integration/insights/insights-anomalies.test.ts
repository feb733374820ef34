/**
 * The hourly insights check against a real SNS topic (fauxqs, an SQS queue subscribed) and a
 * lake in a folder: one project's Tuesday at 10 % of the Tuesdays before it is told exactly
 * once, naming project, day, figure and both numbers; the same hour again tells nothing; a flat
 * history and too short a history tell nothing; a dataset a day late is told stale once, and
 * again only after it recovered.
 */
import type { Message } from '@aws-sdk/client-sqs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runInsightChecks, type CheckDeps } from '../../../functions/insights/check.js';
import { createInsightPublisher } from '../../../functions/insights/publish.js';
import { openLake } from '../../../functions/warehouse/lake.js';
import { buildReport } from '../../../functions/report/report.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { createMemoryStore, type SharedStore } from '../../../functions/shared/storage/shared-store.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { everyDays, FLAT_DAY, writeLake, type LakeDataset } from '../../helpers/insights-lake.js';
import { parseLakeTarget } from '../../../functions/warehouse/lake/target.js';

const TUESDAYS = everyDays('2026-10-20', 5, 7); // … 2026-11-17
const LAST = '2026-11-17';
/** Wednesday 06:00 UTC: the Tuesday is due (2 settle hours) and exported. */
const NOW = Date.parse('2026-11-18T06:00:00Z');
const FIGURE_DATASETS: readonly LakeDataset[] = ['visitors', 'views', 'searches', 'assistant', 'feedback'];
const SETTINGS = { projectIds: ['proj_a', 'proj_b'], datasets: FIGURE_DATASETS, settleHours: 2, thresholds: { drop: 0.5, rise: 3 } } as const;
const HUMAN_BEFORE = [480, 500, 510, 520];

let emulators: S3Sqs;
beforeAll(async () => {
  emulators = await startS3Sqs();
});
afterAll(async () => {
  await emulators.close();
});
afterEach(removeTempDirs);

interface Setup {
  readonly root: string;
  readonly deps: CheckDeps;
  readonly store: SharedStore;
  readonly clock: { now: number };
  take(): Promise<Message[]>;
}

async function setup(): Promise<Setup> {
  const root = await makeTempDir('insights');
  const destination = createLocalDestination(root);
  const { topicArn, subscriber } = await emulators.createTopicWithSubscriber();
  const store = createMemoryStore();
  const clock = { now: NOW };
  return {
    root,
    store,
    clock,
    deps: {
      destination,
      openLake: (scope) => openLake(parseLakeTarget(root, '--out'), scope),
      store,
      publish: createInsightPublisher({ sns: emulators.sns, topicArn }),
      now: () => clock.now,
    },
    take: () => emulators.takeAll(subscriber),
  };
}

/** The SNS envelope of a message delivered to the subscribed queue. */
function envelope(message: Message): { Subject: string; Message: string; MessageAttributes: Record<string, { Value: string }> } {
  return JSON.parse(message.Body ?? '{}');
}

const finishedAfterDue = (day: string) => Date.parse(`${day}T00:00:00Z`) + 27 * 3_600_000;

describe('anomalies', () => {
  it("tells a project's Tuesday at 10 % of the Tuesdays before it once, naming project, day, figure and both numbers", async () => {
    const s = await setup();
    await writeLake(
      s.deps.destination,
      TUESDAYS.flatMap((day, i) => [
        { projectId: 'proj_a', day, figures: { ...FLAT_DAY, human: day === LAST ? 50 : (HUMAN_BEFORE[i] as number) } },
        { projectId: 'proj_b', day, figures: FLAT_DAY },
      ]),
      finishedAfterDue,
    );

    const first = await runInsightChecks(SETTINGS, s.deps);
    const messages = await s.take();
    expect(messages).toHaveLength(1);
    const sent = envelope(messages[0] as Message);
    expect(sent.MessageAttributes['kind']?.Value).toBe('anomaly');
    expect(sent.MessageAttributes['projectId']?.Value).toBe('proj_a');
    // The median of 480, 500, 510 and 520.
    expect(sent.Subject).toBe('proj_a: human visitors fell to 10 % on 2026-11-17 (50 vs 505)');
    expect(sent.Subject.length).toBeLessThan(100);
    expect(sent.Message).toContain('Project:   proj_a');
    expect(sent.Message).toContain('Day:       2026-11-17 (Tuesday, UTC)');
    expect(sent.Message).toContain('This day:  50');
    expect(sent.Message).toContain('Usual:     505');
    expect(sent.Message).toContain('Compared:  2026-10-20 480, 2026-10-27 500, 2026-11-03 510, 2026-11-10 520');
    expect(first.anomalies.map((a) => [a.projectId, a.day, a.figure, a.value, a.usual])).toEqual([['proj_a', LAST, 'human', 50, 505]]);
    expect(first.freshness.stale).toEqual([]);

    // Shown where people look: status names it, and the warehouse keeps it beside the day.
    const status = await runCliInProcess(['status', '--out', s.root, '--date', LAST, '--dataset', 'visitors'], {
      env: { MINTLIFY_PROJECT_IDS: 'proj_a,proj_b', EXPORT_STATE_DIR: path.join(s.root, '.state') },
      now: () => NOW,
    });
    expect(status.stderr).toBe('');
    expect(status.stdout).toContain(`! anomaly ${LAST} proj_a: human visitors 50 vs usual 505 (10 %)\n`);
    expect(status.stdout.match(/! anomaly/g)).toHaveLength(1);

    // And the report's calendar marks that day's visitors cell, naming it on hover.
    const report = await buildReport(
      { target: parseLakeTarget(s.root, '--out'), period: { from: '2026-11-11', to: '2026-11-18', days: everyDays('2026-11-11', 7) }, projects: [] },
      { now: () => NOW },
    );
    const cells = [...report.html.matchAll(/<td class="s-\w+ anomaly" data-day="([^"]+)" data-dataset="([^"]+)"[^>]*title="([^"]*)">!<\/td>/g)];
    expect(cells.map((c) => [c[1], c[2]])).toEqual([[LAST, 'visitors']]);
    expect(cells[0]?.[3]).toContain('Anomaly: proj_a: human visitors 50 vs usual 505 (10 %)');

    // The same hour again: nothing new since the watermark, and the claim holds anyway.
    const again = await runInsightChecks(SETTINGS, s.deps);
    expect(again.anomalies).toEqual([]);
    expect(await s.take()).toEqual([]);

    // Even when the Tuesday's unit is exported again (a later finishedAt), it is not told twice.
    s.clock.now += 3_600_000;
    await writeLake(s.deps.destination, [{ projectId: 'proj_a', day: LAST, figures: { ...FLAT_DAY, human: 50 } }], () => s.clock.now - 60_000);
    const rerun = await runInsightChecks(SETTINGS, s.deps);
    expect(rerun.newDays.map((d) => `${d.projectId}/${d.day}`)).toEqual([`proj_a/${LAST}`]);
    expect(rerun.anomalies).toEqual([]);
    expect(await s.take()).toEqual([]);
  });

  it('tells nothing for a flat history, nor for a fall with fewer than 3 comparable days', async () => {
    const s = await setup();
    await writeLake(
      s.deps.destination,
      TUESDAYS.flatMap((day) => [
        { projectId: 'proj_a', day, figures: FLAT_DAY },
        // proj_b: only 2 Tuesdays before the fall have their visitors unit complete.
        {
          projectId: 'proj_b',
          day,
          figures: day === LAST ? { ...FLAT_DAY, human: 5 } : FLAT_DAY,
          ...(day === '2026-10-27' || day === '2026-11-03' ? { datasets: ['views', 'searches', 'assistant', 'feedback'] as LakeDataset[] } : {}),
        },
      ]),
      finishedAfterDue,
    );
    const result = await runInsightChecks(SETTINGS, s.deps);
    expect(result.newDays.length).toBeGreaterThan(0);
    expect(result.anomalies).toEqual([]);
    expect(await s.take()).toEqual([]);
  });

  it('tells a rise above 3× and a fall of thumbs down, each figure once', async () => {
    const s = await setup();
    await writeLake(
      s.deps.destination,
      // Thumbs down usually 12 (a base of at least MIN_USUAL, 10: below it no ratio is claimed).
      TUESDAYS.map((day) => ({
        projectId: 'proj_a',
        day,
        figures: day === LAST ? { ...FLAT_DAY, searches: 1_000, thumbsDown: 1 } : { ...FLAT_DAY, thumbsDown: 12 },
      })),
      finishedAfterDue,
    );
    const result = await runInsightChecks({ ...SETTINGS, projectIds: ['proj_a'] }, s.deps);
    expect(result.anomalies.map((a) => [a.figure, a.direction, a.value, a.usual])).toEqual([
      ['searches', 'rise', 1_000, 300],
      ['thumbsDown', 'drop', 1, 12],
    ]);
    const subjects = (await s.take()).map((m) => envelope(m).Subject).sort();
    expect(subjects).toEqual(['proj_a: searches rose to 333 % on 2026-11-17 (1,000 vs 300)', 'proj_a: thumbs down fell to 8 % on 2026-11-17 (1 vs 12)']);
  });
});

describe('freshness', () => {
  it('tells a dataset a day late once, and again only after it recovered', async () => {
    const s = await setup();
    await writeLake(
      s.deps.destination,
      TUESDAYS.map((day) => ({ projectId: 'proj_a', day, figures: FLAT_DAY })),
      finishedAfterDue,
    );
    const settings = { ...SETTINGS, projectIds: ['proj_a'], datasets: ['visitors'] as const };
    // Wednesday 06:00: Tuesday is the newest complete day, on time.
    expect((await runInsightChecks(settings, s.deps)).freshness.stale).toEqual([]);

    // Thursday 03:00: Wednesday ended 27 h ago, past 2 + 24 h, and is not complete.
    s.clock.now = Date.parse('2026-11-20T03:00:00Z');
    const late = await runInsightChecks(settings, s.deps);
    expect(late.freshness.stale).toEqual([{ projectId: 'proj_a', dataset: 'visitors', latest: LAST }]);
    const [message, ...rest] = await s.take();
    expect(rest).toEqual([]);
    const sent = envelope(message as Message);
    expect(sent.MessageAttributes['kind']?.Value).toBe('stale');
    expect(sent.MessageAttributes['projectId']?.Value).toBe('proj_a');
    expect(sent.Subject).toBe('proj_a: visitors is stale, last complete day 2026-11-17');

    s.clock.now += 3_600_000;
    expect((await runInsightChecks(settings, s.deps)).freshness.stale).toEqual([]);
    expect(await s.take()).toEqual([]);

    // It recovers, then falls behind again: told again.
    await writeLake(s.deps.destination, [{ projectId: 'proj_a', day: '2026-11-19', figures: FLAT_DAY, datasets: ['visitors'] }], () => s.clock.now);
    expect((await runInsightChecks(settings, s.deps)).freshness.recovered).toEqual([{ projectId: 'proj_a', dataset: 'visitors', latest: '2026-11-19' }]);
    s.clock.now = Date.parse('2026-11-22T06:00:00Z');
    expect((await runInsightChecks(settings, s.deps)).freshness.stale).toHaveLength(1);
    expect(await s.take()).toHaveLength(1);
  });
});
