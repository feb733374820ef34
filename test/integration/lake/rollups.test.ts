/**
 * Monthly roll-ups (functions/warehouse/lake/rollups.ts) on a lake exported from the sandbox by
 * the CLI: two whole settled months and a few days. The export builds a roll-up per dataset
 * table and month; the report opens at most 40 Parquet files over the two months and says the
 * same with the roll-ups as without, as do `gaps --json` and `effects --json`; a day exported
 * again with other numbers leaves no stale roll-up read; `forget` of a person of a rolled-up
 * month leaves no row of theirs in any roll-up. The export is made once per content of the tree
 * (test/helpers/lake-cache.ts) and each run of this file works on its own copy of it.
 */
import { createHmac } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { daysBetween } from '../../../functions/shared/dates.js';
import { DATASET_NAMES, DATASET_TABLES } from '../../../functions/warehouse/catalog.js';
import { ROLLUP_READS } from '../../../functions/warehouse/lake/files.js';
import { dayFolderOfKey, folderOf, parseTableFileKey, rollupKey, unitIndexKey } from '../../../functions/warehouse/lake/layout.js';
import { readUnitState, readUnitStates } from '../../../functions/export/units.js';
import { unitKey } from '../../../functions/export/unit-id.js';
import { openTarget } from '../../../functions/shared/storage/destinations.js';
import type { Destination, KeyRange } from '../../../functions/shared/storage/destination.js';
import { parseManifestKey } from '../../../functions/warehouse/keys.js';
import { readUnitIndexes, updateUnitIndexes } from '../../../functions/warehouse/lake/unit-index.js';
import { markUnit } from '../../../functions/warehouse/lake/unit-marks.js';
import { startSandbox } from '../../../sandbox/index.js';
import { runCliAt } from '../../helpers/cli.js';
import { withRollups } from '../../helpers/env.js';
import { removeTempDirs } from '../../helpers/files.js';
import { bucketReport, reportPage, ROLLED_NOW, ROLLED_PROJECT, rolledBucket, rolledLake } from '../../helpers/rolled-lake.js';
import { startS3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { TEST_PERSONAL_DATA_KEY } from '../../helpers/run-deps.js';
import { openDuckDb } from '../../../functions/warehouse/duckdb.js';

const PROJECT = ROLLED_PROJECT;
const NOW = ROLLED_NOW;
const MONTHS = ['2026-03', '2026-04'] as const;
const RANGE = ['--from', '2026-03-01', '--to', '2026-05-01'] as const;

let sandbox: Awaited<ReturnType<typeof startSandbox>>;
let root: string;
let out: string;

/** Runs `argv` with the roll-ups read or not (`MINTLIFY_ROLLUPS=off`), counting the Parquet files the readers were handed. */
async function cli(argv: readonly string[], rollups: boolean, exit = 0): Promise<{ stdout: string; files: number }> {
  const before = { ...ROLLUP_READS };
  return withRollups(rollups, async () => {
    const { code, stdout, stderr } = await runCliAt(sandbox, argv, { now: NOW });
    expect(code, stderr).toBe(exit);
    return { stdout, files: ROLLUP_READS.rollups - before.rollups + (ROLLUP_READS.days - before.days) };
  });
}

beforeAll(async () => {
  sandbox = await startSandbox({ projects: [{ id: PROJECT, paths: 12 }] });
  ({ root, out } = await rolledLake(sandbox));
}, 600_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('a lake of two whole settled months and a few days', () => {
  it('has a roll-up and its record for each dataset table and whole month, none for the month begun', async () => {
    for (const dataset of DATASET_NAMES) {
      for (const table of DATASET_TABLES[dataset]) {
        for (const month of MONTHS) {
          expect(existsSync(path.join(out, rollupKey(table.prefix, month))), `${table.name} ${month}`).toBe(true);
          const record = JSON.parse(await readFile(path.join(out, rollupKey(table.prefix, month, 'json')), 'utf8')) as { projects: object };
          expect(Object.keys(record.projects), `${table.name} ${month} record`).toEqual([PROJECT]);
        }
        expect(existsSync(path.join(out, rollupKey(table.prefix, '2026-05'))), `${table.name} 2026-05`).toBe(false);
      }
    }
  });

  it('the report over the two months opens at most 40 Parquet files and says the same with the roll-ups and without', async () => {
    const file = (name: string) => path.join(root, name);
    const days = await cli(['report', ...RANGE, '--out', out, '--file', file('days.html')], false);
    const rolled = await cli(['report', ...RANGE, '--out', out, '--file', file('rolled.html')], true);
    expect(rolled.files).toBeLessThanOrEqual(40);
    expect(days.files).toBeGreaterThan(40);
    expect(await reportPage(file('rolled.html'))).toBe(await reportPage(file('days.html')));
  }, 300_000);

  it('gaps --json and effects --json say the same with the roll-ups and without', async () => {
    for (const [command, exit] of [
      [['gaps', ...RANGE, '--out', out, '--json'], 0],
      // No job was made for a gap in the sandbox's lake: `effects` says so (exit 1), the same either way.
      [['effects', ...RANGE, '--out', out, '--json'], 1],
    ] as const) {
      const days = await cli(command, false, exit);
      const rolled = await cli(command, true, exit);
      expect(rolled.stdout, command[0]).toBe(days.stdout);
    }
  }, 300_000);
});

/** Every row of every roll-up of the lake, as JSON text. */
async function rollupRows(): Promise<string[]> {
  const db = await openDuckDb();
  try {
    const rows = await db.query(
      `SELECT to_json(t)::VARCHAR AS row FROM read_parquet('${path.join(out, '_rollups', '**', '*.parquet')}', union_by_name = true) t`,
    );
    return rows.map((row) => String(row['row']));
  } finally {
    db.close();
  }
}

describe('the same lake in a bucket', () => {
  it('the report mirrors the whole months’ roll-ups, not their days, and says the same with them and without', async () => {
    const aws = await startS3Sqs();
    try {
      const lake = await rolledBucket(aws, sandbox, out);
      expect(JSON.parse(lake.compacted)).toMatchObject({ built: 0, failed: 0 });
      let gets = 0;
      let keys: string[] = [];
      aws.s3.middlewareStack.add(
        (next, context) => async (args) => {
          if ((context as { commandName?: string }).commandName === 'GetObjectCommand') {
            gets += 1;
            keys.push(String((args.input as { Key?: string }).Key));
          }
          return next(args);
        },
        { step: 'initialize', name: 'countGets' },
      );
      let listed: string[] = [];
      aws.s3.middlewareStack.add(
        (next, context) => async (args) => {
          const answer = await next(args);
          if ((context as { commandName?: string }).commandName === 'ListObjectsV2Command')
            listed.push(...((answer.output as { Contents?: { Key?: string }[] }).Contents ?? []).map((object) => String(object.Key)));
          return answer;
        },
        { step: 'initialize', name: 'recordListings' },
      );
      /** The table files of the whole months listed (March and April). */
      const rolledDaysListed = () =>
        listed.filter((key) => ['2026-03-', '2026-04-'].some((month) => parseTableFileKey(key.slice('lake/'.length))?.day.startsWith(month)));
      const report = async (rollups: boolean, name: string, range: readonly string[] = RANGE) => {
        gets = 0;
        keys = [];
        listed = [];
        await bucketReport(lake, rollups, range, path.join(root, name));
        return gets;
      };
      const fromDays = await report(false, 's3-days.html');
      expect(rolledDaysListed().length).toBeGreaterThan(0);
      const fromRollups = await report(true, 's3-rolled.html');
      // A month whose roll-ups hold every unit with a manifest: its day files are not even listed.
      expect(rolledDaysListed()).toEqual([]);
      expect(await reportPage(path.join(root, 's3-rolled.html'))).toBe(await reportPage(path.join(root, 's3-days.html')));
      expect(fromRollups, `objects read: ${fromRollups} with roll-ups, ${fromDays} without`).toBeLessThan(fromDays / 3);
      // The roll-ups' records are read from the months' indexes, not beside each roll-up.
      expect(keys.filter((key) => key.includes('/_rollups/') && key.endsWith('.json'))).toEqual([]);
      // A window starting inside March: March's roll-ups, not its days, and the same page.
      const mid = ['--from', '2026-03-10', '--to', '2026-05-01'];
      const midDays = await report(false, 's3-mid-days.html', mid);
      const midRolled = await report(true, 's3-mid-rolled.html', mid);
      expect(keys.filter((key) => dayFolderOfKey(key)?.day.startsWith('2026-03-'))).toEqual([]);
      expect(keys.some((key) => key.includes('/_rollups/') && key.endsWith('month=2026-03.parquet'))).toBe(true);
      expect(await reportPage(path.join(root, 's3-mid-rolled.html'))).toBe(await reportPage(path.join(root, 's3-mid-days.html')));
      expect(midRolled, `objects read: ${midRolled} with roll-ups, ${midDays} without`).toBeLessThan(midDays / 3);
    } finally {
      await aws.close();
    }
  }, 300_000);
});

describe('a lake written before roll-ups', () => {
  it('compact builds them, and status says which months are rolled up', async () => {
    const tables = DATASET_NAMES.flatMap((dataset) => DATASET_TABLES[dataset]).length;
    await rm(path.join(out, '_rollups'), { recursive: true });
    const before = await runCliAt(sandbox, ['status', '--from', '2026-03-01', '--to', '2026-05-04', '--project', PROJECT, '--out', out], { now: NOW });
    expect(before.stdout).not.toContain('roll-ups (tables)');
    const compact = await runCliAt(sandbox, ['compact', '--out', out, '--json'], { now: NOW });
    expect(compact.code, compact.stderr).toBe(0);
    expect(JSON.parse(compact.stdout)).toMatchObject({ built: tables * 2, failed: 0, months: [...MONTHS] });
    for (const month of MONTHS) expect(existsSync(path.join(out, rollupKey('visitors_pages', month, 'json')))).toBe(true);
    const after = await runCliAt(sandbox, ['status', '--from', '2026-03-01', '--to', '2026-05-04', '--project', PROJECT, '--out', out], { now: NOW });
    expect(after.stdout).toContain(`roll-ups (tables): 2026-03 all ${tables}, 2026-04 all ${tables}, 2026-05 none`);
    const json = await runCliAt(sandbox, ['status', '--from', '2026-03-01', '--to', '2026-05-04', '--project', PROJECT, '--out', out, '--json'], { now: NOW });
    expect(JSON.parse(json.stdout).rollups).toEqual([
      { month: '2026-03', rolled: tables, of: tables },
      { month: '2026-04', rolled: tables, of: tables },
      { month: '2026-05', rolled: 0, of: tables },
    ]);
    const again = await runCliAt(sandbox, ['compact', '--out', out, '--json'], { now: NOW });
    expect(JSON.parse(again.stdout)).toMatchObject({ built: 0, kept: tables * 2 });
  }, 300_000);
});

describe('the index of units', () => {
  const units = daysBetween('2026-03-01', '2026-05-04').map((day) => ({ dataset: 'visitors' as const, projectId: PROJECT, day }));
  /** The lake as a destination that counts its reads. */
  const counted = () => {
    const destination = openTarget({ kind: 'local', dir: out });
    const reads = { count: 0 };
    return {
      reads,
      destination: {
        ...destination,
        get: (key: string) => ((reads.count += 1), destination.get(key)),
        list: (prefix: string) => destination.list?.(prefix) ?? Promise.resolve([]),
      },
    };
  };

  it('gives the units’ states from one object a month, the same as their manifests read one by one', async () => {
    const one = counted();
    const byUnit = new Map(await Promise.all(units.map(async (unit) => [unitKey(unit), await readUnitState(one.destination, unit)] as const)));
    const indexed = counted();
    const states = await readUnitStates(indexed.destination as Destination, units);
    expect(states).toEqual(byUnit);
    expect([...states.values()].every((state) => state.kind === 'complete')).toBe(true);
    expect(indexed.reads.count, 'one index a month').toBe(3);
    expect(one.reads.count).toBeGreaterThanOrEqual(units.length);
  });

  it('is read with no listing of the manifests while no mark stands; a marked month is checked against its own listing', async () => {
    const destination = openTarget({ kind: 'local', dir: out });
    const listed: string[] = [];
    const recording = {
      ...destination,
      listModified: async (prefix: string, range?: KeyRange) => {
        const keys = (await destination.listModified?.(prefix, range)) ?? [];
        listed.push(...keys.flatMap(({ key }) => (parseManifestKey('visitors', key) ? [key] : [])));
        return keys;
      },
    };
    const months = ['2026-03', '2026-04', '2026-05'];
    const every = await readUnitIndexes(destination, 'visitors', months, { check: true });

    expect(await readUnitIndexes(recording, 'visitors', months)).toEqual(every);
    expect(listed, 'the export left its indexes checked and no mark').toEqual([]);

    const unit = { dataset: 'visitors' as const, day: '2026-04-10', projectId: PROJECT };
    await markUnit(destination, unit);
    const april = await readUnitIndexes(recording, 'visitors', months);
    expect(april).toEqual(every);
    expect(april?.get('2026-04')?.size).toBe(30);
    expect(listed).toHaveLength(30);
    expect(listed.every((key) => parseManifestKey('visitors', key)?.day.startsWith('2026-04-'))).toBe(true);
    await updateUnitIndexes(destination, [unit]);
  });

  it('is rebuilt from the manifests when it is missing, or stale under a mark (a commit cut short before its index)', async () => {
    const key = path.join(out, unitIndexKey('visitors', '2026-03'));
    const index = JSON.parse(await readFile(key, 'utf8')) as { manifests: Record<string, unknown> };
    delete index.manifests[`2026-03-09/${PROJECT}`];
    await writeFile(key, JSON.stringify(index));
    const unit = { dataset: 'visitors' as const, day: '2026-03-09', projectId: PROJECT };
    await markUnit(openTarget({ kind: 'local', dir: out }), unit);
    const stale = counted();
    const states = await readUnitStates(stale.destination as Destination, units);
    expect(states.get(unitKey(unit))?.kind).toBe('complete');
    expect(stale.reads.count, 'three indexes and the one manifest the stale index lacks').toBe(4);
    // A reader leaves the stale index as it is; the export's own reads (`keepIndexes`) write it again.
    expect(Object.keys((JSON.parse(await readFile(key, 'utf8')) as typeof index).manifests)).toHaveLength(30);
    await readUnitStates(counted().destination as Destination, units, { keepIndexes: true });
    expect(Object.keys((JSON.parse(await readFile(key, 'utf8')) as typeof index).manifests)).toHaveLength(31);
    // The mark is its writer's to remove (or anyone's an hour on): its own update does.
    await updateUnitIndexes(openTarget({ kind: 'local', dir: out }), [unit]);
    expect(await openTarget({ kind: 'local', dir: out }).list?.(`${folderOf('unitPending', 'visitors')}/`)).toEqual([]);
    await rm(key);
    // A reader never writes it back; the export's own reads (`keepIndexes`) do.
    expect(await readUnitStates(counted().destination as Destination, units)).toEqual(states);
    expect(existsSync(key)).toBe(false);
    expect(await readUnitStates(counted().destination as Destination, units, { keepIndexes: true })).toEqual(states);
    expect(existsSync(key)).toBe(true);
  });
});

describe('the lake changed under its roll-ups', () => {
  it('a day of a rolled-up month exported again with other numbers: the next report is the one made without roll-ups', async () => {
    const file = (name: string) => path.join(root, name);
    await cli(['report', ...RANGE, '--out', out, '--file', file('before.html')], true);
    const other = await startSandbox({ projects: [{ id: PROJECT, paths: 40 }] });
    try {
      const { code, stderr } = await runCliAt(other, ['export', '--from', '2026-03-10', '--to', '2026-03-11', '--project', PROJECT, '--out', out, '--force'], {
        now: NOW,
      });
      expect(code, stderr).toBe(0);
    } finally {
      await other.close();
    }
    await cli(['report', ...RANGE, '--out', out, '--file', file('days-after.html')], false);
    const rolled = await cli(['report', ...RANGE, '--out', out, '--file', file('rolled-after.html')], true);
    expect(await reportPage(file('days-after.html')), 'the numbers changed').not.toBe(await reportPage(file('before.html')));
    expect(await reportPage(file('rolled-after.html'))).toBe(await reportPage(file('days-after.html')));
    expect(rolled.files, 'the month was rolled up again').toBeLessThanOrEqual(40);
  }, 300_000);

  it('forget of a person of a rolled-up month leaves no row of theirs in any roll-up', async () => {
    const contacts = new Map<string, number>();
    for (const day of daysBetween('2026-03-01', '2026-05-01')) {
      for (const row of sandbox.data.rows('feedback', PROJECT, day) as { contact?: string }[]) {
        if (row.contact) contacts.set(row.contact, (contacts.get(row.contact) ?? 0) + 1);
      }
    }
    const person = [...contacts.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] as string;
    expect(person, 'a person with feedback in a rolled-up month').toBeDefined();
    const hmac = createHmac('sha256', TEST_PERSONAL_DATA_KEY).update(person.trim().toLowerCase()).digest('hex');
    expect(
      (await rollupRows()).some((row) => row.includes(hmac)),
      'the person is in a roll-up before',
    ).toBe(true);
    const { code, stderr } = await runCliAt(sandbox, ['forget', '--email', person, '--out', out], { now: NOW });
    expect(code, stderr).toBe(0);
    expect((await rollupRows()).some((row) => row.includes(hmac))).toBe(false);
    // The months are rolled up again, from the files without the person.
    expect(existsSync(path.join(out, rollupKey('feedback', '2026-03', 'json')))).toBe(true);
  }, 300_000);
});
