/**
 * The part of a warehouse a report reads, as files in a local folder: DuckDB then reads them
 * there, and `status`'s own code (`readUnitStates`) reads manifests, checkpoints and failure
 * records through a local destination on the same folder.
 *
 * A local destination is read in place. An `s3://` one is mirrored to a temporary folder with
 * the AWS SDK the export already uses (one `GetObjectCommand` per object, its checksum
 * validated) — only the keys of the days asked for, and of `_staging`
 * only the checkpoints and failure records, never the staged pages — because DuckDB's `httpfs`
 * extension is downloaded at run time, which neither CI nor a locked-down machine allows.
 */
import { paginateListObjectsV2, S3Client } from '@aws-sdk/client-s3';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DATASET_NAMES, type DatasetName } from './catalog.js';
import type { Destination } from '../shared/storage/destination.js';
import { openTarget } from '../shared/storage/destinations.js';
import { DestinationError } from '../shared/errors.js';
import { manifestKey, manifestsOf, STAGING_PREFIX } from './keys.js';
import {
  dayFolder,
  dayOfFolderName,
  LAYOUT,
  monthDaysPrefix,
  monthsBlockPrefix,
  monthOfDay,
  nextMonth,
  parseTableFileKey,
  rollupKey,
  rollupSumsKey,
  unitIndexKey,
} from './lake/layout.js';
import { type IndexMemo, indexedManifests, listingStretches, mirroredRollups, monthsRolledWhole, monthStretches, type RolledUp } from './lake/rollups-read.js';
import { datasetOfTable } from './lake/rollups.js';
import { runsFromIndexes } from './lake/run-index.js';
import { type MonthIndex, type RawManifest, unitIndexOf } from './lake/unit-index.js';
import { indexEntry } from './lake/unit-marks.js';
import { mirrorDestination } from './lake/mirror.js';
import { describeS3, download, type EarlyFetch, fetchEarly, mirrorPath, objectSaver, unsafeKeyProblem } from './lake/download.js';
import { s3Url, type LakeTarget } from './lake/target.js';
import { awsClientConfig } from '../shared/aws-clients.js';

/** A warehouse as local files. */
export interface Lake {
  /** The destination as the user named it (`s3://bucket/prefix`, or the folder as given). */
  readonly url: string;
  /** The local folder laid out like the destination. */
  readonly root: string;
  /** The destination itself, for records read outside the lake's days (follow-up outcomes). */
  readonly records: Destination;
  /**
   * The local folder as a destination: the units' states, the run log and the marks of the
   * lake's days, read where they were mirrored, the manifests in memory (lake/mirror.ts);
   * `records` itself for a local lake.
   */
  readonly mirror: Destination;
  /**
   * Settles once everything is mirrored. With `LakeDeps.streamed`, `openLake` returns once the
   * keys are listed, and the tables (`folderReady`), then the units' states and the `recent`
   * folders arrive while the caller works: a reader of the states awaits this. Rejects with
   * the mirror's failure.
   */
  readonly ready: Promise<void>;
  /**
   * Settles once the table folder `prefix` (`visitors_totals`, …) is mirrored: a reader of a
   * table awaits it before it lists the folder. Resolved at once for a folder read in place, a
   * lake mirrored whole, or a folder not in the scope. Rejects with the mirror's failure.
   */
  folderReady(prefix: string): Promise<void>;
  /**
   * The roll-ups a mirror checked against the bucket's manifests and mirrored (table folder →
   * month → projects): the one listing (lake/files.ts) reads these, and no other roll-up, for
   * the months of the days asked (whole or in part). Absent for a lake read in place: the listing checks its roll-ups itself.
   */
  readonly rolledUp?: RolledUp;
  /** Removes the mirror of an `s3://` destination; nothing for a local one. */
  close(): Promise<void>;
}

/**
 * What a reader (the report, gaps, insights) is handed: the lake, never a root string. It reads
 * the tables as files under `root`, the units' states through `mirror` and the outcome records
 * through `records`, and names the lake `url` in its messages. Whoever opened the lake closes it.
 */
