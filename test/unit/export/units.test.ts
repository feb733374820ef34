/**
 * A unit's state as read from its manifest, checkpoint and failure record (functions/export/units.ts),
 * on a local destination in a temp folder: a manifest that is valid JSON but lacks the fields a
 * complete unit has is not complete — `status` says so in one line, and the export redoes it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { planRequested, planScheduled } from '../../../functions/export/plan.js';
import { CHECKPOINT_VERSION } from '../../../functions/export/staging.js';
import { completeUnits, readUnitState } from '../../../functions/export/units.js';
import { unitKey } from '../../../functions/export/unit-id.js';
import { readExportStatus } from '../../../functions/export/status.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { manifestKey, stagingPrefix } from '../../../functions/warehouse/keys.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const UNIT = { dataset: 'visitors', projectId: 'proj_a', day: '2026-11-20' } as const;

afterEach(removeTempDirs);

async function withManifest(text: string) {
  const root = await makeTempDir('units');
  const key = manifestKey(UNIT.dataset, UNIT.day, UNIT.projectId);
  await mkdir(path.dirname(path.join(root, key)), { recursive: true });
  await writeFile(path.join(root, key), text);
  return createLocalDestination(root);
}

describe('a manifest that is valid JSON but lacks fields', () => {
  it('status shows the unit as missing with one line naming the manifest and what it lacks, instead of a TypeError', async () => {
    const destination = await withManifest('{"version": 2, "dataset": "visitors"}\n');

    const status = await readExportStatus(destination, [UNIT]);

    expect(status.units).toEqual([
      expect.objectContaining({
        state: 'missing',
        error: expect.stringMatching(/^manifest .*proj_a\.json is incomplete \(no .*rows.*\): the next export does the unit again$/),
      }),
    ]);
    expect(status.units[0]?.error).not.toContain('\n');
    expect(status.todo).toBe(1);
  });

  it('is not complete to the export: the unit is planned again', async () => {
    const destination = await withManifest('{}');

    const plan = await planRequested({ days: [UNIT.day], projects: [UNIT.projectId], datasets: [UNIT.dataset], force: false, now: Date.now() }, destination);

    expect(plan.units.map((u) => `${u.dataset} ${u.projectId} ${u.day}`)).toEqual(['visitors proj_a 2026-11-20']);
  });

  it('a manifest of another unit (its dataset, project or day differ) is not this unit complete', async () => {
    const destination = await withManifest(JSON.stringify({ ...validManifest(), projectId: 'proj_b' }));

    const status = await readExportStatus(destination, [UNIT]);

    expect(status.units[0]).toMatchObject({ state: 'missing', error: expect.stringContaining('projectId') });
  });

  it('a whole manifest is complete', async () => {
    const destination = await withManifest(JSON.stringify(validManifest()));

    const status = await readExportStatus(destination, [UNIT]);

    expect(status.units[0]).toMatchObject({ state: 'complete', rows: 12, requests: 3 });
  });
});

function validManifest() {
  return {
    version: 2,
    dataset: 'visitors',
    projectId: 'proj_a',
    date: UNIT.day,
    window: { dateFrom: '2026-11-20T00:00:00.000Z', dateTo: '2026-11-21T00:00:00.000Z' },
    exportedAt: '2026-11-21T03:00:00.000Z',
    finishedAt: '2026-11-21T03:00:05.000Z',
    rows: { visitors_pages: 12, visitors_totals: 1 },
    files: { visitors_pages: 'visitors_pages/dt=2026-11-20/proj_a.parquet', visitors_totals: 'visitors_totals/dt=2026-11-20/proj_a.parquet' },
    bytes: { visitors_pages: 100, visitors_totals: 50 },
    pages: 3,
    requests: { successful: 3, sent: 3, retried: 0 },
    runs: 1,
    durationsMs: { total: 5000 },
  };
}

describe('a checkpoint written before paging states carried their kind', () => {
  async function withCheckpoint(unit: { dataset: 'visitors' | 'searches'; projectId: string; day: string }, state: unknown) {
    const root = await makeTempDir('units');
    const file = path.join(root, stagingPrefix(unit.dataset, unit.day, unit.projectId), 'checkpoint.json');
    await mkdir(path.dirname(file), { recursive: true });
    const at = '2026-11-21T03:00:00.000Z';
    const checkpoint = {
      version: CHECKPOINT_VERSION,
      dataset: unit.dataset,
      projectId: unit.projectId,
      date: unit.day,
      limit: 250,
      startedAt: at,
      updatedAt: at,
      state,
      requests: { successful: 2, sent: 2, retried: 0 },
      runs: 1,
    };
    await writeFile(file, JSON.stringify(checkpoint));
    return createLocalDestination(root);
  }

  it("is read as a state of its dataset's paging, so the unit resumes where it stood", async () => {
    const visitors = await readUnitState(await withCheckpoint(UNIT, { pages: 2, offset: 500 }), UNIT);
    expect(visitors).toMatchObject({ kind: 'partial', checkpoint: { state: { kind: 'offset', pages: 2, offset: 500 } } });

    const searches = { ...UNIT, dataset: 'searches' } as const;
    const cursor = await readUnitState(await withCheckpoint(searches, { pages: 1, cursor: 'c1', cursors: [] }), searches);
    expect(cursor).toMatchObject({ kind: 'partial', checkpoint: { state: { kind: 'cursor', pages: 1, cursor: 'c1' } } });
  });

  it('a checkpoint whose state is of another kind, or no state, is not read (the unit starts again, as for another version)', async () => {
    expect(await readUnitState(await withCheckpoint(UNIT, { kind: 'cursor', pages: 1, cursor: 'c1' }), UNIT)).toEqual({ kind: 'missing' });
    expect(await readUnitState(await withCheckpoint(UNIT, null), UNIT)).toEqual({ kind: 'missing' });
  });
});

describe('the complete units of a dataset', () => {
  it('are the units its manifest keys name, from one listing: other datasets and stray keys are not among them', async () => {
    const root = await makeTempDir('units');
    const destination = createLocalDestination(root);
    const put = (key: string) => destination.put(key, new TextEncoder().encode('{}'));
    await put(manifestKey('visitors', '2026-11-20', 'proj_a'));
    await put(manifestKey('visitors', '2026-11-21', 'proj_b'));
    await put(manifestKey('feedback', '2026-11-22', 'proj_a'));
    await put('_manifests/visitors/dt=2026-11-23/notes.txt');

    const units = await completeUnits(destination, 'visitors');

    expect(units.map(unitKey).sort()).toEqual(['visitors/proj_a/2026-11-20', 'visitors/proj_b/2026-11-21']);
    expect(await completeUnits(destination, 'searches')).toEqual([]);
  });
});

describe('a provisional unit (exported before its day was due) in the hourly plan', () => {
  const manifest = (provisionalUntil?: string) =>
    JSON.stringify({
      version: 2,
      dataset: UNIT.dataset,
      projectId: UNIT.projectId,
      date: UNIT.day,
      window: { dateFrom: UNIT.day, dateTo: '2026-11-21' },
      exportedAt: '2026-11-21T00:30:00.000Z',
      finishedAt: '2026-11-21T00:31:00.000Z',
      rows: { visitors_pages: 3 },
      files: {},
      bytes: {},
      pages: 1,
      requests: { successful: 1, sent: 1, retried: 0 },
      runs: 1,
      durationsMs: { total: 1 },
      ...(provisionalUntil !== undefined ? { provisionalUntil } : {}),
    });
  const schedule = { settleHours: 2, healDays: 0, refreshDays: 0, projects: [UNIT.projectId], datasets: [UNIT.dataset], backlog: [] } as const;

  it('is exported again by the scheduled run once its day is due, as the Lambda runs it', async () => {
    const destination = await withManifest(manifest('2026-11-21T02:00:00.000Z'));

    const plan = await planScheduled({ ...schedule, now: Date.parse('2026-11-21T03:00:00Z') }, destination);

    expect(plan.units.map((u) => `${u.day} ${u.reason} force=${u.force}`)).toEqual(['2026-11-20 latest force=false']);
  });

  it('a settled unit of the same day is left alone', async () => {
    const destination = await withManifest(manifest());

    const plan = await planScheduled({ ...schedule, now: Date.parse('2026-11-21T03:00:00Z') }, destination);

    expect(plan.units).toEqual([]);
  });
});
