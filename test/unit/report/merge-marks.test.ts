/**
 * The report's daily chart marks each merge (issue 56 item 2): the `merged_at` of the
 * followup_outcomes records (the scope check's, the shared contract) of the report's projects in
 * its period, one dotted line on its day; none of other projects or days, none of a record that
 * does not read.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCharts } from '../../../functions/report/charts.js';
import type { Figures } from '../../../functions/report/figures.js';
import { readMerges } from '../../../functions/report/figures-health.js';
import { visitorsSection } from '../../../functions/report/sections/visitors.js';
import { localLake } from '../../../functions/warehouse/lake.js';
import { periodOf } from '../../../functions/warehouse/period.js';
import { FOLLOWUP_OUTCOMES } from '../../../functions/warehouse/tables.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const PERIOD = periodOf('2026-11-20', '2026-11-27');
let root: string;

async function outcome(day: string, name: string, record: object | string): Promise<void> {
  const folder = path.join(root, FOLLOWUP_OUTCOMES.prefix, `dt=${day}`);
  await mkdir(folder, { recursive: true });
  await writeFile(path.join(folder, `${name}.json`), typeof record === 'string' ? record : JSON.stringify(record));
}

beforeAll(async () => {
  root = await makeTempDir('merges');
  await outcome('2026-11-21', 'job_merged', {
    job_id: 'job_merged',
    project_id: 'proj_a',
    merged_at: '2026-11-22T15:04:00Z',
    pr_link: 'https://github.com/o/r/pull/1',
  });
  await outcome('2026-11-21', 'job_open', { job_id: 'job_open', project_id: 'proj_a', merged_at: null });
  await outcome('2026-11-10', 'job_before', { job_id: 'job_before', project_id: 'proj_a', merged_at: '2026-11-11T09:00:00Z' });
  await outcome('2026-11-21', 'job_other', { job_id: 'job_other', project_id: 'proj_b', merged_at: '2026-11-23T09:00:00Z' });
  await outcome('2026-11-21', 'broken', '{ not json');
  await loadCharts();
});

afterAll(async () => {
  await removeTempDirs();
});

describe('merges on the daily chart', () => {
  it("reads the period's merges of the report's projects, by UTC day", async () => {
    expect(await readMerges(localLake(root), PERIOD, ['proj_a'])).toEqual([
      { day: '2026-11-22', projectId: 'proj_a', prLink: 'https://github.com/o/r/pull/1' },
    ]);
  });

  it('marks the day of each merge on the visitors chart, and nothing without one', async () => {
    const days = PERIOD.days.map((day, i) => ({ day, human: 100 + i, ai: 10 + i }));
    const figures = (merges: Figures['merges']) =>
      ({ period: PERIOD, visitorsPerDay: days, previousVisitorsPerDay: days.map((d) => ({ ...d, human: null, ai: null })), merges }) as unknown as Figures;

    const marked = String(visitorsSection(figures(await readMerges(localLake(root), PERIOD, ['proj_a']))));
    const plain = String(visitorsSection(figures([])));

    expect(marked).toContain('>merged<');
    expect(plain).not.toContain('merged');
  });
});
