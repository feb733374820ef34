/**
 * A lake's destination, parsed once where it enters — a CLI command (`--out` or
 * `EXPORT_DESTINATION`), a Lambda handler, the organisations' dispatch — and handed below as
 * this value, never as a string: the readers (`openLake`, `openRecords`, the report, gaps,
 * effects, insights) take a {@link LakeTarget}. An organisation's lake is
 * `target.organisation(id)` (`<destination>/orgs/<id>/`, lake/layout.ts), with no string put
 * together and parsed again.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import path from 'node:path';
import type { Destination } from '../../shared/storage/destination.js';
import { normalisePrefix, parseDestinationTarget, type DestinationTarget } from '../../shared/storage/destination-target.js';
import { openTarget } from '../../shared/storage/destinations.js';
import { ConfigError } from '../../shared/errors.js';
import { folderOf } from './layout.js';

/** Where a destination came from, named in every message about it. */
export type TargetSource = '--out' | 'EXPORT_DESTINATION';

/** A destination, parsed: where the lake is, and how it was named. */
export interface LakeTarget {
  /** As the user named it (the folder as given, or `s3://bucket/prefix`); an organisation's adds `/orgs/<id>`. */
  readonly url: string;
  /** The destination parsed, a local folder resolved to an absolute path. */
  readonly place: DestinationTarget;
  /** The lake of organisation `id`: `<destination>/orgs/<id>/`. @throws ConfigError for an id a key cannot hold */
  organisation(id: string): LakeTarget;
  /** The destination itself (records, manifests): a local folder in place, or the bucket and prefix. */
  records(deps?: { readonly s3Client?: S3Client }): Destination;
}

/**
 * Parses `text` (`s3://bucket/prefix`, a folder or a `file://` URL) once; a relative folder
 * starts at `cwd`.
 * @throws ConfigError naming `source` for an empty or mistyped destination (destination-target.ts).
 */
export function parseLakeTarget(text: string, source: TargetSource, cwd: string = process.cwd()): LakeTarget {
  const parsed = parseDestinationTarget(text.trim(), source);
  return lakeTarget(parsed.kind === 'local' ? { kind: 'local', dir: path.resolve(cwd, parsed.dir) } : parsed, text.trim());
}

/** The target of a destination already parsed (a folder given absolute), named `url`. */
export function lakeTarget(place: DestinationTarget, url: string): LakeTarget {
  return {
    url,
    place,
    organisation(id) {
      if (id === '' || id === '.' || id === '..') throw new ConfigError(`organisation id ${JSON.stringify(id)} cannot name a folder of ${url}`);
      let folder: string;
      try {
        folder = folderOf('organisation', id);
      } catch {
        throw new ConfigError(`organisation id ${JSON.stringify(id)} cannot name a folder of ${url}: it may not hold a slash`);
      }
      const inside =
        place.kind === 'local'
          ? { kind: 'local' as const, dir: path.join(place.dir, ...folder.split('/')) }
          : { ...place, prefix: normalisePrefix(`${place.prefix}${folder}`) };
      return lakeTarget(inside, `${url.replace(/\/+$/, '')}/${folder}`);
    },
    records(deps = {}) {
      return openTarget(place, deps.s3Client ? { s3Client: deps.s3Client } : {});
    },
  };
}

/** `s3://bucket/prefix` (no trailing slash) of an S3 place: how a lake of a bucket names itself. */
export function s3Url(place: { readonly bucket: string; readonly prefix: string }): string {
  return `s3://${place.bucket}${place.prefix === '' ? '' : `/${place.prefix.slice(0, -1)}`}`;
}
