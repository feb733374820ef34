/**
 * The bucket map of docs/design.md §2.3, generated from the one declaration of the bucket's
 * layout (functions/warehouse/lake/layout.ts `LAYOUT`), so the docs name every folder the code
 * writes and no other. `npm run docs` writes it between the markers; a test fails when the file
 * holds another text.
 */
import { dayKey, LAYOUT, type Place } from '../functions/warehouse/lake/layout.js';
import { blockMarkers, withBlock } from './generated-block.js';

export const BUCKET_MAP_MARKERS = blockMarkers('bucket-map', 'functions/warehouse/lake/layout.ts');

/** One line per place: its key pattern under `<dest>/`, then what it holds. */
export function bucketMap(): string {
  const places: readonly Place[] = Object.values(LAYOUT);
  const keys = places.map((place) => `<dest>/${place.daily ? dayKey(place.folder, 'YYYY-MM-DD', place.file) : `${place.folder}/${place.file}`}`);
  const width = Math.max(...keys.map((key) => key.length)) + 2;
  return ['```', ...places.map((place, i) => `${(keys[i] as string).padEnd(width)}${place.what}`), '```'].join('\n');
}

/** `doc` with its bucket map regenerated. */
export function withBucketMap(doc: string): string {
  return withBlock(doc, BUCKET_MAP_MARKERS, bucketMap());
}
