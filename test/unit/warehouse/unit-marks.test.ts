/**
 * The marks of the index of units (functions/warehouse/lake/unit-marks.ts, unit-index.ts): an
 * index a writer wrote and checked is read with no listing of the manifests while no mark stands
 * in its month; a manifest changed by a writer cut short before its index leaves a mark, and
 * readers then check that month (only) against its manifests; an index overwritten while it is
 * checked is built again; another writer's mark goes once it is an hour old; an index of a
 * writer before the marks is checked; `compact`'s check sees a manifest changed by hand.
 */
import { utimes } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Destination, KeyRange } from '../../../functions/shared/storage/destination.js';
import { openTarget } from '../../../functions/shared/storage/destinations.js';
import { manifestKey, parseManifestKey } from '../../../functions/warehouse/keys.js';
import { folderOf, parsePendingKey, pendingKey, unitIndexKey } from '../../../functions/warehouse/lake/layout.js';
import {
  type IndexReads,
  type MonthIndex,
  type RawManifest,
  readJson,
  readRawManifest,
  readUnitIndexes,
  updateUnitIndexes,
} from '../../../functions/warehouse/lake/unit-index.js';
import { indexEntry } from '../../../functions/warehouse/lake/unit-marks.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { dropManifest, putManifest } from '../../helpers/manifests.js';

const MONTHS = ['2026-03', '2026-04'] as const;
const PROJECTS = ['proj_a', 'proj_b'] as const;
const DAYS = ['2026-03-01', '2026-03-10', '2026-03-20', '2026-04-05', '2026-04-25'];
const UNITS = DAYS.flatMap((day) => PROJECTS.map((projectId) => ({ dataset: 'visitors' as const, day, projectId })));

let root: string;
let destination: Destination;

const manifestOf = (day: string, projectId: string, rows = 1): RawManifest => ({ dataset: 'visitors', date: day, projectId, rows: { visitors: rows } });

/** The lake as a destination that records the manifests it lists and counts its reads. */
function recording() {
  const listed: string[] = [];
  const reads: IndexReads = { indexes: 0, rebuilt: 0, manifests: 0, checked: 0 };
  const lake = {
    ...destination,
    listModified: async (prefix: string, range?: KeyRange) => {
      const keys = (await destination.listModified?.(prefix, range)) ?? [];
      listed.push(...keys.flatMap(({ key }) => (parseManifestKey('visitors', key) ? [key] : [])));
      return keys;
    },
  };
  return { lake, listed, reads };
}

/** Each month's manifests as read one by one: what an index must give. */
async function manifestsOneByOne(): Promise<Map<string, Map<string, RawManifest>>> {
  const out = new Map<string, Map<string, RawManifest>>(MONTHS.map((month) => [month, new Map()]));
  for (const { day, projectId } of UNITS) {
    const manifest = await readRawManifest(destination, 'visitors', day, projectId);
    if (manifest !== undefined) out.get(day.slice(0, 7))?.set(indexEntry(day, projectId), manifest);
  }
  return out;
}

/** The marks standing, as `<day>/<projectId>` (a write of the index alone is `<month>-01/_index`). */
async function marks(): Promise<string[]> {
  const keys = (await destination.list?.(`${folderOf('unitPending', 'visitors')}/`)) ?? [];
  return keys.flatMap((key) => {
    const mark = parsePendingKey('visitors', key);
    return mark ? [indexEntry(mark.day, mark.projectId)] : [];
  });
}

const storedIndex = async (month: string) => (await readJson(destination, unitIndexKey('visitors', month))) as MonthIndex;

beforeEach(async () => {
  root = await makeTempDir('unit-marks-');
  destination = openTarget({ kind: 'local', dir: root });
  for (const { day, projectId } of UNITS) await putManifest(destination, 'visitors', day, projectId, manifestOf(day, projectId));
  await updateUnitIndexes(destination, UNITS);
});

afterEach(removeTempDirs);

