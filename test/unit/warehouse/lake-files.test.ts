/**
 * The one listing of a lake's table files (warehouse/lake/files.ts): each project's Parquet file
 * of the days asked for, in day order, of the projects asked for; anything else in a table
 * folder (a temporary file, another day, a name that is no project id) is not the export's.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableFiles } from '../../../functions/warehouse/lake/files.js';
import { localLake } from '../../../functions/warehouse/lake.js';

let root: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'lake-files-'));
  const files = [
    'visitors_pages/dt=2026-01-02/proj_b.parquet',
    'visitors_pages/dt=2026-01-02/proj_a.parquet',
    'visitors_pages/dt=2026-01-01/proj_a.parquet',
    'visitors_pages/dt=2026-01-01/proj_a.parquet.tmp-1',
    'visitors_pages/dt=2026-01-01/not a project.parquet',
    'visitors_pages/dt=2026-01-03/proj_a.parquet',
  ];
  for (const file of files) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), '');
  }
});

afterAll(() => rm(root, { recursive: true, force: true }));

describe('tableFiles', () => {
  it("lists each project's file of the days asked, in day order, and nothing else", async () => {
    const lake = localLake(root);

    expect(await tableFiles(lake, 'visitors_pages', ['2026-01-01', '2026-01-02', '2026-01-04'])).toEqual([
      { day: '2026-01-01', projectId: 'proj_a', key: 'visitors_pages/dt=2026-01-01/proj_a.parquet' },
      { day: '2026-01-02', projectId: 'proj_a', key: 'visitors_pages/dt=2026-01-02/proj_a.parquet' },
      { day: '2026-01-02', projectId: 'proj_b', key: 'visitors_pages/dt=2026-01-02/proj_b.parquet' },
    ]);
    expect((await tableFiles(lake, 'visitors_pages', ['2026-01-02', '2026-01-03'], new Set(['proj_a']))).map((f) => f.key)).toEqual([
      'visitors_pages/dt=2026-01-02/proj_a.parquet',
      'visitors_pages/dt=2026-01-03/proj_a.parquet',
    ]);
    expect(await tableFiles(lake, 'views_pages', ['2026-01-01'])).toEqual([]);
  });
});
