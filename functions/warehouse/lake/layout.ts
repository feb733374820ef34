/**
 * The bucket's layout, as data: every folder and key the project writes under a destination,
 * once. It is the only writer and reader of the day folders' names (`dt=YYYY-MM-DD`, the Hive
 * partition Glue, Athena, Spectrum and Trino read); every other module asks it for a key or a
 * day ({@link dayKey}, {@link parseDayKey}, {@link dayOfFolderName}). docs/design.md's bucket
 * map (`npm run docs`) and infra's granted prefixes come from {@link LAYOUT}. No byte of an
 * existing bucket depends on anything but these strings, so changing one is a migration.
 *
 * It imports no table or dataset definition (tables.ts and keys.ts stand on it); a folder with
 * a part (`<dataset>`, `<table>`, `<id>`) is filled by {@link folderOf}.
 */
import { type KeyRange, SCRATCH_PREFIX } from '../../shared/storage/destination.js';

/** One kind of thing the bucket holds: its folder (with `<part>` placeholders), whether it is split by day, its files. */
export interface Place {
  /** The folder under the destination, without a trailing `/`; `<…>` is filled by {@link folderOf}. */
  readonly folder: string;
  /** Split into a folder per UTC day (`<folder>/dt=YYYY-MM-DD/<file>`). */
  readonly daily: boolean;
  /** The file (or, ending with `/`, the folder) a day or the place holds. */
  readonly file: string;
  /** What it is, for the bucket map of docs/design.md. */
  readonly what: string;
}

/** Every place of the bucket, in the order of docs/design.md's map. */
export const LAYOUT = {
  table: { folder: '<table>', daily: true, file: '<projectId>.parquet', what: 'one file per table, project and UTC day' },
  manifest: { folder: '_manifests/<dataset>', daily: true, file: '<projectId>.json', what: 'commit marker, written last' },
  staging: { folder: `${SCRATCH_PREFIX}/<dataset>`, daily: true, file: '<projectId>/', what: 'pages of an unfinished unit' },
  outcomes: { folder: 'followup_outcomes', daily: true, file: '<requestId>.json', what: 'the outcome of each follow-up request' },
  runs: { folder: 'export_runs', daily: true, file: '<runId>.json', what: "each export run's record" },
  fixEffects: {
    folder: 'fix_effects',
    daily: true,
    file: '<projectId>.json',
    what: 'verdicts on fixes, one JSON object a line (docs/follow-ups.md)',
  },
  anomalies: { folder: '_insights/anomalies', daily: true, file: '<projectId>.json', what: "the hourly check's anomalies, a JSON array" },
  erasures: { folder: '_privacy/erasures', daily: false, file: '<time>-<hmac prefix>.json', what: 'the record of each erasure (forget)' },
  expired: { folder: '_privacy/expired/<dataset>', daily: true, file: '<projectId>.json', what: 'a unit whose personal data expired (retention)' },
  forgetting: {
    folder: '_privacy/forgetting/<dataset>',
    daily: true,
    file: '<projectId>.json',
    what: "a unit's manifest, kept while forget replaces its file",
  },
  unitIndex: {
    folder: '_index/<dataset>',
    daily: false,
    file: 'month=YYYY-MM.json',
    what: "the manifests of a month's units in one object (derived: rebuilt from the manifests)",
  },
  unitPending: {
    folder: '_index/<dataset>/pending',
    daily: false,
    file: 'month=YYYY-MM/<day>.<projectId>.<writer>',
    what: "a unit's manifest being changed (export, forget, retention), put before it; removed once the month's index holds the change",
  },
  runIndex: {
    folder: '_index/_runs',
    daily: false,
    file: 'month=YYYY-MM.json',
    what: "the run log's records of a month in one object (derived: checked against the listing of export_runs)",
  },
  rollups: {
    folder: '_rollups/<table>',
    daily: false,
    file: 'month=YYYY-MM.parquet',
    what: 'a month of a table in one file, every project of the destination whose days are settled (derived), its record (.json) beside it',
  },
  rollupSums: {
    folder: '_rollups/<table>',
    daily: false,
    file: 'month=YYYY-MM.sums.parquet',
    what: "a roll-up's sums per project and page (views_pages: the top pages), built and removed with it, tied to it by a build id (derived)",
  },
  reports: { folder: 'reports', daily: false, file: '<page>.html', what: "the weekly report's pages (latest, weekly/, range/)" },
  organisation: { folder: 'orgs/<id>', daily: false, file: '…', what: "an organisation's lake, laid out as above (many organisations)" },
} as const satisfies Record<string, Place>;

export type PlaceName = keyof typeof LAYOUT;

/** The Hive partition naming a day folder (tables.ts `partitionKey`). */
export const DAY_PARTITION = 'dt';
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const DAY_KEY = /^(.*?)\/dt=(\d{4}-\d{2}-\d{2})\/(.+)$/;

