/**
 * The run log's index (functions/warehouse/lake/run-index.ts) on a local lake: a month's run
 * records in one object, taken by a reader only for the records listed with the time it holds
 * — a record written again or a run ended since is read from its own object — and brought up
 * to date by `refreshRunIndexes`, written only when something changed.
 */
import { mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTarget } from '../../../functions/shared/storage/destinations.js';
import type { Destination } from '../../../functions/shared/storage/destination.js';
import { dayKey, LAYOUT, runIndexKey } from '../../../functions/warehouse/lake/layout.js';
import { refreshRunIndexes, runsFromIndexes } from '../../../functions/warehouse/lake/run-index.js';

let root: string;
let lake: Destination;

const key = (day: string, id: string) => dayKey(LAYOUT.runs.folder, day, `${id}.json`);
const listed = async () => (await lake.listModified?.(`${LAYOUT.runs.folder}/`)) ?? [];

beforeEach(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'run-index-'));
  lake = openTarget({ kind: 'local', dir: root });
  for (const [day, id] of [
    ['2026-03-30', 'a'],
    ['2026-03-31', 'b'],
    ['2026-04-01', 'c'],
  ] as const)
    await lake.put(key(day, id), JSON.stringify({ run_id: id }));
});

afterEach(() => rm(root, { recursive: true, force: true }));

describe('the run log index', () => {
  it('holds each month’s records, and a reader takes them from it as listed', async () => {
    expect(await runsFromIndexes(lake, await listed())).toEqual(new Map());
    expect(await refreshRunIndexes(lake)).toBe(2);
    expect(await lake.exists(runIndexKey('2026-03'))).toBe(true);
    const fromIndex = await runsFromIndexes(lake, await listed());
    expect([...fromIndex.keys()].sort()).toEqual([key('2026-03-30', 'a'), key('2026-03-31', 'b'), key('2026-04-01', 'c')]);
    expect(fromIndex.get(key('2026-03-31', 'b'))).toBe(JSON.stringify({ run_id: 'b' }));
    // Nothing changed: nothing written.
    expect(await refreshRunIndexes(lake)).toBe(0);
  });

  it('leaves a record written again, or a run ended since, to be read on its own until it is refreshed', async () => {
    await refreshRunIndexes(lake);
    await lake.put(key('2026-03-31', 'b'), JSON.stringify({ run_id: 'b', again: true }));
    const later = new Date(Date.now() + 5_000);
    await utimes(path.join(root, ...key('2026-03-31', 'b').split('/')), later, later);
    await lake.put(key('2026-04-02', 'd'), JSON.stringify({ run_id: 'd' }));
    const stale = await runsFromIndexes(lake, await listed());
    expect([...stale.keys()].sort()).toEqual([key('2026-03-30', 'a'), key('2026-04-01', 'c')]);
    expect(await refreshRunIndexes(lake, { months: ['2026-03', '2026-04'] })).toBe(2);
    const fresh = await runsFromIndexes(lake, await listed());
    expect(fresh.get(key('2026-03-31', 'b'))).toBe(JSON.stringify({ run_id: 'b', again: true }));
    expect(fresh.has(key('2026-04-02', 'd'))).toBe(true);
  });

  it('folds in the records of the days asked, keeping those of the month’s other days as held', async () => {
    await refreshRunIndexes(lake);
    await lake.delete(key('2026-03-30', 'a'));
    await lake.put(key('2026-03-31', 'e'), JSON.stringify({ run_id: 'e' }));
    expect(await refreshRunIndexes(lake, { days: ['2026-03-31'] })).toBe(1);
    const index = JSON.parse(Buffer.from((await lake.get(runIndexKey('2026-03'))) ?? []).toString()) as { runs: object };
    expect(Object.keys(index.runs)).toEqual([key('2026-03-30', 'a'), key('2026-03-31', 'b'), key('2026-03-31', 'e')]);
    // A reader takes only what is listed: the record gone is not there to take.
    expect([...(await runsFromIndexes(lake, await listed())).keys()].sort()).toEqual([key('2026-03-31', 'b'), key('2026-03-31', 'e'), key('2026-04-01', 'c')]);
  });

  it('drops a record gone from the log', async () => {
    await refreshRunIndexes(lake);
    await lake.delete(key('2026-03-30', 'a'));
    expect(await refreshRunIndexes(lake, { months: ['2026-03'] })).toBe(1);
    const index = JSON.parse(Buffer.from((await lake.get(runIndexKey('2026-03'))) ?? []).toString()) as { runs: object };
    expect(Object.keys(index.runs)).toEqual([key('2026-03-31', 'b')]);
  });
});
