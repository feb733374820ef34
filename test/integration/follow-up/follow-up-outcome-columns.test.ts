/**
 * The outcome record's appended columns `kind` and `gap_id`, read back with DuckDB the way the
 * warehouse reads `followup_outcomes` (newline-delimited JSON, Hive `dt`, `union_by_name`): a
 * file written before the columns existed still reads, with nulls in them.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOutcome, createOutcomeSink } from '../../../functions/follow-up/outcome.js';
import { openDestination } from '../../../functions/shared/storage/destinations.js';
import { FOLLOWUP_OUTCOMES } from '../../../functions/warehouse/tables.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { queryDuckDb } from '../../helpers/read-back.js';

const FINISHED = Date.UTC(2026, 0, 20, 10);
const common = { projectId: 'proj_a', promptLength: 12, promptSha256: 'ab'.repeat(32), finishedAt: FINISHED, polls: 3, attempts: 1 } as const;

afterAll(removeTempDirs);

describe('followup_outcomes with kind and gap_id', () => {
  it('reads new records with kind and gap_id last, and an older record without them as null', async () => {
    const root = await makeTempDir('outcome-columns');
    const sink = createOutcomeSink(openDestination(root));
    await sink.write(
      buildOutcome({
        ...common,
        requestId: 'req-new',
        kind: 'create',
        gapId: 'gap_0123',
        jobId: 'job_new_1',
        status: 'completed',
        prLink: 'https://github.com/o/r/pull/7',
        sentAt: FINISHED - 60_000,
      }),
    );
    await sink.write(buildOutcome({ ...common, requestId: 'req-lost', kind: 'create', gapId: 'gap_0456', status: 'uncertain', detail: 'lost answer' }));
    await sink.write(buildOutcome({ ...common, requestId: 'req-follow', kind: 'follow_up', jobId: 'job_1', status: 'failed' }));
    // A record of the round before, as it was written: no kind, no gap_id.
    const old = {
      request_id: 'req-old',
      project_id: 'proj_a',
      job_id: 'job_0',
      prompt_length: 3,
      prompt_sha256: 'cd'.repeat(32),
      status: 'completed',
      pr_link: null,
      sent_at: null,
      finished_at: new Date(FINISHED).toISOString(),
      polls: 1,
      attempts: 1,
      detail: null,
    };
    await mkdir(join(root, 'followup_outcomes', 'dt=2026-01-19'), { recursive: true });
    await writeFile(join(root, 'followup_outcomes', 'dt=2026-01-19', 'req-old.json'), `${JSON.stringify(old)}\n`);

    const glob = join(root, 'followup_outcomes', '*', '*.json').replace(/'/g, "''");
    const reader = `read_json('${glob}', hive_partitioning = true, hive_types_autocast = false, union_by_name = true, format = 'newline_delimited')`;
    const rows = await queryDuckDb(`SELECT request_id, kind, gap_id, job_id, status, dt FROM ${reader} ORDER BY request_id`);
    const columns = await queryDuckDb(
      `DESCRIBE SELECT * FROM read_json('${join(root, 'followup_outcomes', 'dt=2026-01-20', 'req-new.json').replace(/'/g, "''")}', format = 'newline_delimited', hive_partitioning = false)`,
    );

    expect(rows).toEqual([
      { request_id: 'req-follow', kind: 'follow_up', gap_id: null, job_id: 'job_1', status: 'failed', dt: '2026-01-20' },
      { request_id: 'req-lost', kind: 'create', gap_id: 'gap_0456', job_id: null, status: 'uncertain', dt: '2026-01-20' },
      { request_id: 'req-new', kind: 'create', gap_id: 'gap_0123', job_id: 'job_new_1', status: 'completed', dt: '2026-01-20' },
      { request_id: 'req-old', kind: null, gap_id: null, job_id: 'job_0', status: 'completed', dt: '2026-01-19' },
    ]);
    expect(columns.map((c) => c['column_name'])).toEqual(FOLLOWUP_OUTCOMES.columns.map((c) => c.name));
    // Appended columns come after the ones before them: kind and gap_id (round four), then the scope check's (round seven).
    expect(columns.map((c) => c['column_name']).slice(-5)).toEqual(['kind', 'gap_id', 'scope', 'scope_reasons', 'merged_at']);
  });
});