export type LakeFiles = Pick<Lake, 'url' | 'root' | 'records' | 'mirror' | 'folderReady' | 'rolledUp'>;

/**
 * A lake over a local folder laid out like a destination, read in place (nothing to mirror,
 * nothing to remove): `openLake`'s answer for a folder. `url` names it. @default dir
 */
export function localLake(dir: string, url: string = dir): Lake {
  const records = openTarget({ kind: 'local', dir });
  return { url, root: dir, records, mirror: records, ready: Promise.resolve(), folderReady: async () => undefined, close: async () => undefined };
}

/**
 * Which part of the warehouse to mirror: these table folders over the UTC days `[from, to)`,
 * and the units' states (manifests, checkpoints, failure records) and the `recent` folders
 * from `recentFrom` on (a report compares its tables with the period before, but shows the
 * units, runs and marks of its own days only).
 */
export interface LakeScope {
  readonly from: string;
  readonly to: string;
  /** Table folders (`visitors_totals`, …) over `[from, to)`. */
  readonly prefixes: readonly string[];
  /** Some of `prefixes` from an earlier first day (the report's fixes look back 90 days before a job over the gap tables only). */
  readonly reach?: { readonly from: string; readonly prefixes: readonly string[] };
  /** Folders (`export_runs`, anomaly marks) over `[recentFrom, to)` only. @default none */
  readonly recent?: readonly string[];
  /** The first day of the units' states and the `recent` folders. @default from */
  readonly recentFrom?: string;
}

export interface LakeDeps {
  /** For `s3://` destinations. @default a client configured from the environment */
  readonly s3Client?: S3Client;
  /** Objects downloaded at once. @default 16 */
  readonly concurrency?: number;
  /**
   * The destination itself, when the caller opened it first (`openRecords`: the report and
   * `effects` read the outcome records before they know which days to mirror): the lake's
   * `records`. @default opened here
   */
  readonly records?: Destination;
  /** Told one line per bucket key that is not mirrored (a key that could write outside the mirror). */
  readonly onWarning?: (line: string) => void;
  /** Aborted when the user stops the run: no further object is downloaded. */
  readonly signal?: AbortSignal;
  /**
   * Return once the keys are listed, and mirror the tables folder by folder (in the order of
   * `LakeScope.prefixes`: `Lake.folderReady`), then the units' states and the `recent` folders
   * (`Lake.ready`), while the caller loads each table as it arrives. @default everything before returning
   */
  readonly streamed?: boolean;
}

/**
 * The destination of `target` itself, as `openLake` opens it for `Lake.records`: for records read before the lake is opened, handed on to it as
 * `LakeDeps.records`.
 */
export function openRecords(target: LakeTarget, deps: Pick<LakeDeps, 's3Client'> = {}): Destination {
  return target.records(deps.s3Client ? { s3Client: deps.s3Client } : {});
}

/**
 * Opens `target` for `scope`, hands the lake to `read` and closes it however `read` ends: how a
 * reader that has nothing to overlap with the mirror opens a lake.
 */
export async function withLake<T>(target: LakeTarget, scope: LakeScope, deps: LakeDeps, read: (lake: Lake) => Promise<T>): Promise<T> {
  const lake = await openLake(target, scope, deps);
  try {
    return await read(lake);
  } finally {
    await lake.close();
  }
}

/**
 * Opens `target` (parsed once at the door: lake/target.ts) for reading the days of `scope`.
 */
