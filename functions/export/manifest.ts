/**
 * The manifest of a unit, `<dest>/_manifests/<dataset>/dt=<day>/<projectId>.json`: its commit
 * marker, written last, after every table file of the unit (docs/design.md §2.3). Its presence
 * means the unit is complete; its figures (pages, requests) are what the planner estimates
 * other units from.
 */
import * as v from 'valibot';
import { DATASET_CATALOG, type DatasetName } from '../warehouse/catalog.js';
import { dayWindow } from '../shared/dates.js';
import type { Destination } from '../shared/storage/destination.js';
import { manifestKey } from '../warehouse/keys.js';
import { markUnit } from '../warehouse/lake/unit-marks.js';
import type { Drift } from './drift.js';
import type { PagerState } from './paging.js';
import type { ManifestPrivacy } from './privacy.js';
import { readJsonObject, type RequestCounts } from './staging.js';
import type { Unit } from './unit-id.js';

/** The commit marker of one unit, written last; its presence means the unit is complete. */
export interface Manifest {
  readonly version: 2;
  readonly dataset: DatasetName;
  readonly projectId: string;
  readonly date: string;
  readonly window: { readonly dateFrom: string; readonly dateTo: string };
  /** The `exported_at` stamped into every row (the run's start). */
  readonly exportedAt: string;
  /** When this manifest was written. */
  readonly finishedAt: string;
  /** The first page's site totals, for datasets that have them. */
  readonly totals?: Readonly<Record<string, number>>;
  /** Rows, keys and bytes of each table file, by table name. */
  readonly rows: Readonly<Record<string, number>>;
  readonly files: Readonly<Record<string, string>>;
  readonly bytes: Readonly<Record<string, number>>;
  /** Pages fetched (= successful requests when nothing was retried). */
  readonly pages: number;
  /** `feedback_by_page` only: the API had more rows than one request can return. */
  readonly truncated?: true;
  /**
   * What the answers held that this version does not know (fields, enum values, top-level
   * fields), all kept; absent when nothing. Field names and enum values only.
   */
  readonly drift?: Drift;
  /** Set when an answer was too large to read and the unit was paged with this smaller limit. */
  readonly pageLimit?: number;
  /** Invalid UTF-8 sequences the API sent, kept as U+FFFD (this run's pages). */
  readonly invalidUtf8?: number;
  /** Requests spent on the unit, over every run that worked on it. */
  readonly requests: RequestCounts;
  /** Runs that worked on the unit (1 = finished in one go). */
  readonly runs: number;
  readonly durationsMs: { readonly total: number };
  /** The personal-data policy of the unit's columns and the key id the files were written with (never the key). */
  readonly privacy?: ManifestPrivacy;
  /**
   * Set when the unit was exported before its day was due (`EXPORT_SETTLE_HOURS` after it
   * ends; ISO 8601, when it becomes due): the service may still add late events, so the unit
   * is `provisional` and the first run after this time exports it again, without `--force`.
   */
  readonly provisionalUntil?: string;
}

/** Rows of the unit's main table (its pages, turns, searches…: not the one-row totals). */
export function unitRows(manifest: Pick<Manifest, 'dataset' | 'rows'>): number {
  return manifest.rows[DATASET_CATALOG[manifest.dataset].table.name] ?? 0;
}

/** One table file of a unit, as its manifest lists it. */
export interface TableFile {
  /** The table's name. */
  readonly table: string;
  readonly key: string;
  readonly rows: number;
  readonly bytes: number;
}

/** What a complete unit's manifest is made of. */
export interface ManifestFacts {
  readonly unit: Unit;
  /** Paging after the last page: pages, the first page's totals, truncation, a lowered limit. */
  readonly state: PagerState;
  /** The unit's table files, in the order the manifest lists them. */
  readonly tables: readonly TableFile[];
  readonly drift: Drift | undefined;
  /** The `exported_at` of this run's rows. */
  readonly exportedAt: Date;
  /** When the manifest is written, epoch ms. */
  readonly finishedAt: number;
  readonly durationMs: number;
  /** Invalid UTF-8 sequences in this run's answers. */
  readonly invalidUtf8: number;
  readonly requests: RequestCounts;
  readonly runs: number;
  readonly privacy?: ManifestPrivacy;
  /** When the unit's day is due (epoch ms); the unit is provisional if a page was fetched before. @default due: never provisional */
  readonly dueAt?: number;
  /** When this run's first page of the unit (or the resumed checkpoint's first) was fetched, epoch ms. */
  readonly firstFetchedAt?: number;
}

/** The manifest of a complete unit; a field that would say nothing (no drift, no truncation) is absent. */
export function manifestOf(facts: ManifestFacts): Manifest {
  const { unit, state } = facts;
  const window = dayWindow(unit.day);
  const byTable = <T>(value: (file: TableFile) => T): Record<string, T> => Object.fromEntries(facts.tables.map((file) => [file.table, value(file)]));
  return {
    version: 2,
    dataset: unit.dataset,
    projectId: unit.projectId,
    date: unit.day,
    window: { dateFrom: window.from, dateTo: window.to },
    exportedAt: facts.exportedAt.toISOString(),
    finishedAt: new Date(facts.finishedAt).toISOString(),
    ...(state.totals ? { totals: state.totals } : {}),
    rows: byTable((file) => file.rows),
    files: byTable((file) => file.key),
    bytes: byTable((file) => file.bytes),
    pages: state.pages,
    ...(state.kind === 'single' && state.truncated ? { truncated: true as const } : {}),
    ...(facts.drift ? { drift: facts.drift } : {}),
    ...(state.pageLimit !== undefined ? { pageLimit: state.pageLimit } : {}),
    ...(facts.invalidUtf8 > 0 ? { invalidUtf8: facts.invalidUtf8 } : {}),
    requests: facts.requests,
    runs: facts.runs,
    durationsMs: { total: facts.durationMs },
    ...(facts.privacy ? { privacy: facts.privacy } : {}),
    ...(facts.dueAt !== undefined && (facts.firstFetchedAt ?? facts.finishedAt) < facts.dueAt ? { provisionalUntil: new Date(facts.dueAt).toISOString() } : {}),
  };
}

