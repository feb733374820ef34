/**
 * A dataset spec's types (functions/export/datasets.ts `DatasetSpec`, warehouse/tables.ts
 * `RowOf`): `toRow` writes each of its table's columns with its type's value, so a spec that
 * misses a column, or reads a field its page's row lacks, does not compile. (A column its table
 * lacks is the writer's to refuse at run time: TypeScript checks no excess key of a function's
 * returned object.)
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { DatasetSpec, RowContext } from '../../functions/export/datasets.js';
import type { FeedbackByPage, FeedbackByPageRow } from '../../functions/shared/api-types.js';
import type { FEEDBACK_BY_PAGE, FOLLOWUP_OUTCOMES } from '../../functions/warehouse/tables.js';
import type { RowOf } from '../../functions/warehouse/table-def.js';

type ByPageToRow = DatasetSpec<FeedbackByPage, FeedbackByPageRow, typeof FEEDBACK_BY_PAGE>['toRow'];

const context = {} as RowContext;
const row = {} as FeedbackByPageRow;

describe("a dataset spec's toRow", () => {
  it("is typed by its table's columns, unknown_fields left to the reader", () => {
    expectTypeOf<keyof RowOf<typeof FEEDBACK_BY_PAGE>>().toEqualTypeOf<
      'project_id' | 'date' | 'path' | 'thumbs_up' | 'thumbs_down' | 'code' | 'total' | 'exported_at'
    >();
  });

  it('compiles when it writes every column', () => {
    const toRow: ByPageToRow = (r, c) => ({
      project_id: c.projectId,
      date: c.date,
      path: r.path,
      thumbs_up: r.thumbsUp,
      thumbs_down: r.thumbsDown,
      code: r.code,
      total: r.total,
      exported_at: c.exportedAt,
    });
    expectTypeOf(toRow(row, context)).toExtend<RowOf<typeof FEEDBACK_BY_PAGE>>();
  });

  it('does not compile when it misses a column', () => {
    // @ts-expect-error: `total` is missing
    const toRow: ByPageToRow = (r, c) => ({
      project_id: c.projectId,
      date: c.date,
      path: r.path,
      thumbs_up: r.thumbsUp,
      thumbs_down: r.thumbsDown,
      code: r.code,
      exported_at: c.exportedAt,
    });
    expectTypeOf(toRow).toBeFunction();
  });

  it('does not compile when it reads a field its page row lacks', () => {
    const toRow: ByPageToRow = (r, c) => ({
      project_id: c.projectId,
      date: c.date,
      // @ts-expect-error: a feedback-by-page row has no `url`
      path: r.url,
      thumbs_up: r.thumbsUp,
      thumbs_down: r.thumbsDown,
      code: r.code,
      total: r.total,
      exported_at: c.exportedAt,
    });
    expectTypeOf(toRow).toBeFunction();
  });

  it('leaves a table that is not a dataset table untyped (any keys)', () => {
    expectTypeOf<RowOf<typeof FOLLOWUP_OUTCOMES>>().toEqualTypeOf<Record<string, unknown>>();
  });
});
