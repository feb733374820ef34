/**
 * The progress of `export` (functions/cli/progress.ts) says what is left with the one
 * estimator: its log lines and bar agree with `status` on the time the budget needs, and a
 * stopped run's bar says what is left rather than a full bar.
 */
import { describe, expect, it } from 'vitest';
import type { PlannedUnit, UnitReason } from '../../../functions/export/plan.js';
import type { UnitResult } from '../../../functions/export/run-units.js';
import { createProgress } from '../../../functions/cli/progress.js';
import { parseBudget } from '../../../functions/shared/pacing/budget-spec.js';
import type { BudgetSnapshot } from '../../../functions/shared/pacing/budget.js';
import { HOUR_MS } from '../../../functions/shared/time.js';

const NOW = Date.parse('2026-11-24T00:00:00Z');
const SPEC = parseBudget('30/1h');

const planned = (day: string, estimate: number): PlannedUnit => ({
  dataset: 'visitors',
  projectId: 'proj_a',
  day,
  reason: 'requested' as UnitReason,
  estimate,
  force: false,
});

function recorder(tty: boolean) {
  const lines: string[] = [];
  const stderr = { isTTY: tty, columns: 200, write: (text: string) => lines.push(text) };
  return { lines, io: { stderr, now: () => NOW } };
}

/** A ledger that says the window is spent once `spent` reaches the budget. */
function ledgerAfter(spent: () => number) {
  const snapshotOf = (): BudgetSnapshot => {
    const used = Math.min(SPEC.requests, spent());
    return { spec: SPEC, used, nextStartAt: used >= SPEC.requests ? NOW + HOUR_MS : NOW, pausedUntil: 0, rateLimited: 0, limit: SPEC.requests };
  };
  return { snapshot: async () => snapshotOf(), initial: snapshotOf() };
}

describe('export progress', () => {
  it('a unit started right after the window was spent says the time status says (~2 h for 33 requests), not the stale ~1 h', () => {
    let spent = 0;
    const ledger = ledgerAfter(() => spent);
    const { lines, io } = recorder(false);
    const progress = createProgress(io, SPEC.text, ledger, ledger.initial);
    const [a, b] = [planned('2026-11-20', 30), planned('2026-11-21', 33)];

    progress.onEvent({ kind: 'plan', units: [a, b] }, spent);
    progress.onEvent({ kind: 'start', unit: a, position: 0, count: 2, remaining: 63, guesses: 0 }, spent);
    spent = 30;
    const done = { ...a, status: 'complete', manifest: {} } as unknown as UnitResult;
    progress.onEvent({ kind: 'done', result: done, position: 0, count: 2, remaining: 33, guesses: 0 }, spent);
    // The run starts the next unit at once, before a fresh ledger snapshot could arrive.
    progress.onEvent({ kind: 'start', unit: b, position: 1, count: 2, remaining: 33, guesses: 0 }, spent);

    expect(lines.at(-1)).toBe('[2/2] exporting visitors proj_a 2026-11-21 (~33 request(s) to go, the budget needs ~2 h 00 min)\n');
  });

  it('a stopped unit is not counted done, and the bar says the pages it still needs', () => {
    let spent = 0;
    const ledger = ledgerAfter(() => spent);
    const { lines, io } = recorder(true);
    const progress = createProgress(io, SPEC.text, ledger, ledger.initial);
    const [a, b, c] = [planned('2026-11-20', 10), planned('2026-11-21', 10), planned('2026-11-22', 10)];

    progress.onEvent({ kind: 'plan', units: [a, b, c] }, spent);
    progress.onEvent({ kind: 'start', unit: a, position: 0, count: 3, remaining: 30, guesses: 0 }, spent);
    spent = 4;
    progress.onEvent({ kind: 'page', unit: a, pages: 4 }, spent);
    const stopped = { ...a, status: 'partial', pages: 4, why: 'stopped' } as unknown as UnitResult;
    progress.onEvent({ kind: 'done', result: stopped, position: 0, count: 3, remaining: 20, guesses: 0 }, spent);
    progress.close();

    const bar = lines.filter((line) => line.startsWith('\r[')).at(-1) ?? '';
    expect(bar).toContain('0/3 units');
    expect(bar).toContain('~26 request(s) to go');
    expect(bar).not.toMatch(/\[#{20}\]/);
  });
});
