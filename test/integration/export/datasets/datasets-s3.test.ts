/**
 * Every analytics dataset exported through the real engine over real HTTP against the
 * sandbox into the S3 emulator (fauxqs on 127.0.0.1), every object read back with DuckDB and
 * compared value for value with `sandbox.data` (issue 9): the Hive layout under the prefix,
 * the contract's column types, empty days, manifests, and nothing left behind by a unit that
 * fails.
 */
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { monthOfDay, unitIndexKey } from '../../../../functions/warehouse/lake/layout.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUnits, type RunSummary } from '../../../../functions/export/run-units.js';
import type { DatasetName } from '../../../../functions/warehouse/catalog.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createS3Destination } from '../../../../functions/shared/storage/destination-s3.js';
import { startSandbox, type ProjectSeed, type Sandbox } from '../../../../sandbox/index.js';
import { startS3Sqs, type S3Sqs } from '../../../../scripts/lib/s3-sqs.js';
import { expectedTables, expectUnitMatches } from '../../../helpers/expected-rows.js';
import { ALL_DATASETS, tableKey, tableNames, unitKeys } from '../../../helpers/layout.js';
import { readManifest } from '../../../helpers/read-back.js';
import { ROUTE_OF } from '../../../helpers/request-log.js';
import { DATASET_CLIENT, exportDeps, failureOf, plannedUnits, testSettings } from '../../../helpers/run-deps.js';

const API_KEY = 'mint_datasets_s3_0123456789abcdef';
const DAY = '2026-02-10';
const START = Date.parse('2026-02-11T04:00:00.000Z');
const EXPORTED_AT = new Date(START).toISOString();
const PREFIX = 'exports/mintlify';

const RICH = 'proj_rich';
/** No views, searches, feedback or assistant turns that day. */
const QUIET = 'proj_quiet';
const PROJECTS: ProjectSeed[] = [
  { id: RICH, paths: 510, exact: true, rows: { views: 500, searches: 230, feedback: 300, assistant: 1_100 } },
  { id: QUIET, paths: 1, exact: true, rows: { views: 0, searches: 0, feedback: 0, assistant: 0 } },
];
const UNITS = plannedUnits(ALL_DATASETS, [RICH, QUIET], DAY);

let sandbox: Sandbox;
let aws: S3Sqs;
let bucket: string;
let destination: Destination;
let summary: RunSummary;

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([startSandbox({ apiKey: API_KEY, projects: PROJECTS }), startS3Sqs()]);
  bucket = await aws.createBucket();
  destination = createS3Destination({ bucket, prefix: PREFIX, client: aws.s3 });
  summary = await runUnits({
    units: UNITS,
    policy: testSettings({ datasets: ALL_DATASETS }),
    deps: exportDeps({ sandbox, destination, start: START, client: DATASET_CLIENT }),
  });
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
});

/** Every key of a bucket, sorted. */
async function listKeys(name: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await aws.s3.send(new ListObjectsV2Command({ Bucket: name, ...(token ? { ContinuationToken: token } : {}) }));
    for (const object of page.Contents ?? []) if (object.Key) keys.push(object.Key);
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys.sort();
}

const expected = { exportedAt: EXPORTED_AT };

describe('every dataset exported into S3', () => {
  it('completes every unit of the run', () => {
    expect(summary.units.map((unit) => `${unit.dataset} ${unit.projectId} ${unit.status}`)).toEqual(
      UNITS.map((unit) => `${unit.dataset} ${unit.projectId} complete`),
    );
  });

  it('puts exactly the Hive-layout objects under the prefix (every table of every unit and its manifest, its month’s index of units), no staging left', async () => {
    const units = UNITS.flatMap((unit) => unitKeys(unit.dataset, DAY, unit.projectId));
    const indexes = [...new Set(UNITS.map((unit) => unitIndexKey(unit.dataset, monthOfDay(DAY))))];
    const keys = [...units, ...indexes].map((key) => `${PREFIX}/${key}`).sort();

    expect(await listKeys(bucket)).toEqual(keys);
  });

  it.each(ALL_DATASETS)('%s: every object reads back with DuckDB equal to the sandbox rows, value for value, with the contract types', async (dataset) => {
    const tables = expectedTables(sandbox.data, { dataset, projectId: RICH, day: DAY }, expected);
    for (const table of tableNames(dataset)) expect(tables[table]?.length, `${table} has rows to compare`).toBeGreaterThan(0);

    await expectUnitMatches(destination, sandbox.data, { dataset, projectId: RICH, day: DAY }, expected);
  });

  it.each(ALL_DATASETS)('%s: an empty day still has every object, with the full column set, and its manifest', async (dataset) => {
    const tables = expectedTables(sandbox.data, { dataset, projectId: QUIET, day: DAY }, expected);

    await expectUnitMatches(destination, sandbox.data, { dataset, projectId: QUIET, day: DAY }, expected);

    const manifest = await readManifest(destination, dataset, DAY, QUIET);
    expect(manifest?.rows).toEqual(Object.fromEntries(tableNames(dataset).map((table) => [table, tables[table]?.length])));
    expect(manifest?.files).toEqual(Object.fromEntries(tableNames(dataset).map((table) => [table, tableKey(table, DAY, QUIET)])));
  });
});

describe('a unit that fails in S3', () => {
  it.each(['searches', 'feedback', 'assistant'] as DatasetName[])(
    '%s: a repeated cursor after good pages leaves no object under its tables and no manifest',
    async (dataset) => {
      const failing = await aws.createBucket();
      const target = createS3Destination({ bucket: failing, prefix: PREFIX, client: aws.s3 });
      sandbox.addFault({ route: ROUTE_OF[dataset], projectId: RICH, kind: 'repeat-cursor' });

      const run = await runUnits({
        units: plannedUnits([dataset], [RICH], DAY),
        policy: testSettings({ datasets: ALL_DATASETS }),
        deps: exportDeps({ sandbox, destination: target, start: START, client: DATASET_CLIENT }),
      });

      sandbox.clearFaults();
      expect(failureOf(run.units[0])).toMatch(/^PaginationError: /);
      expect(await listKeys(failing)).toEqual([`${PREFIX}/_staging/${dataset}/dt=${DAY}/${RICH}/failure.json`]);
    },
  );
});