/** `place`'s folder with its one `<part>` filled (`manifest`, `visitors` → `_manifests/visitors`); throws on a part a key cannot hold. */
export function folderOf(place: PlaceName, part?: string): string {
  const { folder } = LAYOUT[place];
  const open = folder.indexOf('<');
  if (open < 0) return folder;
  if (part === undefined || part === '' || part.includes('/'))
    throw new Error(`the ${place} folder ${folder} needs a part without a slash, not ${JSON.stringify(part)}`);
  return `${folder.slice(0, open)}${part}${folder.slice(folder.indexOf('>') + 1)}`;
}

/** What every key of `place` starts with, ending with `/` (`_manifests/`, `_privacy/erasures/`): what a listing or a grant names. */
export function rootOf(place: PlaceName): string {
  const { folder } = LAYOUT[place];
  const open = folder.indexOf('<');
  return open < 0 ? `${folder}/` : folder.slice(0, open);
}

/** The Hive-style name of a month's folder or object (`month=YYYY-MM`): roll-ups and the index of units. */
export const MONTH_PARTITION = 'month';
const MONTH = /^\d{4}-\d{2}$/;

/** `month=<month>`: the name of a month's object (`.parquet`: a roll-up; `.json`: its record, an index of units or of the run log). */
export function monthName(month: string): string {
  if (!MONTH.test(month)) throw new Error(`not a month (YYYY-MM): ${JSON.stringify(month)}`);
  return `${MONTH_PARTITION}=${month}`;
}

/** The month a `month=YYYY-MM` name holds (a trailing `.json` or `.parquet` ignored); undefined for any other name. */
export function monthOfName(name: string): string | undefined {
  const month = name.startsWith(`${MONTH_PARTITION}=`) ? name.slice(MONTH_PARTITION.length + 1).replace(/\.(?:json|parquet)$/, '') : '';
  return MONTH.test(month) ? month : undefined;
}

/** `_index/<dataset>/month=YYYY-MM.json`: the index of a dataset's units of one month. */
export function unitIndexKey(dataset: string, month: string): string {
  return `${folderOf('unitIndex', dataset)}/${monthName(month)}.json`;
}

/**
 * `_index/<dataset>/pending/month=YYYY-MM/<day>.<projectId>.<writer>`: the mark a writer puts
 * before it changes a unit's manifest (lake/unit-marks.ts `markUnit`). Project ids and writers
 * hold no `.` (shared/validators.ts `ID_PATTERN`; a UUID).
 */
export function pendingKey(dataset: string, day: string, projectId: string, writer: string): string {
  return `${folderOf('unitPending', dataset)}/${monthName(monthOfDay(day))}/${day}.${projectId}.${writer}`;
}

/** The month, day, project and writer of a mark's key under `dataset`'s folder ({@link pendingKey}); undefined for any other key. */
export function parsePendingKey(
  dataset: string,
  key: string,
): { readonly month: string; readonly day: string; readonly projectId: string; readonly writer: string } | undefined {
  const folder = `${folderOf('unitPending', dataset)}/`;
  if (!key.startsWith(folder)) return undefined;
  const [name, file, ...rest] = key.slice(folder.length).split('/');
  const month = monthOfName(name ?? '');
  const [day, projectId, writer, ...more] = (file ?? '').split('.');
  if (month === undefined || rest.length > 0 || more.length > 0 || day === undefined || !DAY.test(day) || monthOfDay(day) !== month) return undefined;
  return projectId && writer ? { month, day, projectId, writer } : undefined;
}

/** `_rollups/<table>/month=YYYY-MM.parquet` (`.json`: its record): a month of a table, every project of the destination whose days are settled. */
export function rollupKey(table: string, month: string, kind: 'parquet' | 'json' = 'parquet'): string {
  return `${folderOf('rollups', table)}/${monthName(month)}.${kind}`;
}

/** `_rollups/<table>/month=YYYY-MM.sums.parquet`: a roll-up's sums per project and page (lake/rollup-sums.ts), beside it. */
export function rollupSumsKey(table: string, month: string): string {
  return `${folderOf('rollupSums', table)}/${monthName(month)}.sums.parquet`;
}

/** `_index/_runs/month=YYYY-MM.json`: the run log's records of one month in one object. */
export function runIndexKey(month: string): string {
  return `${folderOf('runIndex')}/${monthName(month)}.json`;
}

/** The month after `month` (`YYYY-MM`). */
export function nextMonth(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return m === 12 ? `${y + 1}-01` : `${y}-${String(m + 1).padStart(2, '0')}`;
}

/**
 * The stretch of a listing of `folder` (a daily place's folder) that holds its days of the
 * months `first` to `last`: after `<folder>/dt=<first>` (every key of a month's days sorts after
 * that name) and before `<folder>/dt=<the month after last>` (and every key of `last` before it).
 */
