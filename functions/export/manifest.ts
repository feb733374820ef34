/**
 * The manifest of a unit, `<dest>/_manifests/<dataset>/dt=<day>/<projectId>.json`: its commit
 * marker, written last, after every table file of the unit (docs/design.md §2.3). Its presence
 * means the unit is complete; its figures (pages, requests) are what the planner estimates
 * other units from.
 */
import type { DatasetName } from '../shared/catalog.js';
import type { Drift } from './drift.js';
import type { RequestCounts } from './staging.js';

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
}
