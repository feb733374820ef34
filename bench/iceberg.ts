/**
 * Iceberg on Athena's engine (issue 54): a one-year backfill of every dataset (the ten dataset
 * tables, 365 days each committed in one run) is merged in at most 40 statements — 4 batches of
 * at most 100 days per table — and a day of exports costs what the statements' 10 MB minimum
 * says at Athena's list price (bench/README.md shows the arithmetic). The Athena here is a
 * recording client in process: it counts statements and answers each SUCCEEDED, scanning nothing
 * (every statement is billed its 10 MB minimum; a day's files of a documentation site are far
 * below it).
 */
import type { AthenaSend } from '../functions/export/iceberg/athena.js';
import { ICEBERG_SOURCE_TABLES } from '../functions/export/iceberg/layout.js';
import { createIcebergSync } from '../functions/export/iceberg/sync.js';
import { addDays } from '../functions/shared/dates.js';
import { createMemoryStore } from '../functions/shared/storage/shared-store.js';
import { DATASET_NAMES } from '../functions/warehouse/catalog.js';
import { info, judged, progress, type BenchResult } from './lib/figures.js';

const GOAL_STATEMENTS = 40;
/** Athena's list price (us-east-1): $5 per TB scanned, each query billed at least 10 MB. */
const DOLLARS_PER_TB = 5;
const MINIMUM_MB = 10;

/** A client that starts, finishes and counts every statement. */
function recordingAthena(): { athena: AthenaSend; statements: string[] } {
  const statements: string[] = [];
  const athena = {
    send: async (command: { constructor: { name: string }; input: { QueryString?: string } }) => {
      const name = command.constructor.name;
      if (name === 'StartQueryExecutionCommand') {
        statements.push(command.input.QueryString ?? '');
        return { QueryExecutionId: `q-${statements.length}` };
      }
      if (name === 'GetQueryExecutionCommand') return { QueryExecution: { Status: { State: 'SUCCEEDED' }, Statistics: { DataScannedInBytes: 0 } } };
      return { UpdateCount: 0 };
    },
  } as unknown as AthenaSend;
  return { athena, statements };
}

async function statementsFor(days: readonly string[], maintenance: boolean): Promise<string[]> {
  const { athena, statements } = recordingAthena();
  const sync = createIcebergSync({ athena, workgroup: 'bench', database: 'bench', store: createMemoryStore(), now: Date.now, sleep: async () => undefined });
  for (const dataset of DATASET_NAMES) for (const day of days) sync.committed({ dataset, day });
  await sync.flush({ maintenance });
  return statements;
}

export async function benchIceberg(): Promise<BenchResult> {
  progress('iceberg: a one-year backfill of the ten tables');
  const year = Array.from({ length: 365 }, (_, i) => addDays('2025-01-01', i));
  const backfill = await statementsFor(year, false);
  const day = await statementsFor([year[364] as string], false);
  const upkeep = (await statementsFor([], true)).length;
  // A day of exports: its MERGEs, and a seventh of the weekly OPTIMIZE and VACUUM, each billed 10 MB at least.
  const mbPerDay = (day.length + upkeep / 7) * MINIMUM_MB;
  const dollarsPerDay = (mbPerDay / 1_000_000) * DOLLARS_PER_TB;
  return {
    figures: {
      'iceberg: statements for a one-year backfill of the ten tables': judged(backfill.length, 'statements', '<=', GOAL_STATEMENTS),
      'iceberg: statements for a day of exports': info(day.length, 'statements', `${ICEBERG_SOURCE_TABLES.length} tables, one MERGE each`),
      'iceberg: weekly upkeep statements': info(upkeep, 'statements', 'OPTIMIZE and VACUUM per table'),
      'iceberg: Athena cost of a day of exports at list price': info(
        dollarsPerDay,
        '$',
        `${mbPerDay.toFixed(1)} MB billed at $5/TB, 10 MB minimum a statement`,
      ),
    },
  };
}