const Count = v.pipe(v.number(), v.integer(), v.minValue(0));
const Counts = v.record(v.string(), Count);
const Text = v.string();
const Names = v.array(Text);

/**
 * A manifest's `drift` (drift.ts `Drift`), as the report's calendar and `status` read it. A part
 * an older or hand-edited manifest lacks is none; a drift that does not read at all is no drift
 * (`ManifestSchema` falls back to undefined): it never makes a unit incomplete. What it reads
 * is a `Drift` (test/types/manifest-drift.test-d.ts).
 */
export const MANIFEST_DRIFT = v.object({
  tables: v.optional(
    v.record(
      Text,
      v.object({
        fields: v.optional(Names, []),
        moreFields: v.exactOptional(Count),
        values: v.optional(v.record(Text, Names), {}),
      }),
    ),
    {},
  ),
  topLevelFields: v.optional(Names, []),
  moreTopLevelFields: v.exactOptional(Count),
});

/**
 * What a manifest must hold for its unit to be complete: the fields `status`, the planner and
 * the report read. Loose: a field a later version adds is kept. Unit and table names are
 * checked against the unit it is read for.
 */
const ManifestSchema = v.looseObject({
  version: v.literal(2),
  dataset: Text,
  projectId: Text,
  date: Text,
  window: v.looseObject({ dateFrom: Text, dateTo: Text }),
  exportedAt: Text,
  finishedAt: v.pipe(
    Text,
    v.check((at) => Number.isFinite(Date.parse(at))),
  ),
  rows: Counts,
  files: v.record(v.string(), Text),
  bytes: Counts,
  pages: Count,
  requests: v.looseObject({ successful: Count, sent: Count, retried: Count }),
  runs: Count,
  durationsMs: v.looseObject({ total: v.number() }),
  drift: v.fallback(v.optional(MANIFEST_DRIFT), undefined),
  provisionalUntil: v.optional(
    v.pipe(
      Text,
      v.check((at) => Number.isFinite(Date.parse(at))),
    ),
  ),
});

/** A manifest read for a unit: the manifest, or why it does not make the unit complete (one line). */
export type ManifestReading = { readonly manifest: Manifest } | { readonly problem: string };

/**
 * Checks what a unit's manifest file holds: a manifest that is valid JSON but lacks fields (a
 * hand edit, a foreign tool, a cut-short copy) or names another unit does not make the unit
 * complete — the next export does it again — and the problem says so in one line.
 */
export function checkManifest(value: unknown, unit: Unit): ManifestReading {
  const key = manifestKey(unit.dataset, unit.day, unit.projectId);
  const redo = 'the next export does the unit again';
  const parsed = v.safeParse(ManifestSchema, value);
  if (!parsed.success) {
    const fields = [...new Set(parsed.issues.map((issue) => v.getDotPath(issue)?.split('.')[0] ?? '(not an object)'))];
    return { problem: `manifest ${key} is incomplete (no valid ${fields.join(', ')}): ${redo}` };
  }
  const manifest = parsed.output as Manifest;
  const other = (['dataset', 'projectId', 'date'] as const).filter((field) => manifest[field] !== (field === 'date' ? unit.day : unit[field]));
  if (other.length > 0) return { problem: `manifest ${key} names another unit (its ${other.join(', ')} differ): ${redo}` };
  return { manifest };
}

/**
 * The manifest of `unit`: absent when it has none or one that cannot be parsed (a half-written
 * file: the unit is then redone), else what {@link checkManifest} finds.
 */
export async function readManifest(destination: Pick<Destination, 'get'>, unit: Unit): Promise<ManifestReading | undefined> {
  const value = await readJsonObject<unknown>(destination, manifestKey(unit.dataset, unit.day, unit.projectId));
  return value === undefined ? undefined : checkManifest(value, unit);
}

/**
 * Writes the commit marker: the unit is complete from here on. Its mark in the index of units
 * goes first (warehouse/lake/unit-marks.ts): readers check the month against its manifests until
 * an index holding this one is written.
 */
export async function writeManifest(destination: Pick<Destination, 'put'>, manifest: Manifest): Promise<void> {
  await markUnit(destination, { dataset: manifest.dataset, day: manifest.date, projectId: manifest.projectId });
  await destination.put(manifestKey(manifest.dataset, manifest.date, manifest.projectId), `${JSON.stringify(manifest, null, 2)}\n`, {
    contentType: 'application/json',
  });
}

/** Removes the manifest of `unit`: it no longer describes the unit's files (they are being replaced). Marked first, as a write is. */
export async function removeManifest(destination: Pick<Destination, 'put' | 'delete'>, unit: Unit): Promise<void> {
  await markUnit(destination, unit);
  await destination.delete(manifestKey(unit.dataset, unit.day, unit.projectId));
}