export async function openLake(target: LakeTarget, scope: LakeScope, deps: LakeDeps = {}): Promise<Lake> {
  const parsed = target.place;
  if (parsed.kind === 'local') {
    const lake = localLake(parsed.dir, target.url);
    return deps.records === undefined ? lake : { ...lake, records: deps.records, mirror: deps.records };
  }
  const { bucket, prefix } = parsed;
  const client = deps.s3Client ?? new S3Client(awsClientConfig());
  // One GET per object through the SDK's own command (its retries, its checksum validated):
  // with the roll-ups a report reads about a hundred objects, and a hand-signed GET saved
  // about half a millisecond of CPU each (bench/README.md, "lake").
  const save = objectSaver(client, bucket);
  const root = await mkdtemp(path.join(tmpdir(), 'mintlify-report-'));
  const remove = () => rm(root, { recursive: true, force: true });
  const recent = { from: scope.recentFrom ?? scope.from, to: scope.to };
  type Folders = readonly {
    readonly folder: string;
    readonly days: { readonly from: string; readonly to: string; readonly month?: string; readonly block?: string };
  }[];
  const records = deps.records ?? openTarget(parsed, { s3Client: client });
  /** The keys of `folders` that can be mirrored (each listed over its days), with the store's time of each. */
  const keysOf = async (folders: Folders): Promise<{ key: string; modified: number }[]> => {
    const listed = (await Promise.all(folders.map(({ folder, days }) => listDays(client, bucket, prefix, folder, days)))).flat();
    return listed.filter(({ key }) => {
      if (key.endsWith('/')) return false; // a console's "folder" marker: no content to mirror
      const problem = unsafeKeyProblem(key);
      if (problem === undefined) return true;
      deps.onWarning?.(`skipped s3://${bucket}/${prefix}${key}: ${problem}; a mirrored key must be plain folder names (remove or rename the object)`);
      return false;
    });
  };
  // The folders of the units' states but the manifests, listed while the indexes below are read (neither waits on the other).
  const early = Promise.all([
    keysOf((scope.recent ?? []).map((p) => ({ folder: `${p}/`, days: recent }))),
    keysOf(DATASET_NAMES.map((d) => ({ folder: `${STAGING_PREFIX}/${d}/`, days: recent }))),
  ]);
  early.catch(() => undefined); // seen where awaited below; a lake failing before then does not fail the process
  // The manifests of the period from the indexes of their months (one object a dataset and
  // month, lake/unit-index.ts): the mirror's own destination holds them (lake/mirror.ts), and
  // the indexes of their months are written into its folder.
  // Each index is read once: the roll-ups' checks below use the same (they hold the roll-ups' records).
  const memo: IndexMemo = new Map();
  const indexed = await indexedManifests(records, DATASET_NAMES, recent, memo).catch(() => undefined);
  const listedAt = Date.now();
  // The indexes of the manifests' months held by the mirror too, parsed: its readers of the units' states read them there.
  const mirror = mirrorDestination(
    root,
    new Map((indexed ?? []).map((m) => [manifestKey(m.dataset, m.day, m.projectId), m.manifest])),
    listedAt,
    mirroredIndexes(indexed ?? [], listedAt),
  );
  const reach = scope.reach;
  const daysOf = (p: string) => (reach !== undefined && reach.from < scope.from && reach.prefixes.includes(p) ? { from: reach.from, to: scope.to } : scope);
  /** Stops a mirror still running when the lake is closed early. */
  const closing = new AbortController();
  // One queue of keys: each table folder in turn (a group each), then the units' states and
  // the recent folders (the last group); a group settles once its keys are all written.
  let groups: { readonly prefix: string | undefined; readonly keys: readonly string[] }[];
  let rolledUp: RolledUp;
  let rollupsFetched: EarlyFetch = { keys: new Map(), all: Promise.resolve() };
  try {
    // The units' states' keys: the recent folders, the manifests' when no index could be read, the staging folders.
    const listedStates = early.then(async ([recentKeys, stagingKeys]) => [
      ...recentKeys,
      ...(indexed === undefined ? await keysOf(DATASET_NAMES.map((d) => ({ folder: manifestsOf(d), days: recent }))) : []),
      ...stagingKeys,
    ]);
    // The run log's records from the index of their month where it holds them as listed (lake/run-index.ts), the others one by one:
    // read while the roll-ups are checked and the tables listed.
    const runs = `${LAYOUT.runs.folder}/`;
    const runsIndexed = listedStates.then((listed) =>
      rollupsOff()
        ? new Map<string, string>()
        : runsFromIndexes(
            records,
            listed.filter(({ key }) => key.startsWith(runs)),
          ),
    );
    runsIndexed.catch(() => undefined); // seen where awaited below
    // Months from their roll-ups (checked against the bucket's manifests; a month at the window's edge too), the rest from days.
    const rollupKeys = new Set<string>();
    rolledUp = await mirroredRollups(
      records,
      scope.prefixes.map((p) => ({ prefix: p, days: daysOf(p) })),
      memo,
      rollupKeys,
    );
    // Each roll-up read, with its sums when the bucket has them and the month is wholly inside the folder's days (a question
    // reads a month from its sums only then: lake/rollup-sums.ts, which checks they are of the roll-up's build).
    const withSums = (p: string, month: string) => {
      const sums = rollupSumsKey(p, month);
      const whole = `${month}-01` >= daysOf(p).from && `${nextMonth(month)}-01` <= daysOf(p).to;
      return [rollupKey(p, month), ...(whole && rollupKeys.has(sums) ? [sums] : [])];
    };
    // The roll-ups' bodies fetched into the folder as soon as their checks passed, while the tables' months, the run log's
    // indexes and the units' states are listed: queued after those, they left the JavaScript thread idle (bench/README.md,
    // "The year's run profiled"). The queue below takes each from here.
    rollupsFetched = fetchEarly(
      save,
      bucket,
      prefix,
      [...rolledUp].flatMap(([p, months]) => [...months.keys()].flatMap((month) => withSums(p, month))),
      root,
      deps.concurrency ?? 16,
      deps.signal ? AbortSignal.any([deps.signal, closing.signal]) : closing.signal,
    );
    const tables = await Promise.all(
      scope.prefixes.map(async (p) => {
        const rolled = rolledUp.get(p);
        // Not listed: the months whose roll-up holds every unit with a manifest there (none of their day files is read).
        // The others a month at a time (its own prefix): a listing never runs on into a month it skips.
        // Months without a manifest of the table's dataset (before the lake began) by blocks of months, one listing a block.
        const whole = monthsRolledWhole(p, daysOf(p), rolledUp, memo);
        const dataset = datasetOfTable(p)?.dataset;
        const stretches = listingStretches(
          monthStretches(daysOf(p)).filter((stretch) => !whole.has(stretch.month)),
          (month) => memo.get(`${dataset}/${month}`)?.manifests.size === 0,
        );
        const days = (await keysOf(stretches.map((stretch) => ({ folder: `${p}/`, days: stretch }))))
          .map(({ key }) => key)
          .filter((key) => !coveredBy(rolled, key));
        const months = [...(rolled?.keys() ?? [])].flatMap((month) => withSums(p, month));
        return { prefix: p, keys: [...months, ...days] };
      }),
    );
    const states = await listedStates;
    const fromIndex = await runsIndexed;
    mirror.hold(fromIndex.keys());
    for (const [key, body] of fromIndex) {
      const file = mirrorPath(root, key);
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, body);
    }
    groups = [...tables, { prefix: undefined, keys: states.map(({ key }) => key).filter((key) => !fromIndex.has(key)) }];
    for (const group of groups) mirror.hold(group.keys);
  } catch (error) {
    // Nothing may still write into the folder when it goes.
    closing.abort();
    await rollupsFetched.all;
    await remove();
    throw error;
  }
  const signal = deps.streamed ? (deps.signal ? AbortSignal.any([deps.signal, closing.signal]) : closing.signal) : deps.signal;
  const mirrored = download(save, bucket, prefix, groups, root, deps.concurrency ?? 16, signal, rollupsFetched.keys);
  // Seen by whoever awaits them; a lake closed before then does not fail the process.
  for (const group of mirrored.groups) group.catch(() => undefined);
  mirrored.all.catch(() => undefined);
  if (!deps.streamed) {
    try {
      await mirrored.all;
    } catch (error) {
      closing.abort();
      await rollupsFetched.all;
      await remove();
      throw error;
    }
  }
  const folders = new Map(groups.map((group, i) => [group.prefix, mirrored.groups[i] as Promise<void>]));
  const ready = mirrored.all;
  const url = s3Url(parsed);
  return {
    url,
    root,
    records,
    mirror,
    ready,
    folderReady: (p) => folders.get(p) ?? Promise.resolve(),
    rolledUp,
    async close() {
      // Nothing may still write into the folder when it goes.
      closing.abort();
      await ready.catch(() => undefined);
      await rollupsFetched.all;
      await remove();
    },
  };
}

