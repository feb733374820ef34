/**
 * Builds the report of a warehouse: mirror what it needs (S3) or read it in place (local),
 * read every figure, render one HTML page, write it atomically. Reads the warehouse only:
 * no API request, no key.
 */
import { EXPIRING_DATASETS } from '../export/retention.js';
import { EXPIRED_PREFIX } from '../export/index.js';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { addDays, formatDay } from '../shared/dates.js';
import { NoDataError } from '../shared/errors.js';
import { openReportWarehouse, readFigures, type Figures } from './figures.js';
import { hasData } from './headline.js';
import { lastDayOf, previousPeriod, type Period } from '../warehouse/period.js';
import { discoverProjects, REPORT_TABLES, type LoadedWarehouse } from '../warehouse/session.js';
import { EXPORT_RUNS } from '../warehouse/tables.js';
import { ANOMALIES_PREFIX } from '../warehouse/keys.js';
import { EFFECT_TABLES, lookbackDays, readFixedJobs, type GapEffect } from '../gaps/effect.js';
import { readOutcomeRequests } from '../gaps/read.js';
import { loadCharts } from './charts.js';
import { renderReport } from './page/page.js';
import { verdictsSection } from './sections/verdicts.js';
import { scopeSection } from './sections/scope.js';
import { scopedJobs, type ScopedJob } from '../scope/summary.js';
import type { FillNotice } from './sections/fill.js';
import { preloadDuckDb } from '../warehouse/duckdb.js';
import { openLake, openRecords, type LakeFiles } from '../warehouse/lake.js';
import type { LakeTarget } from '../warehouse/lake/target.js';

export interface ReportRequest {
  /** The lake, parsed at the door (warehouse/lake/target.ts). */
  readonly target: LakeTarget;
  readonly period: Period;
  /** Projects to report; empty: every project found in the period. */
  readonly projects: readonly string[];
  /** The docs site's base URL (`REPORT_SITE_URL`): page paths become links. */
  readonly siteUrl?: string;
  /**
   * What fills the period's due days that are not fully exported, for the report's projects
   * (the CLI reads it with the export's status and estimator); undefined when none is missing.
   * Absent: no such notice (the deployment's weekly page, which the hourly run heals).
   */
  readonly fill?: (projects: readonly string[]) => Promise<FillNotice | undefined>;
  /**
   * The `export` command of `[from, to)` for `projects`, as the user runs it (the CLI adds
   * `--project` and `--out` as it does for `fill`). @default `mintlify-exporter export --from … --to …`
   */
  readonly exportCommand?: (from: string, to: string, projects: readonly string[]) => string;
  /** The first day PERSONAL_DATA_RETENTION_DAYS keeps (export/retention.ts): earlier days of the datasets it deletes are `expired`. @default - only units with an expiry record */
  readonly retentionCutoff?: string;
}

export interface ReportDeps {
  readonly now: () => number;
  readonly s3Client?: S3Client;
  /** Told one line per thing left out of the report (a bucket key that is not mirrored). */
  readonly onWarning?: (line: string) => void;
  /** Aborted when the user stops the run: the build stops at its next step and rejects with the signal's reason. */
  readonly signal?: AbortSignal;
}

export interface BuiltReport {
  readonly html: string;
  readonly figures: Figures;
  /** The destination as the user named it (the folder as given, or `s3://bucket/prefix`). */
  readonly destination: string;
  /** Milliseconds the report waited for the mirror of an S3 destination, the part overlapped with loading the tables left out (0 for a local one). */
  readonly mirrorMs: number;
  /** The completed jobs made for gaps and their verdicts ("Fixes and their effect"; the weekly digest lists them too). */
  readonly fixes: readonly GapEffect[];
  /** What fills the period, when some of its due days are not fully exported (shown first on the page). */
  readonly fill?: FillNotice;
  /** The period's checked pull requests of jobs made for gaps ("The agent's changes in scope"; the digest counts them). */
  readonly scope?: readonly ScopedJob[];
  /** Outcome records skipped at the door (each told to `onWarning`), counted in the page's health. */
  readonly skippedOutcomes: number;
}

