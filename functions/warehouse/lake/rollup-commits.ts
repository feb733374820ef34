/**
 * What the export does to the monthly roll-ups (lake/rollups.ts) as each unit commits, before
 * its run's end rebuilds them: a project of a month already rolled up leaves that month's
 * roll-ups' records and index at once.
 */
import type { Destination } from '../../shared/storage/destination.js';
import { DATASET_TABLES, type DatasetName } from '../catalog.js';
import type { TableDef } from '../table-def.js';
import { monthOfDay, rollupKey } from './layout.js';
import type { RollupRecord } from './rollup-build.js';
import { indexedRollupName, readRollupRecord, recordedProjects } from './rollups.js';
import { recordRollups } from './unit-index.js';

/**
 * What the export calls as each unit commits: a project of a month already rolled up leaves
 * that month's roll-ups' records and index at once (one existence check per dataset and month
 * a run, one rewrite per project), so a run cut short before its end ({@link refreshLakeAfter})
 * never leaves the old day read from a roll-up; the month's other projects are still read from it.
 */
export function committedUnits(
  destination: Pick<Destination, 'exists' | 'get' | 'put' | 'delete'>,
): (unit: { readonly dataset: DatasetName; readonly day: string; readonly projectId: string }) => Promise<void> {
  const checked = new Map<string, Promise<boolean>>();
  const retired = new Set<string>();
  return async (unit) => {
    const month = monthOfDay(unit.day);
    const name = `${unit.dataset}/${month}`;
    let rolled = checked.get(name);
    if (rolled === undefined) {
      const first = DATASET_TABLES[unit.dataset][0] as TableDef;
      rolled = destination.exists(rollupKey(first.prefix, month, 'json'));
      checked.set(name, rolled);
    }
    if (!(await rolled) || retired.has(`${name}/${unit.projectId}`)) return;
    retired.add(`${name}/${unit.projectId}`);
    const changes = new Map<string, string | undefined>();
    for (const table of DATASET_TABLES[unit.dataset]) {
      changes.set(indexedRollupName(table, unit.projectId), undefined);
      const record = await readRollupRecord(destination, table, month);
      const projects = recordedProjects(record, table.prefix, month);
      if (projects === undefined || !(unit.projectId in projects)) continue;
      const { [unit.projectId]: _gone, ...rest } = projects;
      const kept: RollupRecord = { ...(record as RollupRecord), projects: rest as RollupRecord['projects'] };
      await destination.put(rollupKey(table.prefix, month, 'json'), `${JSON.stringify(kept)}\n`, { contentType: 'application/json' });
    }
    await recordRollups(destination, unit.dataset, month, changes);
  };
}
