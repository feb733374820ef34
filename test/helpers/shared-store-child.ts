/**
 * Role: the other process of the local shared-store tests: `node --import tsx shared-store-child.ts
 * <mode> <dir> ...`. It prints `ready`, waits for `go` on stdin (so both processes start
 * contending at once, after their slow start-up), does its work and prints one JSON line.
 *
 * - `ledger <dir> <budget> <count>`: takes `count` starts through a budget gate; prints
 *   `{ starts }`, the instants the ledger recorded for the starts it admitted.
 * - `counter <dir> <count>`: increments the document `counter` `count` times.
 * - `leases <dir> <key>...`: tries to acquire every key at once; prints `{ won }`.
 */
import { createBudgetGate, createBudgetLedger } from '../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../functions/shared/pacing/budget-spec.js';
import { createLeases, newLeaseOwner } from '../../functions/shared/pacing/leases.js';
import { createLocalStore } from '../../functions/shared/storage/shared-store-local.js';

const [mode, dir, ...rest] = process.argv.slice(2);
if (!mode || !dir) throw new Error('usage: shared-store-child.ts <ledger|counter|leases> <dir> ...');
const store = createLocalStore(dir);

async function runLedger(budget: string, count: number) {
  // The ledger reads the clock inside its atomic update; the last reading before an admitted
  // take resolves is the instant recorded for that start.
  let stamped = 0;
  const ledger = createBudgetLedger(store, parseBudget(budget), { now: () => (stamped = Date.now()) });
  const gate = createBudgetGate(ledger, { now: Date.now, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) });
  const starts: number[] = [];
  for (let i = 0; i < count; i++) {
    await gate.take();
    starts.push(stamped);
  }
  return { starts };
}

async function runCounter(count: number) {
  for (let i = 0; i < count; i++) {
    await store.update<{ n: number }, void>('counter', (current) => ({ value: { n: (current?.n ?? 0) + 1 }, result: undefined }));
  }
  return { done: count };
}

async function runLeases(keys: readonly string[]) {
  // Contention between live holders only: a child that has printed its result and exited
  // would otherwise free its leases to the other (a dead local holder's leases are free at
  // once — leases-dead-owner.test.ts covers that).
  const leases = createLeases(store, { owner: newLeaseOwner(), isHolderGone: () => false });
  const acquired = await Promise.all(keys.map((key) => leases.tryAcquire(key)));
  return { won: acquired.flatMap((lease) => (lease ? [lease.key] : [])) };
}

process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
process.stdin.pause();
const output =
  mode === 'ledger' ? await runLedger(rest[0] ?? '', Number(rest[1])) : mode === 'counter' ? await runCounter(Number(rest[0])) : await runLeases(rest);
process.stdout.write(`${JSON.stringify(output)}\n`);