/** Builds the page; throws NoDataError when no project has data in the period. */
export async function buildReport(request: ReportRequest, deps: ReportDeps): Promise<BuiltReport> {
  const { period } = request;
  const previous = previousPeriod(period);
  const started = performance.now();
  const today = formatDay(deps.now());
  // biome-ignore lint/complexity/useMathMinMax: ISO days compare as strings, not numbers
  const runsTo = addDays(today, 1) > period.to ? addDays(today, 1) : period.to;
  // The destination is read once: the lake, the time spent mirroring and the outcome records follow from it.
  const { target } = request;
  // The jobs made for gaps, read first through the destination itself (every day: a job of last
  // quarter still counts): their verdicts look back before the period (90 days before the first
  // completed job), and an s3:// lake mirrors those days of the gap tables too.
  const records = openRecords(target, deps);
  // DuckDB's module loads while the outcome records and the lake are read from the store.
  if (target.place.kind === 's3') preloadDuckDb();
  // A record that does not parse, or is dated before 2020 or after tomorrow, is skipped with one line and counted in the health.
  let skippedOutcomes = 0;
  const onSkipped = (line: string) => {
    skippedOutcomes += 1;
    deps.onWarning?.(`outcome record ${line}`);
  };
  const requests = await readOutcomeRequests(records, { now: deps.now(), onSkipped });
  const reach = lookbackDays(requests, { projects: request.projects, now: deps.now() })[0];
  const lake = await openLake(
    target,
    // The tables and the units' states over both periods (the page compares them where both
    // periods are exported enough: warehouse/compare.ts) and the gap tables the verdicts look
    // back over; the run log and the anomaly marks from the period before on too.
    {
      from: previous.from,
      to: runsTo,
      prefixes: [...new Set([...REPORT_TABLES, ...EFFECT_TABLES].map((t) => t.prefix))],
      // With the records of units retention deleted (`expired (retention)`, not missing: health.ts).
      recent: [EXPORT_RUNS.prefix, ANOMALIES_PREFIX, ...EXPIRING_DATASETS.map((d) => `${EXPIRED_PREFIX}${d}`)],
      recentFrom: previous.from,
      ...(reach !== undefined ? { reach: { from: reach, prefixes: EFFECT_TABLES.map((t) => t.prefix) } } : {}),
    },
    {
      ...(deps.s3Client ? { s3Client: deps.s3Client } : {}),
      records,
      // Each table arrives while DuckDB loads the ones before it, then the units' states, the
      // run log and the marks while it loads the last ones.
      streamed: true,
      ...(deps.onWarning ? { onWarning: deps.onWarning } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    },
  );
  let mirrorMs = target.place.kind === 's3' ? performance.now() - started : 0;
  /** What arrives later (each table folder, then the units' states, run log and marks): the time waited for it counts as mirroring. */
  const waitedFor = async (arrival: Promise<void>) => {
    const waiting = performance.now();
    await arrival;
    if (target.place.kind === 's3') mirrorMs += performance.now() - waiting;
  };
  const files: LakeFiles = { ...lake, folderReady: (prefix) => waitedFor(lake.folderReady(prefix)) };
  const statesMirrored = () => waitedFor(lake.ready);
  let warehouse: LoadedWarehouse | undefined;
  try {
    await yieldTo(deps.signal);
    // One DuckDB session for the figures and the fixes: the gap tables are loaded once, over the
    // report's days and those the fixes look back over, and each gap question is asked once.
    // Projects found from the files: the units' states (a project with failed units only) first.
    const projects = request.projects.length > 0 ? [...request.projects] : await statesMirrored().then(() => discoverProjects(files, period.days));
    const fixesScope = { days: period.days, projects, now: deps.now() };
    warehouse = await openReportWarehouse(files, {
      period,
      projects,
      gapDays: lookbackDays(requests, fixesScope),
      ...(deps.onWarning ? { onWarning: deps.onWarning } : {}),
    });
    await statesMirrored();
    const figures = await readFigures(files, {
      period,
      projects,
      runsTo,
      warehouse,
      ...(request.retentionCutoff !== undefined ? { retentionCutoff: request.retentionCutoff } : {}),
    });
    await yieldTo(deps.signal);
    const last = lastDayOf(period);
    if (figures.projects.length === 0) {
      throw new NoDataError(
        `nothing exported in ${lake.url} from ${period.from} to ${last}: run "mintlify-exporter export" first, or choose other days (--days N, --from D1 --to D2)`,
      );
    }
    if (!hasAnyData(figures)) {
      throw new NoDataError(
        `nothing exported in ${lake.url} from ${period.from} to ${last} for ${figures.projects.join(', ')}: run "mintlify-exporter export" first, or choose other days or projects`,
      );
    }
    const fill = await request.fill?.(figures.projects);
    const fixes = await readFixedJobs(files, requests, { ...fixesScope, warehouse });
    const verdictsHtml = verdictsSection(fixes, { many: figures.projects.length > 1, ...(request.siteUrl !== undefined ? { siteUrl: request.siteUrl } : {}) });
    // The agent's pull requests against the scope rules (functions/scope/): a section of its own.
    const scope = scopedJobs(requests, { from: period.from, to: period.to, projects: figures.projects });
    const scopeHtml = scopeSection(scope, { many: figures.projects.length > 1 });
    await loadCharts();
    const { exportCommand } = request;
    const html = renderReport(figures, {
      destination: lake.url,
      generatedAt: deps.now(),
      ...(request.siteUrl !== undefined ? { siteUrl: request.siteUrl } : {}),
      ...(verdictsHtml === '' && scopeHtml === '' ? {} : { extraSections: [verdictsHtml, scopeHtml].filter((part) => part !== '') }),
      ...(fill ? { fill } : {}),
      ...(skippedOutcomes > 0 ? { skippedOutcomes } : {}),
      ...(exportCommand ? { exportCommand: (from: string, to: string) => exportCommand(from, to, figures.projects) } : {}),
    });
    return {
      html,
      figures,
      destination: lake.url,
      mirrorMs,
      fixes: fixes.effects,
      skippedOutcomes,
      ...(fill ? { fill } : {}),
      ...(scope.length > 0 ? { scope } : {}),
    };
  } finally {
    warehouse?.close();
    await lake.close();
  }
}

/** Lets the event loop run (a stop signal's handler among others), then stops if the run was stopped. */
export async function yieldTo(signal: AbortSignal | undefined): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  signal?.throwIfAborted();
}

/**
 * Whether the period holds anything of the report's projects: a table row or a unit's state.
 * (The run log is the whole export's: a project nothing was exported for has no report.)
 */
function hasAnyData(figures: Figures): boolean {
  return hasData(figures.headline.current) || figures.health.some((c) => c.state !== 'missing');
}

/** Writes `html` to `file` atomically (a reader sees the previous report or the new one). */
export async function writeReportFile(file: string, html: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await writeFile(temp, html, { flag: 'wx' });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}