export function monthsRange(folder: string, first: string, last: string): KeyRange {
  // Throws on anything but YYYY-MM.
  for (const month of [first, last]) monthName(month);
  const base = folder.replace(/\/+$/, '');
  return { after: `${base}/${DAY_PARTITION}=${first}`, before: `${base}/${DAY_PARTITION}=${nextMonth(last)}` };
}

/** `<folder>/dt=<month>`: what every key of `folder`'s days of `month` starts with (a listing of that month alone). */
export function monthDaysPrefix(folder: string, month: string): string {
  monthName(month);
  return `${folder.replace(/\/+$/, '')}/${DAY_PARTITION}=${month}`;
}

/** A block of months one key prefix holds exactly: a year (`YYYY-`), its January to September (`YYYY-0`), its October to December (`YYYY-1`), or a month (`YYYY-MM`). */
const MONTHS_BLOCK = /^\d{4}-([01]|0[1-9]|1[0-2])?$/;

/**
 * `<folder>/dt=<block>`: what every key of `folder`'s days of a block of months
 * ({@link MONTHS_BLOCK}), and of no other month, starts with — a listing of those months that
 * never runs on into another.
 */
export function monthsBlockPrefix(folder: string, block: string): string {
  if (!MONTHS_BLOCK.test(block)) throw new Error(`not a block of months: ${JSON.stringify(block)}`);
  return `${folder.replace(/\/+$/, '')}/${DAY_PARTITION}=${block}`;
}

/** The month (`YYYY-MM`) of a day. */
export function monthOfDay(day: string): string {
  return day.slice(0, 7);
}

/** `dt=<day>`: the name of a day's folder. */
export function dayFolderName(day: string): string {
  return `${DAY_PARTITION}=${day}`;
}

/** The day a folder's name holds (`dt=2026-01-31` → `2026-01-31`); undefined for any other name. */
export function dayOfFolderName(name: string): string | undefined {
  const day = name.startsWith(`${DAY_PARTITION}=`) ? name.slice(DAY_PARTITION.length + 1) : '';
  return DAY.test(day) ? day : undefined;
}

/** `<folder>/dt=<day>`: a day's folder of `folder` (a trailing `/` on `folder` is ignored). */
export function dayFolder(folder: string, day: string): string {
  return `${folder.replace(/\/+$/, '')}/${dayFolderName(day)}`;
}

/** `<folder>/dt=<day>/<name>`: the key of one file of a day (the only writer of a day key). */
export function dayKey(folder: string, day: string, name: string): string {
  return `${dayFolder(folder, day)}/${name}`;
}

/** The folder, day and name of a day key (`a/b/dt=2026-01-31/p.json` → `a/b`, the day, `p.json`); undefined for any other key. */
export function parseDayKey(key: string): { readonly folder: string; readonly day: string; readonly name: string } | undefined {
  const match = DAY_KEY.exec(key);
  return match ? { folder: match[1] as string, day: match[2] as string, name: match[3] as string } : undefined;
}

/** The first (most outer) day a key holds anywhere in it, and the key up to and with that day's folder; undefined when none. */
export function dayFolderOfKey(key: string): { readonly folder: string; readonly day: string } | undefined {
  const parsed = parseDayKey(key);
  return parsed ? { folder: dayFolder(parsed.folder, parsed.day), day: parsed.day } : undefined;
}

/**
 * The folder, day and project of a unit's key: a table file (`<projectId>.parquet`), a manifest
 * or a record (`<projectId>.json`), or anything under its staging folder (`<projectId>/…`);
 * undefined for any other key.
 */
export function parseUnitKey(key: string): { readonly folder: string; readonly day: string; readonly projectId: string } | undefined {
  const parsed = parseDayKey(key);
  if (parsed === undefined) return undefined;
  const slash = parsed.name.indexOf('/');
  const projectId = slash >= 0 ? parsed.name.slice(0, slash) : /^(.+?)\.(?:json|parquet)$/.exec(parsed.name)?.[1];
  return projectId ? { folder: parsed.folder, day: parsed.day, projectId } : undefined;
}

/** The table folder, day and project of a table file's key (`<table>/dt=<day>/<projectId>.parquet`); undefined for any other key. */
export function parseTableFileKey(key: string): { readonly folder: string; readonly day: string; readonly projectId: string } | undefined {
  const parsed = parseDayKey(key);
  if (parsed === undefined || parsed.folder === '' || parsed.folder.includes('/') || parsed.name.includes('/') || !parsed.name.endsWith('.parquet'))
    return undefined;
  const projectId = parsed.name.slice(0, -'.parquet'.length);
  return projectId === '' ? undefined : { folder: parsed.folder, day: parsed.day, projectId };
}
