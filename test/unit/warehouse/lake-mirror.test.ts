/**
 * The mirror of an `s3://` lake as its readers' destination (functions/warehouse/lake/mirror.ts):
 * the period's manifests and the indexes of their months held in memory, parsed — a reader of
 * the units' states takes an index from there, nothing written into the folder nor parsed
 * again — and a key written through it is the folder's from then on.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { manifestKey } from '../../../functions/warehouse/keys.js';
import { unitIndexKey } from '../../../functions/warehouse/lake/layout.js';
import { mirrorDestination } from '../../../functions/warehouse/lake/mirror.js';
import { type RawManifest, readJson, readUnitIndexes, unitIndexOf } from '../../../functions/warehouse/lake/unit-index.js';
import { indexEntry } from '../../../functions/warehouse/lake/unit-marks.js';

let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'lake-mirror-'));
});

afterEach(() => rm(root, { recursive: true, force: true }));

const LISTED_AT = Date.UTC(2026, 4, 2);
const manifestOf = (day: string, projectId: string): RawManifest => ({ day, projectId, finishedAt: `${day}T05:00:00.000Z` });

/** A mirror holding April's visitors manifests of two projects and their month's index, in memory. */
function aprilMirror() {
  const days = ['2026-04-01', '2026-04-02', '2026-04-03'];
  const units = days.flatMap((day) => ['proj_a', 'proj_b'].map((projectId) => ({ day, projectId })));
  const manifests = new Map(units.map(({ day, projectId }) => [manifestKey('visitors', day, projectId), manifestOf(day, projectId)]));
  const entries = new Map(units.map(({ day, projectId }) => [indexEntry(day, projectId), manifestOf(day, projectId)]));
  const index = unitIndexOf('visitors', '2026-04', entries, LISTED_AT);
  const mirror = mirrorDestination(root, manifests, LISTED_AT, new Map([[unitIndexKey('visitors', '2026-04'), index]]));
  return { mirror, index, entries };
}

describe('a lake’s mirror', () => {
  it('holds the indexes of units parsed: a reader takes them without a file in the folder', async () => {
    const { mirror, index, entries } = aprilMirror();

    expect(await mirror.getParsed?.(unitIndexKey('visitors', '2026-04'))).toBe(index);
    expect(await readJson(mirror, unitIndexKey('visitors', '2026-04'))).toBe(index);
    const read = await readUnitIndexes(mirror, 'visitors', ['2026-04']);

    expect(read?.get('2026-04')).toEqual(entries);
    // Fresh as listed: the same units, built after the manifests' listing (nothing rebuilt, nothing written).
    expect(await readdir(root)).toEqual([]);
  });

  it('answers get, exists and list for a held index as it would for the file', async () => {
    const { mirror, index } = aprilMirror();
    const key = unitIndexKey('visitors', '2026-04');

    expect(JSON.parse(Buffer.from((await mirror.get(key)) ?? new Uint8Array()).toString('utf8'))).toEqual(index);
    expect(await mirror.exists(key)).toBe(true);
    expect(await mirror.list?.('_index/')).toEqual([key]);
    expect(await mirror.listModified?.('_index/visitors/')).toEqual([{ key, modified: LISTED_AT }]);
    expect(await mirror.getParsed?.(unitIndexKey('visitors', '2026-05'))).toBeUndefined();
  });

  it('reads a key written through it from the folder, not from memory', async () => {
    const { mirror } = aprilMirror();
    const key = unitIndexKey('visitors', '2026-04');

    await mirror.put(key, JSON.stringify({ written: true }));

    expect(await mirror.getParsed?.(key)).toBeUndefined();
    expect(await readJson(mirror, key)).toEqual({ written: true });
    expect(await mirror.list?.('_index/')).toEqual([key]);
    await mirror.delete(key);
    expect(await mirror.exists(key)).toBe(false);
    expect(await mirror.list?.('_index/')).toEqual([]);
  });
});
