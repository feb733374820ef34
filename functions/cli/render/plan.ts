/** `plan` on stdout: one line per unit to do, or one JSON object. */
import type { PlannedUnit } from '../../export/index.js';
import type { BudgetSnapshot } from '../../shared/pacing/budget.js';
import { budgetJson, budgetLine, budgetNeeds, requestsLeftOf, requestsLeftText } from './budget.js';

export interface PlanView {
  /** The destination's URL. */
  readonly destination: string;
  readonly units: readonly PlannedUnit[];
  /** Requests the units are expected to need. */
  readonly requests: number;
  /** Time the budget needs for them, ms. */
  readonly budgetMs: number;
  /** The run would use the embedded sandbox, which is not paced: no wait. */
  readonly unpaced?: boolean;
  readonly snapshot: BudgetSnapshot;
  readonly now: number;
  /** The latest due day, when the plan is the hourly run's (no day asked for). */
  readonly scheduledLastDay?: string;
}

export function planJson(view: PlanView) {
  return {
    destination: view.destination,
    units: view.units.map((u) => ({
      dataset: u.dataset,
      projectId: u.projectId,
      date: u.day,
      reason: u.reason,
      estimate: u.estimate,
      ...(u.estimateFrom ? { estimateFrom: { projectId: u.estimateFrom.projectId, date: u.estimateFrom.day } } : {}),
      ...(u.guess ? { guess: true } : {}),
      ...(u.typical ? { typical: true } : {}),
      ...(u.floor ? { floor: true } : {}),
    })),
    requests: view.requests,
    budget: budgetJson(view.snapshot, view.now),
    budgetMs: view.budgetMs,
  };
}

export function printPlan(view: PlanView, out: { write(text: string): unknown }): void {
  const { units } = view;
  const left = requestsLeftOf(units);
  out.write(`Plan for ${view.destination}: ${units.length} unit(s), ${requestsLeftText(left)}\n`);
  for (const u of units) {
    const guess = !u.guess
      ? ''
      : u.estimateFrom
        ? ` (a guess: from ${u.estimateFrom.projectId} ${u.estimateFrom.day})`
        : " (a guess: the dataset's typical day, nothing of it exported yet)";
    const floor = u.floor ? ' (at least: its staged pages already match its known day)' : '';
    out.write(
      `  ${u.reason.padEnd(9)} ${u.day}  ${u.projectId.padEnd(14)} ${u.dataset.padEnd(16)} ${u.floor ? '≥' : '~'}${u.estimate} request(s)${guess}${floor}\n`,
    );
  }
  const guesses = units.filter((u) => u.guess).length;
  if (guesses > 0) {
    out.write(
      `${guesses} estimate(s) are guesses (no day of that dataset and project exported yet): export one day of each first for a firm plan; a run refreshes its estimates as units finish.\n`,
    );
  }
  out.write(`${budgetLine(view.snapshot, view.now)}\n`);
  if (left.requests > 0) {
    const scheduled = view.scheduledLastDay === undefined ? '' : ` (the hourly run does them; ${view.scheduledLastDay} is the latest due day)`;
    out.write(`The budget needs ${budgetNeeds(view.budgetMs, view.unpaced, left)} for these requests${scheduled}.\n`);
  }
}
