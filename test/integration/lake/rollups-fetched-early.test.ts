/**
 * The mirror of a bucket fetches the roll-ups as soon as their checks pass (functions/warehouse/lake/download.ts
 * `fetchEarly`), while the tables' days of the months not rolled up are still being listed — not
 * once every listing has answered — and the report is the same bytes as without roll-ups. The lake
 * of test/integration/lake/rollups.test.ts (the same cache): two whole settled months and a few days.
 */
import path from 'node:path';
import { DATASET_NAMES, DATASET_TABLES } from '../../../functions/warehouse/catalog.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../../sandbox/index.js';
import { startS3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { removeTempDirs } from '../../helpers/files.js';
import { bucketReport, reportPage, ROLLED_PROJECT, rolledBucket, rolledLake } from '../../helpers/rolled-lake.js';

const PROJECT = ROLLED_PROJECT;
/** The bucket folders of the dataset tables' day files. */
const TABLE_FOLDERS = DATASET_NAMES.flatMap((dataset) => DATASET_TABLES[dataset].map((table) => `lake/${table.prefix}/`));
const RANGE = ['--from', '2026-03-01', '--to', '2026-05-04'] as const;

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let out: string;
let root: string;

beforeAll(async () => {
  sandbox = await startSandbox({ projects: [{ id: PROJECT, paths: 12 }] });
  ({ root, out } = await rolledLake(sandbox));
}, 600_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('the report over a bucket with roll-ups', () => {
  it('sends the roll-ups’ GETs before the listings of the tables’ other days have answered, and says the same as without roll-ups', async () => {
    const aws = await startS3Sqs();
    try {
      const lake = await rolledBucket(aws, sandbox, out);
      /** What the client sent and what answered, in order: a roll-up's GET sent, a listing of a table's days answered. */
      let events: string[] = [];
      aws.s3.middlewareStack.add(
        (next, context) => async (args) => {
          const name = (context as { commandName?: string }).commandName;
          const input = args.input as { Key?: string; Prefix?: string };
          if (name === 'GetObjectCommand' && String(input.Key).includes('/_rollups/')) events.push(`get ${input.Key}`);
          const answer = await next(args);
          // A dataset table's days, not a folder of the units' states (`_manifests/`, `_staging/`) nor the run log.
          if (name === 'ListObjectsV2Command' && TABLE_FOLDERS.some((folder) => String(input.Prefix ?? '').startsWith(folder)))
            events.push(`listed ${input.Prefix}`);
          return answer;
        },
        { step: 'initialize', name: 'recordOrder' },
      );
      const report = async (rollups: boolean, name: string) => {
        events = [];
        await bucketReport(lake, rollups, RANGE, path.join(root, name));
      };
      await report(false, 'early-days.html');
      await report(true, 'early-rolled.html');
      const firstGet = events.findIndex((event) => event.startsWith('get '));
      const lastListed = events.findLastIndex((event) => event.startsWith('listed '));
      expect(firstGet, events.join('\n')).toBeGreaterThanOrEqual(0);
      expect(lastListed, events.join('\n')).toBeGreaterThanOrEqual(0);
      expect(firstGet, events.join('\n')).toBeLessThan(lastListed);
      expect(await reportPage(path.join(root, 'early-rolled.html'))).toBe(await reportPage(path.join(root, 'early-days.html')));
    } finally {
      await aws.close();
    }
  }, 300_000);
});
