/**
 * Role: the lake of a first backfill (issue 41). A stand-in with steady daily traffic (one
 * sandbox project, each day within ±5 % of the next), every dataset exported by the real CLI for
 * the 30 days of a `report --days 30` and the last day before them only: the period before has
 * 1 of its 30 days. Built once for every test file that reads it (test/helpers/lake-cache.ts):
 * each gets its own copy.
 */
import path from 'node:path';
import { expect } from 'vitest';
import { addDays } from '../../functions/shared/dates.js';
import { startSandbox } from '../../sandbox/index.js';
import { runCliAt } from './cli.js';
import { cachedLake } from './lake-cache.js';

export const BACKFILL_PROJECT = 'proj_steady';
/** 06:00 UTC: 2026-05-31 is the latest due day. */
export const BACKFILL_NOW = Date.parse('2026-06-01T06:00:00.000Z');
/** `report --days 30` at BACKFILL_NOW: its period, and the one before it. */
export const BACKFILL_PERIOD = { from: '2026-05-02', to: '2026-06-01' } as const;
export const BACKFILL_PREVIOUS = { from: '2026-04-02', to: '2026-05-02' } as const;
/** The one day of the period before that is exported: its last. */
export const BACKFILL_DAY_BEFORE = addDays(BACKFILL_PERIOD.from, -1);

/** The sandbox the lake was exported from: one project of 150 paths a day. */
export const startBackfillSandbox = () => startSandbox({ projects: [{ id: BACKFILL_PROJECT, paths: 150 }] });

/** A fresh copy of the lake: `<root>/data`. */
export async function buildBackfillLake(): Promise<{ readonly root: string; readonly out: string }> {
  const { root } = await cachedLake('backfill', exportBackfillLake);
  return { root, out: path.join(root, 'data') };
}

async function exportBackfillLake(root: string): Promise<Record<string, never>> {
  const sandbox = await startBackfillSandbox();
  try {
    const args = ['export', '--from', BACKFILL_DAY_BEFORE, '--to', BACKFILL_PERIOD.to, '--project', BACKFILL_PROJECT, '--out', path.join(root, 'data')];
    const { code, stderr } = await runCliAt(sandbox, args, { now: BACKFILL_NOW });
    expect(code, stderr).toBe(0);
  } finally {
    await sandbox.close();
  }
  return {};
}
