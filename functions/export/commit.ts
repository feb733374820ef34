/**
 * A unit's table files and its commit. Every page of the unit, staged or fetched, is appended
 * to its main table file as its dataset's reader read it (`UnitRows`); once the last page is
 * staged, `commit` writes the summary table's file, replaces the tables' files and writes the
 * manifest (`manifest.ts`) last (unit.ts drives both).
 */
import type { Destination } from '../shared/storage/destination.js';
import { describeError } from '../shared/errors.js';
import { PaginationError } from './errors.js';
import type { AppLogger } from '../shared/logger.js';
import { partitionKey } from '../warehouse/tables.js';
import type { TableDef } from '../warehouse/table-def.js';
import type { DatasetDef, ReadPage, RowContext, TableRow } from './datasets.js';
import { tablesOf } from '../warehouse/catalog.js';
import { DriftRecorder, unknownFieldsColumn } from './drift.js';
import { manifestOf, removeManifest, writeManifest, type Manifest, type TableFile } from './manifest.js';
import type { PagerState } from './paging.js';
import { openTableWriter, type TableWriter } from './parquet.js';
import { manifestPrivacy, type Privacy } from './privacy.js';
import { dueAt } from './settle.js';
import type { Checkpoint, RequestCounts, UnitStaging } from './staging.js';
import { unitLabel, type Unit } from './unit-id.js';

/** What the commit needs of a run's work on the unit (unit.ts `UnitRun`). */
export interface CommittedRun {
  readonly unit: Unit;
  readonly def: DatasetDef;
  readonly policy: { readonly settleHours?: number };
  readonly privacy: Privacy;
  readonly staging: Pick<UnitStaging, 'clear'>;
  /** The context of this run's rows. */
  readonly context: RowContext;
  /** When this run started on the unit, epoch ms. */
  readonly started: number;
  /** Runs that worked on the unit, this one included. */
  readonly runs: number;
  /** When the staged pages arrived (`Checkpoint.stamps`). */
  readonly stamps: NonNullable<Checkpoint['stamps']>;
  /** Requests spent on the unit, by earlier runs and this one. */
  spent(): RequestCounts;
  /** Invalid UTF-8 sequences replaced by U+FFFD in this run's answers. */
  invalidUtf8(): number;
}

/** What the commit writes with. */
export interface CommitDeps {
  readonly destination: Destination;
  /** Epoch ms. */
  readonly now: () => number;
  readonly logger?: AppLogger;
  /** The unit's lease, renewed before the commit. */
  readonly lease?: { renew(): Promise<void> };
}

/** The rows of `def.table`'s file of `unit`. */
export function tableKey(table: TableDef, unit: Unit): string {
  return partitionKey(table, unit.day, `${unit.projectId}.parquet`);
}

/**
 * The unit's main table file while its pages arrive: every page, staged or fetched, goes
 * through `append` as its dataset's reader read it; the commit reads what they added up to.
 */
export class UnitRows {
  /** Rows appended. */
  count = 0;
  readonly drift = new DriftRecorder();
  /** The first page's `totals` fields this version does not know: the summary row's. */
  totalsUnknown: Record<string, unknown> | undefined;

  constructor(
    private readonly table: TableDef,
    readonly writer: TableWriter,
  ) {}

  async append(page: ReadPage, index: number): Promise<void> {
    if (index === 0) this.totalsUnknown = page.drift.totalsUnknown;
    for (const row of page.rows) await this.writer.append(row);
    this.drift.page(this.table, page.rows, page.drift);
    this.count += page.rows.length;
  }
}

/**
 * The commit: every page is staged and appended; the unit's table files are written, then its
 * manifest, and the unit is complete. The previous manifest goes once the new file is complete
 * and just before it replaces the old one, so no manifest ever describes a mix of files, and a
 * write that fails before that leaves the previous export whole, manifest included.
 */
export async function commit(run: CommittedRun, rows: UnitRows, state: PagerState, deps: CommitDeps): Promise<Manifest> {
  const { unit, def, context } = run;
  const { destination, now } = deps;
  const label = unitLabel(unit);
  await deps.lease?.renew();
  const main = await rows.writer.close({ beforeCommit: () => removeManifest(destination, unit) });
  const tables: TableFile[] = [];
  if (def.summaryTable && def.summaryRow) {
    if (!state.totals) throw new PaginationError(`${label}: the API returned no totals`);
    tables.push(await writeSummary(unit, rows, def.summaryTable, def.summaryRow(state.totals, rows.count, context), destination));
  }
  tables.push({ table: def.table.name, key: tableKey(def.table, unit), rows: main.rows, bytes: main.bytes });

  if (state.kind === 'single' && state.truncated) {
    deps.logger?.warn('the API left rows out of a one-request dataset: the manifest says truncated', {
      unit: label,
      rows: rows.count,
    });
  }
  const finishedAt = now();
  const manifest = manifestOf({
    unit,
    state,
    tables,
    drift: rows.drift.result(),
    exportedAt: context.exportedAt,
    finishedAt,
    durationMs: now() - run.started,
    invalidUtf8: run.invalidUtf8(),
    requests: run.spent(),
    runs: run.runs,
    privacy: manifestPrivacy(tablesOf(def), run.privacy),
    ...(run.policy.settleHours !== undefined ? { dueAt: dueAt(unit.day, run.policy.settleHours) } : {}),
    ...firstFetch(run),
  });
  await writeManifest(destination, manifest);
  // The unit is complete once its manifest is written: a staging that cannot be removed
  // now is left for later (it is never read again), not a failed unit.
  await run.staging.clear(state.pages).catch((error: unknown) => {
    deps.logger?.warn('could not remove the staging of a complete unit', { unit: label, error: describeError(error) });
  });
  return manifest;
}

/** When the unit's oldest page was fetched: the first run's stamp (a resumed unit keeps its earlier pages). */
function firstFetch(run: Pick<CommittedRun, 'stamps'>): { firstFetchedAt?: number } {
  const at = Date.parse(run.stamps[0]?.at ?? '');
  return Number.isFinite(at) ? { firstFetchedAt: at } : {};
}

/** The summary table's file of the unit: its one row (from the first page's totals and the rows written), with the unknown fields of those totals. */
async function writeSummary(unit: Unit, rows: UnitRows, table: TableDef, row: TableRow, destination: Destination): Promise<TableFile> {
  const key = tableKey(table, unit);
  const summary = await openTableWriter(table, await destination.openWrite(key));
  try {
    const summaryRow = { ...row, unknown_fields: unknownFieldsColumn(rows.totalsUnknown) };
    await summary.append(summaryRow);
    rows.drift.row(table, summaryRow, rows.totalsUnknown);
  } catch (error) {
    await summary.abort(error);
    throw error;
  }
  const written = await summary.close();
  return { table: table.name, key, rows: 1, bytes: written.bytes };
}
