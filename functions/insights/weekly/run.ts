/**
 * The weekly report of a deployment: the report `mintlify-exporter report` builds (the same
 * code, `buildReport`) over the last 7 complete days against the 7 before, every project, from
 * the bucket; written to `<prefix>/reports/weekly/<YYYY>-W<ww>.html` and
 * `<prefix>/reports/latest.html`, then told on the insights topic with a link that lasts the
 * week (link.ts) — or, with no distribution deployed, the page's place in the bucket. The
 * verdicts on the fixes the page shows are written to the `fix_effects` table too, and their day
 * registered in Glue (with `EXPORT_GLUE_DATABASE`; the organisation's `org` for its report).
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { lastDueDay } from '../../export/index.js';
import type { InsightMessage } from '../publish.js';
import type { Figures } from '../../report/figures.js';
import { daysFrom, type Period } from '../../warehouse/period.js';
import { buildReport } from '../../report/report.js';
import { addDays, dayStart } from '../../shared/dates.js';
import type { Destination } from '../../shared/storage/destination.js';
import type { LakeTarget } from '../../warehouse/lake/target.js';
import { registerVerdictDays, toVerdictRow, type VerdictPartitions, writeVerdicts } from '../../gaps/verdict-rows.js';
import { digestOf } from './digest.js';
import { LATEST_KEY, rangeKey, weeklyKey } from './keys.js';
import type { LinkSigner } from './link.js';
import { DAY_MS } from '../../shared/time.js';

/** Days of a week. */
export const WEEK_DAYS = 7;

/** The ISO 8601 week of `day` (`2026-W47`): weeks start on Monday; week 1 holds the year's first Thursday. */
export function isoWeek(day: string): string {
  const date = new Date(dayStart(day));
  const weekday = (date.getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const thursday = new Date(date.getTime() + (3 - weekday) * DAY_MS);
  const year = thursday.getUTCFullYear();
  const week = 1 + Math.floor((thursday.getTime() - Date.UTC(year, 0, 1)) / (7 * DAY_MS));
  return `${year}-W${String(week).padStart(2, '0')}`;
}

/**
 * The period reported at `now`: for 7 days (the week), the latest ISO week (Monday to Sunday)
 * whose Sunday is due — so the page covers the week it names, whatever EXPORT_SETTLE_HOURS;
 * for another length (by hand), the last `days` complete days, ending with the latest due day.
 */
export function weekPeriod(now: number, settleHours: number, days = WEEK_DAYS): Period {
  let last = lastDueDay(now, settleHours);
  if (days === WEEK_DAYS) {
    while (new Date(dayStart(last)).getUTCDay() !== 0) last = addDays(last, -1);
  }
  const to = addDays(last, 1);
  const from = addDays(to, -days);
  return { from, to, days: daysFrom(from, to) };
}

export interface WeeklySettings {
  /** `EXPORT_DESTINATION` (`s3://bucket/prefix`), parsed once by the handler. */
  readonly target: LakeTarget;
  readonly settleHours: number;
  /** Projects to report; empty: every project found. */
  readonly projects: readonly string[];
  /**
   * Days reported, against as many before. @default 7: the week, written as the week's page
   * and `latest.html`. Any other length (an invocation by hand) is written as
   * `reports/range/<first>_<last>.html` only: the week's pages are left alone.
   */
  readonly days?: number;
  /** `REPORT_SITE_URL`: the page links each page path to its page. */
  readonly siteUrl?: string | undefined;
}

export interface WeeklyDeps {
  readonly s3: S3Client;
  /** The same destination, to write the pages. */
  readonly writeTo: Pick<Destination, 'put'>;
  readonly publish: (message: InsightMessage) => Promise<void>;
  readonly now: () => number;
  /** Signs the digest's link; absent: the digest names the page in the bucket. */
  readonly link?: LinkSigner | undefined;
  /** When the link is signed (the real clock, not the schedule's time). @default now */
  readonly signedAt?: () => number;
  /** Told each line the report warns of (an outcome record skipped at the door): the function's log. */
  readonly onWarning?: (line: string) => void;
  /** Where the days of the verdicts written are registered (`EXPORT_GLUE_DATABASE`); absent: none registered. */
  readonly partitions?: VerdictPartitions | undefined;
}

export interface WeeklyResult {
  /** `2026-W47`, or `<first> to <last>` for a period other than a week. */
  readonly week: string;
  /** Keys written, relative to the destination. */
  readonly keys: readonly string[];
  /** The signed link, or the page's `s3://` place when there is none. */
  readonly url: string;
  readonly figures: Figures;
  readonly digest: InsightMessage;
  /** Milliseconds spent mirroring the bucket's days to local files (the report's lake). */
  readonly mirrorMs: number;
  /** The `fix_effects` files written: the verdicts on the fixes the page shows (none without a completed job made for a gap). */
  readonly verdictKeys: readonly string[];
}

/** Builds, writes and tells the week's report. Throws NoDataError when nothing was exported in the two weeks. */
export async function runWeeklyReport(settings: WeeklySettings, deps: WeeklyDeps): Promise<WeeklyResult> {
  const { target } = settings;
  const days = settings.days ?? WEEK_DAYS;
  const period = weekPeriod(deps.now(), settings.settleHours, days);
  const last = period.days[period.days.length - 1] as string;
  const week = days === WEEK_DAYS ? isoWeek(last) : `${period.from} to ${last}`;
  const report = await buildReport(
    {
      target,
      period,
      projects: settings.projects,
      ...(settings.siteUrl !== undefined ? { siteUrl: settings.siteUrl } : {}),
    },
    { now: deps.now, s3Client: deps.s3, ...(deps.onWarning ? { onWarning: deps.onWarning } : {}) },
  );
  const key = days === WEEK_DAYS ? weeklyKey(week) : rangeKey(period.from, last);
  const keys = days === WEEK_DAYS ? [key, LATEST_KEY] : [key];
  // The week's page first: latest.html never names a page that is not there.
  for (const target of keys) await deps.writeTo.put(target, report.html, { contentType: 'text/html; charset=utf-8' });
  // The verdicts land in the warehouse's fix_effects table, so a team joins them with its own data.
  const verdictKeys = await writeVerdicts(deps.writeTo, report.fixes.map(toVerdictRow), deps.now());
  // …and their day in the catalog, so Spectrum, Spark and Trino see it (a failure is logged, never the report's).
  if (deps.partitions !== undefined && verdictKeys.length > 0) await registerVerdictDays(deps.partitions, verdictKeys, deps.now);
  const link = deps.link ? await deps.link(key, (deps.signedAt ?? deps.now)()) : undefined;
  const place = target.place.kind === 's3' ? `s3://${target.place.bucket}/${target.place.prefix}` : `${target.place.dir}/`;
  const url = link?.url ?? `${place}${key}`;
  const digest = digestOf({
    figures: report.figures,
    week,
    fixes: report.fixes,
    ...(report.scope ? { scope: report.scope } : {}),
    ...(link ? { link } : { place: url }),
  });
  await deps.publish(digest);
  return { week, keys, url, figures: report.figures, digest, mirrorMs: report.mirrorMs, verdictKeys };
}
