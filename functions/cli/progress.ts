/** `export`'s progress on stderr, apart from the command that feeds it run events and budget waits. */
import { afterSpending, budgetTime, unitLabel, type RunEvent } from '../export/index.js';
import type { BudgetLedger, BudgetSnapshot, BudgetWait } from '../shared/pacing/budget.js';
import { formatDuration } from '../shared/durations.js';
import type { CliIo } from './io.js';
import { requestsLeftOf, requestsLeftText } from './render/budget.js';

/** Moves to the start of the line and clears it: a line written over the progress bar. */
export const CLEAR_LINE = '\r\x1b[K';

export interface Progress {
  onEvent(event: RunEvent, requests: number): void;
  onWait(wait: BudgetWait): void;
  close(): void;
}

/**
 * A progress bar with a budget countdown on a terminal; plain lines otherwise (CI logs, pipes).
 * Both say what is left: the requests the units still to do are expected to need (refreshed as
 * units finish) and the time the budget needs for them.
 */
export function createProgress(
  io: Pick<CliIo, 'stderr' | 'now'>,
  budgetText: string,
  ledger: Pick<BudgetLedger, 'snapshot'>,
  initial: BudgetSnapshot,
): Progress {
  const tty = io.stderr.isTTY === true;
  let count = 0;
  let done = 0;
  let requests = 0;
  let label = '';
  let waitUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Requests still needed: the units after the current one, and what is left of it. */
  let queued = 0;
  /** Units to go (the current one included) whose estimate is still a guess. */
  let guesses = 0;
  let current = { estimate: 0, pages: 0 };
  /** The latest ledger snapshot, and this run's requests when it was asked for. */
  let snapshot: BudgetSnapshot = initial;
  let spentAtSnapshot = 0;
  const refreshBudget = () => {
    const spentBefore = requests;
    void ledger.snapshot().then(
      (s) => {
        snapshot = s;
        spentAtSnapshot = spentBefore;
      },
      () => undefined,
    );
  };
  const toGo = () => queued + Math.max(0, current.estimate - current.pages);
  const left = () => {
    const requestsLeft = toGo();
    // What this run spent since the snapshot counts at once: the next unit starts before a
    // fresh snapshot arrives.
    const now = io.now();
    const time = budgetTime(afterSpending(snapshot, requests - spentAtSnapshot, now), requestsLeft, now).ms;
    const budget = time === 0 ? ', no wait for budget' : `, the budget needs ~${formatDuration(time)}`;
    // Said as status says it: how many units of what is left are a guess (a typical day or another project's).
    const guessed = guesses > 0 ? ` (a guess for ${guesses} unit(s))` : '';
    return `~${requestsLeft} request(s) to go${guessed}${budget}`;
  };
  const render = () => {
    const width = 20;
    const filled = count === 0 ? 0 : Math.round((done / count) * width);
    const waiting = waitUntil > io.now() ? ` · waiting ${formatDuration(waitUntil - io.now(), 'clock')} for budget` : '';
    io.stderr.write(
      `\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${count} units · ${requests} requests · ${left()} · ${label}${waiting}\x1b[K`,
    );
  };
  const stopTimer = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return {
    onEvent(event, spent) {
      requests = spent;
      if (event.kind === 'plan') {
        count = event.units.length;
        const planned = requestsLeftOf(event.units);
        queued = planned.requests;
        guesses = event.units.filter((u) => u.guess).length;
        refreshBudget();
        const refreshed = guesses > 0 ? '; refreshed as units finish' : '';
        if (!tty) io.stderr.write(`Plan: ${count} unit(s), ${requestsLeftText(planned)}${refreshed}; budget ${budgetText}\n`);
        return;
      }
      waitUntil = 0;
      stopTimer();
      if (event.kind === 'start') {
        label = unitLabel(event.unit);
        current = { estimate: event.unit.estimate, pages: 0 };
        queued = event.remaining - event.unit.estimate;
        guesses = event.guesses;
        if (!tty) io.stderr.write(`[${event.position + 1}/${event.count}] exporting ${label} (${left()})\n`);
      } else if (event.kind === 'page') {
        label = `${unitLabel(event.unit)} p.${event.pages}`;
        current = { ...current, pages: event.pages };
      } else if (event.result.status === 'partial') {
        // Stopped (or left for lack of budget or time): not done, and what it still needs is left.
        current = { estimate: event.result.estimate, pages: event.result.pages };
        queued = event.remaining;
        guesses = event.guesses + (event.result.guess ? 1 : 0);
        refreshBudget();
      } else {
        done += 1;
        current = { estimate: 0, pages: 0 };
        queued = event.remaining;
        guesses = event.guesses;
        refreshBudget();
      }
      if (tty) render();
    },
    onWait(wait) {
      waitUntil = io.now() + wait.waitMs;
      const why = wait.reason === 'paused' ? 'the API answered 429 (someone else spent the budget)' : `budget ${budgetText} is spent`;
      if (tty) {
        stopTimer();
        timer = setInterval(render, 1000);
        timer.unref();
        render();
      } else {
        io.stderr.write(
          `waiting ${formatDuration(wait.waitMs)} for the request budget (${why}): next request at ${new Date(waitUntil).toISOString().slice(11, 19)}Z\n`,
        );
      }
    },
    close() {
      stopTimer();
      if (tty && count > 0) io.stderr.write('\n');
    },
  };
}
