/**
 * The effect of a fix, read from a lake where a gap's figure changes after its job completed
 * (test/helpers/fix-lake.ts): the gap's thumbs down per day before and after, checked against an
 * independent DuckDB count of the files; a job completed three days ago is too early to tell.
 * The report reads its fixes in its own DuckDB session: every session this file opens is a real
 * one, counted (with the statements it runs) to see that.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readFixedJobs } from '../../../functions/gaps/effect.js';
import { periodOf } from '../../../functions/warehouse/period.js';
import { readOutcomeRequests } from '../../../functions/gaps/read.js';
import { addDays } from '../../../functions/shared/dates.js';
import { localLake } from '../../../functions/warehouse/lake.js';
import { removeTempDirs } from '../../helpers/files.js';
import { buildFixLake, DONE, FIX_PROJECT, NOW, PR_LINK, RECENT, type FixLake } from '../../helpers/fix-lake.js';
import { parseLakeTarget } from '../../../functions/warehouse/lake/target.js';

const duckdb = vi.hoisted(() => ({ sessions: 0, statements: [] as string[] }));

vi.mock('../../../functions/warehouse/duckdb.js', async (original) => {
  const real = await original<typeof import('../../../functions/warehouse/duckdb.js')>();
  return {
    ...real,
    openDuckDb: async (...args: Parameters<typeof real.openDuckDb>) => {
      const session = await real.openDuckDb(...args);
      duckdb.sessions += 1;
      return {
        query: (sql: string) => (duckdb.statements.push(sql), session.query(sql)),
        run: (sql: string) => (duckdb.statements.push(sql), session.run(sql)),
        each: (sql: string, onRows: Parameters<typeof session.each>[1]) => (duckdb.statements.push(sql), session.each(sql, onRows)),
        close: () => session.close(),
      };
    },
  };
});

let lake: FixLake;
let buildReport: typeof import('../../../functions/report/report.js').buildReport;

beforeAll(async () => {
  // The files of one worker share their modules (vitest.config.ts: isolate off): another file
  // may have loaded the report's before this file's mock, so they are loaded again to see it.
  vi.resetModules();
  ({ buildReport } = await import('../../../functions/report/report.js'));
  lake = await buildFixLake();
}, 120_000);

afterAll(async () => {
  await removeTempDirs();
});

async function fixes(days: readonly string[]) {
  const read = localLake(lake.root);
  return readFixedJobs(read, await readOutcomeRequests(read.records), { days, projects: [], now: NOW });
}

describe('the effect of a fix', () => {
  it('gives the gap’s thumbs down per day over the N days before and after the job, exactly, with its pull request', async () => {
    const { effects } = await fixes([addDays(DONE, 1)]);

    const before = await lake.thumbsDown(lake.page, addDays(DONE, -10), addDays(DONE, -1));
    expect(before).toBeGreaterThan(0);
    expect(effects.find((e) => e.gapId === lake.gapId)).toEqual({
      gapId: lake.gapId,
      projectId: FIX_PROJECT,
      gap: { kind: 'thumbs_down_page', key: lake.page, title: `Thumbs down on ${lake.page}` },
      requestId: `${lake.gapId}-r1`,
      jobId: `job_for_${lake.gapId}`,
      prLink: PR_LINK,
      completedDay: DONE,
      startDay: DONE,
      laterJobs: [],
      daysSince: 10,
      n: 10,
      tooEarly: false,
      before: { from: addDays(DONE, -10), last: addDays(DONE, -1), days: 10, total: before, perDay: before / 10, leftOut: [] },
      after: { from: addDays(DONE, 1), last: addDays(DONE, 10), days: 10, total: 0, perDay: 0, leftOut: [] },
      // The lake holds feedback only: no views, so no rate — and fewer than 30 thumbs down before.
      judged: expect.objectContaining({
        verdict: 'too_little_data',
        before: { days: 10, signals: before, exposure: 0, rate: 0 },
        after: { days: 10, signals: 0, exposure: 0, rate: 0 },
      }),
    });
  });

  it('says too early to tell under seven whole days since the job completed, latest first', async () => {
    const { effects } = await fixes([addDays(DONE, 1)]);

    expect(effects.map((e) => e.completedDay)).toEqual([RECENT, DONE]);
    expect(effects[0]).toMatchObject({ daysSince: 3, n: 3, tooEarly: true, before: { days: 3 }, after: { days: 3 } });
  });

  it('lists the period’s gaps without a completed job as open, and not the fixed ones', async () => {
    const days = Array.from({ length: 10 }, (_, i) => addDays(DONE, i - 10));

    const { open } = await fixes(days);

    expect(open.length).toBeGreaterThan(0);
    expect(open.map((g) => g.key)).not.toContain(lake.page);
    expect(open.map((g) => g.key)).not.toContain(lake.recentPage);
  });
});

describe('the report and its fixes', () => {
  it('opens one DuckDB session: the gap tables loaded once, each gap question of the period asked once', async () => {
    const period = periodOf(addDays(DONE, -10), addDays(DONE, 11));
    duckdb.sessions = 0;
    duckdb.statements.length = 0;

    const built = await buildReport({ target: parseLakeTarget(lake.root, '--out'), period, projects: [] }, { now: () => NOW });

    expect(built.html).toContain('id="fixes-effect"');
    expect(duckdb.sessions).toBe(1);
    for (const table of ['assistant_conversations', 'searches', 'feedback']) {
      expect(duckdb.statements.filter((sql) => new RegExp(`^CREATE (TABLE|VIEW) ${table} AS`).test(sql))).toHaveLength(1);
    }
    const ofPeriod = (marker: string) =>
      duckdb.statements.filter((sql) => sql.includes(marker) && sql.includes(`dt >= '${period.from}' AND dt < '${period.to}'`));
    expect(ofPeriod('HAVING count(top_clicked_page) = 0')).toHaveLength(1);
    // The report's unanswered questions by category; the questions gaps groups into topics asked
    // once in the session, over the verdicts' look-back, which holds the period (gaps/bank.ts).
    expect(ofPeriod("resolution_status = 'unanswered'")).toHaveLength(1);
    expect(ofPeriod("resolution_status = 'unanswered' AND query IS NOT NULL")).toHaveLength(0);
    expect(duckdb.statements.filter((sql) => sql.includes("resolution_status = 'unanswered' AND query IS NOT NULL"))).toHaveLength(1);
    expect(ofPeriod('FILTER (WHERE helpful = false) AS thumbs_down')).toHaveLength(1);
  });
});
