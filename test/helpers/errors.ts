/**
 * Role: what code under test threw or rejected with. Each helper fails the test when there is
 * no error, or one of another kind, and otherwise hands the error over for the assertions.
 */
import { expect } from 'vitest';
import { openTableWriter } from '../../functions/export/parquet.js';
import type { Destination } from '../../functions/shared/storage/destination.js';
import { ConfigError, MalformedResponseError } from '../../functions/shared/errors.js';
import type { TableDef } from '../../functions/warehouse/table-def.js';

/** The ConfigError `fn` throws; fails the test when it throws something else or nothing. */
export function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

/** The message of the `MalformedResponseError` that `fn` throws (fails the test otherwise). */
export function malformedMessage(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(MalformedResponseError);
    return (error as Error).message;
  }
  throw new Error('expected a MalformedResponseError');
}

/** The Error `promise` rejects with; fails the test when it resolves or rejects with something that is not an Error. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(Error);
  return error as Error;
}

/** What a `table` writer throws when `row` is appended (undefined when it takes it); the file is aborted either way. */
export async function appendError(table: TableDef, destination: Destination, row: Record<string, unknown>): Promise<unknown> {
  const writer = await openTableWriter(table, await destination.openWrite('bad.parquet'));
  try {
    await writer.append(row);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    await writer.abort();
  }
}
