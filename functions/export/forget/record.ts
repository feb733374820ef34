/**
 * Steps 1 and 4 of `forget` (index.ts): the erasure's record (`_privacy/erasures/`, the HMACs,
 * never an address). It is written `started` before any file is touched, so from then on every
 * export leaves those people's rows out even if this run is cut short; it then says what the
 * erasure covers (`planned`), before anything changes; and `done` at the end. The same erasure
 * with the same key, cut short before, is taken up again: still one record.
 */
import type { Destination } from '../../shared/storage/destination.js';
import { readErasureRecords, writeErasureRecord, type ErasureRecord } from '../erasures.js';

/** The people of a record, as one comparable text. */
const peopleOf = (record: Pick<ErasureRecord, 'hmac' | 'hmacs'>) => [...(record.hmacs ?? [record.hmac])].sort().join(',');

/** The erasure's `started` record: the one a run cut short left for the same people and key, or a new one, written. */
export async function startErasure(destination: Destination, hmacs: readonly string[], keyId: string, now: () => number): Promise<ErasureRecord> {
  const wanted = [...hmacs].sort().join(',');
  const earlier = (await readErasureRecords(destination))
    .filter((r) => r.keyId === keyId && r.status === 'started' && peopleOf(r) === wanted)
    .sort((a, b) => a.at.localeCompare(b.at))
    .at(-1);
  if (earlier !== undefined) return earlier;
  const record: ErasureRecord = {
    version: 1,
    hmac: hmacs[0] as string,
    ...(hmacs.length > 1 ? { hmacs } : {}),
    keyId,
    at: new Date(now()).toISOString(),
    status: 'started',
  };
  await writeErasureRecord(destination, record);
  return record;
}

/**
 * The record with what the erasure covers, written before anything changes; a record that
 * already says (a run that finishes it after a kill) keeps its own.
 */
export async function planErasure(
  destination: Destination,
  record: ErasureRecord,
  planned: NonNullable<ErasureRecord['planned']>,
): Promise<ErasureRecord & { planned: NonNullable<ErasureRecord['planned']> }> {
  if (record.planned !== undefined) return record as ErasureRecord & { planned: NonNullable<ErasureRecord['planned']> };
  const written = { ...record, planned };
  await writeErasureRecord(destination, written);
  return written;
}

/** The record rewritten `done`, with the files and rows of the whole erasure. */
export async function finishErasure(
  destination: Destination,
  record: ErasureRecord & { planned: NonNullable<ErasureRecord['planned']> },
  now: () => number,
): Promise<ErasureRecord> {
  const done: ErasureRecord = { ...record, status: 'done', finishedAt: new Date(now()).toISOString(), files: record.planned.files, rows: record.planned.rows };
  await writeErasureRecord(destination, done);
  return done;
}