/**
 * The index of each month of the manifests read from the indexes of units, by key, for the
 * mirror to hold in memory (lake/mirror.ts), as fresh as the manifests it lists (`listedAt`): a
 * reader of the mirror (`readUnitStates`) reads one object a dataset and month, neither written
 * into the folder nor parsed again.
 */
function mirroredIndexes(
  indexed: readonly { readonly dataset: DatasetName; readonly day: string; readonly projectId: string; readonly manifest: RawManifest }[],
  listedAt: number,
): Map<string, MonthIndex> {
  const byMonth = new Map<string, Map<string, RawManifest>>();
  for (const { dataset, day, projectId, manifest } of indexed) {
    const month = `${dataset}/${monthOfDay(day)}`;
    byMonth.set(month, (byMonth.get(month) ?? new Map<string, RawManifest>()).set(indexEntry(day, projectId), manifest));
  }
  const out = new Map<string, MonthIndex>();
  for (const [month, manifests] of byMonth) {
    const [dataset, name] = month.split('/') as [DatasetName, string];
    out.set(unitIndexKey(dataset, name), unitIndexOf(dataset, name, manifests, listedAt));
  }
  return out;
}

/**
 * Keys (relative to the destination's prefix) under `folder`'s `dt=` partitions of
 * `[from, to)`: the listing starts at the first day and stops past the last, so a lake of
 * years costs a report of a month a few list requests.
 */