describe('the index of units and its marks', () => {
  it('a writer’s index, checked, is read with no listing of the manifests; its marks are gone', async () => {
    expect(await marks()).toEqual([]);
    const { lake, listed, reads } = recording();
    const indexes = await readUnitIndexes(lake, 'visitors', [...MONTHS], { reads });
    expect(indexes).toEqual(await manifestsOneByOne());
    expect(listed).toEqual([]);
    expect(reads).toMatchObject({ indexes: 2, checked: 0, manifests: 0 });

    // Months with no index on either side (a year before the lake began) are listed apart: no manifest of the months between.
    const around = await readUnitIndexes(lake, 'visitors', ['2026-01', '2026-02', ...MONTHS, '2026-06'], { reads });
    expect(around?.get('2026-01')?.size).toBe(0);
    expect(around?.get('2026-03')).toEqual(indexes?.get('2026-03'));
    expect(listed).toEqual([]);
  });

  it('a writer cut short after its manifests: their month is checked against them (and only it), the changes seen', async () => {
    await putManifest(destination, 'visitors', '2026-03-10', 'proj_a', manifestOf('2026-03-10', 'proj_a', 7));
    await dropManifest(destination, 'visitors', '2026-03-20', 'proj_b');
    expect(await marks()).toEqual(['2026-03-10/proj_a', '2026-03-20/proj_b']);

    const { lake, listed, reads } = recording();
    const indexes = await readUnitIndexes(lake, 'visitors', [...MONTHS], { reads });
    expect(indexes).toEqual(await manifestsOneByOne());
    expect(indexes?.get('2026-03')?.get('2026-03-10/proj_a')).toMatchObject({ rows: { visitors: 7 } });
    expect(indexes?.get('2026-03')?.has('2026-03-20/proj_b')).toBe(false);
    expect(
      listed.every((key) => key.includes('=2026-03-')),
      'April is not listed',
    ).toBe(true);
    // The month's other units are taken from the index (their times agree); only the changed one is read.
    expect(reads).toMatchObject({ checked: 1, manifests: 1 });
    // A reader writes nothing: the stale index and the marks stay for the writer.
    expect(Object.keys((await storedIndex('2026-03')).manifests)).toContain('2026-03-20/proj_b');
    expect(await marks()).toHaveLength(2);
  });

  it('the writer’s own update removes its marks; the month is trusted again', async () => {
    await putManifest(destination, 'visitors', '2026-03-10', 'proj_a', manifestOf('2026-03-10', 'proj_a', 7));
    await updateUnitIndexes(destination, [{ dataset: 'visitors', day: '2026-03-10', projectId: 'proj_a' }]);
    expect(await marks()).toEqual([]);
    expect((await storedIndex('2026-03')).manifests['2026-03-10/proj_a']).toMatchObject({ rows: { visitors: 7 } });
    const { lake, listed } = recording();
    expect(await readUnitIndexes(lake, 'visitors', [...MONTHS])).toEqual(await manifestsOneByOne());
    expect(listed).toEqual([]);
  });

  it('another writer’s mark stays until it is an hour old, then the next writer whose index holds removes it', async () => {
    const other = path.join(root, ...pendingKey('visitors', '2026-03-20', 'proj_a', 'another-writer').split('/'));
    await destination.put(pendingKey('visitors', '2026-03-20', 'proj_a', 'another-writer'), '');
    await putManifest(destination, 'visitors', '2026-03-10', 'proj_a', manifestOf('2026-03-10', 'proj_a', 7));
    await updateUnitIndexes(destination, [{ dataset: 'visitors', day: '2026-03-10', projectId: 'proj_a' }]);
    expect(await marks(), 'its change may still be on its way').toEqual(['2026-03-20/proj_a']);

    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(other, twoHoursAgo, twoHoursAgo);
    // A reader removes nothing; a writer reading with `keep` (the export's plan, compact) does, once the month agrees.
    await readUnitIndexes(destination, 'visitors', [...MONTHS]);
    expect(await marks()).toEqual(['2026-03-20/proj_a']);
    await readUnitIndexes(destination, 'visitors', [...MONTHS], { keep: true });
    expect(await marks()).toEqual([]);
  });

  it('a unit changed while the index is written: the check after the write sees it and the index is built again', async () => {
    const key = unitIndexKey('visitors', '2026-03');
    let interfered = false;
    const racing: Destination = {
      ...destination,
      put: async (at, body, options) => {
        await destination.put(at, body, options);
        if (at !== key || interfered) return;
        interfered = true;
        // Another writer's commit lands between this writer's write and its check.
        await putManifest(destination, 'visitors', '2026-03-20', 'proj_b', manifestOf('2026-03-20', 'proj_b', 9));
      },
    };
    await putManifest(destination, 'visitors', '2026-03-10', 'proj_a', manifestOf('2026-03-10', 'proj_a', 7));
    await updateUnitIndexes(racing, [{ dataset: 'visitors', day: '2026-03-10', projectId: 'proj_a' }]);

    expect(interfered).toBe(true);
    const index = await storedIndex('2026-03');
    expect(index.manifests['2026-03-10/proj_a']).toMatchObject({ rows: { visitors: 7 } });
    expect(index.manifests['2026-03-20/proj_b']).toMatchObject({ rows: { visitors: 9 } });
    // The other writer's mark is its own to remove: the month stays checked until it does.
    expect(await marks()).toEqual(['2026-03-20/proj_b']);
    expect(await readUnitIndexes(destination, 'visitors', [...MONTHS])).toEqual(await manifestsOneByOne());
  });

  it('an index of a writer before the marks (no times) is checked, and written again with its units’ times by a writer', async () => {
    const before = await storedIndex('2026-03');
    const { listed: _times, manifestsModified: _latest, ...old } = before;
    delete (old.manifests as Record<string, RawManifest>)['2026-03-01/proj_a'];
    await destination.put(unitIndexKey('visitors', '2026-03'), JSON.stringify(old));

    const { lake, listed, reads } = recording();
    expect(await readUnitIndexes(lake, 'visitors', [...MONTHS], { reads })).toEqual(await manifestsOneByOne());
    expect(reads).toMatchObject({ checked: 1, rebuilt: 1 });
    expect(listed.length).toBeGreaterThan(0);
    await readUnitIndexes(destination, 'visitors', [...MONTHS], { keep: true });
    const again = await storedIndex('2026-03');
    expect(Object.keys(again.listed ?? {})).toEqual(Object.keys(again.manifests));
    expect(Object.keys(again.manifests)).toContain('2026-03-01/proj_a');
  });

  it('a manifest changed by hand (no mark) is not seen by a reader until `compact`’s check rebuilds its month', async () => {
    await destination.put(manifestKey('visitors', '2026-04-05', 'proj_b'), JSON.stringify(manifestOf('2026-04-05', 'proj_b', 5)));
    const trusted = await readUnitIndexes(destination, 'visitors', [...MONTHS]);
    expect(trusted?.get('2026-04')?.get('2026-04-05/proj_b')).toMatchObject({ rows: { visitors: 1 } });

    const checked = await readUnitIndexes(destination, 'visitors', [...MONTHS], { keep: true, check: true });
    expect(checked).toEqual(await manifestsOneByOne());
    expect((await readUnitIndexes(destination, 'visitors', [...MONTHS]))?.get('2026-04')?.get('2026-04-05/proj_b')).toMatchObject({ rows: { visitors: 5 } });
  });
});