async function listDays(
  client: S3Client,
  bucket: string,
  prefix: string,
  folder: string,
  scope: { readonly from: string; readonly to: string; readonly month?: string; readonly block?: string },
): Promise<{ key: string; modified: number }[]> {
  const base = `${prefix}${folder}`;
  const within =
    scope.block !== undefined
      ? `${prefix}${monthsBlockPrefix(folder, scope.block)}`
      : scope.month === undefined
        ? base
        : `${prefix}${monthDaysPrefix(folder, scope.month)}`;
  const staging = folder.startsWith(`${STAGING_PREFIX}/`);
  const keys: { key: string; modified: number }[] = [];
  try {
    for await (const page of paginateListObjectsV2({ client }, { Bucket: bucket, Prefix: within, StartAfter: dayFolder(base, scope.from) })) {
      for (const object of page.Contents ?? []) {
        const key = object.Key;
        if (key === undefined) continue;
        const inFolder = key.slice(base.length).split('/');
        const day = inFolder.length > 1 ? dayOfFolderName(inFolder[0] as string) : undefined;
        if (day === undefined) continue;
        if (day >= scope.to) return keys;
        if (day < scope.from) continue;
        if (staging && !/\/(checkpoint|failure)\.json$/.test(key)) continue;
        keys.push({ key: key.slice(prefix.length), modified: object.LastModified?.getTime() ?? 0 });
      }
    }
  } catch (error) {
    throw new DestinationError(`cannot list s3://${bucket}/${base}: ${describeS3(error)}; check the bucket name, the region and s3:ListBucket permission`, {
      cause: error,
    });
  }
  return keys;
}

/** Whether the roll-ups are turned off (`MINTLIFY_ROLLUPS=off`: every object read on its own, to compare). */
function rollupsOff(): boolean {
  return process.env['MINTLIFY_ROLLUPS'] === 'off';
}

/** Whether a table file's key is a day of a month read from its roll-up. */
function coveredBy(rolled: ReadonlyMap<string, ReadonlyMap<string, readonly string[]>> | undefined, key: string): boolean {
  const file = rolled === undefined ? undefined : parseTableFileKey(key);
  return file !== undefined && rolled?.get(monthOfDay(file.day))?.get(file.projectId)?.includes(file.day) === true;
}
