/** `export`'s progress on stderr, apart from the command that feeds it run events and budget waits. */
import { afterSpending, budgetTime, unitLabel, type RunEvent } from '../export/index.js';
import type { BudgetLedger, BudgetSnapshot, BudgetWait } from '../shared/pacing/budget.js';
import { formatDuration } from '../shared/durations.js';
import type { CliIo } from './io.js';
import { requestsLeftOf, requestsLeftText } from './render/budget.js';

/** Moves to the start of the line and clears it: a line written over the progress bar. */
export const CLEAR_LINE = '\r\x1b[K';

/** A terminal's width when it does not say (a pseudo-terminal of size 0, a stream with no `columns`). */
export const DEFAULT_COLUMNS = 80;

/** What writes lines: stderr or stdout (a test's recorder). */
export interface LineStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

/**
 * The one line a progress bar owns on a terminal. A frame is rewritten in place (`\r`, the
 * frame, clear to the end of the line); any other line, on stderr or stdout, clears the frame
 * first (`through`), so nothing is glued to a bar and no bar is left half overwritten. The next
 * frame draws the bar again below that line.
 */
export interface TerminalLine {
  /** Whether stderr is a terminal: frames are drawn only then. */
  readonly tty: boolean;
  /** The terminal's width now (it may be resized while a run goes on). */
  columns(): number;
  /** Draws `frame` (already fitted to `columns()`) over the previous one. */
  frame(frame: string): void;
  /** Ends the frame's line, leaving the last frame on screen. */
  end(): void;
  /** `stream` (stderr or stdout) whose every write first clears a frame on screen. */
  through(stream: LineStream): LineStream;
}

export function createTerminalLine(stderr: LineStream): TerminalLine {
  const tty = stderr.isTTY === true;
  let shown = false;
  const clear = () => {
    if (!shown) return;
    shown = false;
    stderr.write(CLEAR_LINE);
  };
  return {
    tty,
    columns: () => (stderr.columns !== undefined && stderr.columns > 0 ? stderr.columns : DEFAULT_COLUMNS),
    frame(frame) {
      if (!tty) return;
      stderr.write(`\r${frame}\x1b[K`);
      shown = true;
    },
    end() {
      if (!shown) return;
      shown = false;
      stderr.write('\n');
    },
    through(stream) {
      const wrapped: LineStream = {
        write: (text: string) => {
          clear();
          return stream.write(text);
        },
        ...(stream.isTTY === undefined ? {} : { isTTY: stream.isTTY }),
        ...(stream.columns === undefined ? {} : { columns: stream.columns }),
      };
      return wrapped;
    },
  };
}

/** The parts of a frame, each in a long and a short form where it has one. */
export interface FrameParts {
  /** Units done of all (`3/14 units`). */
  readonly done: number;
  readonly count: number;
  /** `45 requests`: this run's so far. */
  readonly requests: string;
  readonly estimate: { readonly long: string; readonly short: string };
  /** The unit being exported (`feedback proj_a 2026-11-20 p.3`). */
  readonly label: string;
  readonly waiting?: { readonly long: string; readonly short: string } | undefined;
}

const SEPARATOR = ' · ';
/** Shortest cut label worth showing (`feedback p…`); below it the label is left out. */
const MIN_LABEL = 10;

/** Characters a terminal cell holds one of: code points (the frame's own words are ASCII and `·`). */
export function widthOf(text: string): number {
  return [...text].length;
}

/** `text` cut to `width` terminal cells, an ellipsis marking the cut. */
export function cut(text: string, width: number): string {
  const chars = [...text];
  if (chars.length <= width) return text;
  return width <= 1 ? chars.slice(0, Math.max(0, width)).join('') : `${chars.slice(0, width - 1).join('')}…`;
}

function barOf(done: number, count: number, width: number): string {
  const filled = count === 0 ? 0 : Math.round((done / count) * width);
  return `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
}

/**
 * The frame for a terminal of `columns`: never wider than `columns - 1` (a line that fills the
 * last column makes some terminals wrap, and `\r` then rewrites the wrapped part only). The unit
 * label is cut first, then the estimate takes its short form, then the label goes, then the
 * bar and the request count shrink; a terminal narrower than all of that gets the frame cut.
 */
export function fitFrame(parts: FrameParts, columns: number): string {
  const max = Math.max(1, columns - 1);
  const units = `${parts.done}/${parts.count} units`;
  const levels = [
    { bar: 20, requests: true, estimate: parts.estimate.long, waiting: parts.waiting?.long },
    { bar: 20, requests: true, estimate: parts.estimate.short, waiting: parts.waiting?.long },
    { bar: 10, requests: false, estimate: parts.estimate.short, waiting: parts.waiting?.short },
    { bar: 0, requests: false, estimate: undefined, waiting: parts.waiting?.short },
  ];
  let last = '';
  for (const level of levels) {
    const head = [
      `${level.bar > 0 ? `${barOf(parts.done, parts.count, level.bar)} ` : ''}${units}`,
      level.requests ? parts.requests : undefined,
      level.estimate,
    ];
    const join = (label: string | undefined) =>
      [...head, label, level.waiting].filter((part): part is string => part !== undefined && part !== '').join(SEPARATOR);
    const bare = join(undefined);
    if (parts.label !== '') {
      const room = max - widthOf(bare) - SEPARATOR.length;
      if (room >= Math.min(MIN_LABEL, widthOf(parts.label))) return join(cut(parts.label, room));
    }
    last = bare;
    // The first level only cuts the label; from the second on, a frame without it will do.
    if ((parts.label === '' || level !== levels[0]) && widthOf(bare) <= max) return bare;
  }
  return cut(last, max);
}

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
  line: TerminalLine = createTerminalLine(io.stderr),
): Progress {
  const tty = line.tty;
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
  /** What is left, long (as the plain lines say it) and short (for a narrow terminal). */
  const left = () => {
    const requestsLeft = toGo();
    // What this run spent since the snapshot counts at once: the next unit starts before a
    // fresh snapshot arrives.
    const now = io.now();
    const time = budgetTime(afterSpending(snapshot, requests - spentAtSnapshot, now), requestsLeft, now).ms;
    const budget = time === 0 ? ', no wait for budget' : `, the budget needs ~${formatDuration(time)}`;
    // Said as status says it: how many units of what is left are a guess (a typical day or another project's).
    const guessed = guesses > 0 ? ` (a guess for ${guesses} unit(s))` : '';
    return {
      long: `~${requestsLeft} request(s) to go${guessed}${budget}`,
      short: `~${requestsLeft} to go${time === 0 ? '' : `, budget ~${formatDuration(time)}`}`,
    };
  };
  const render = () => {
    const waitMs = waitUntil - io.now();
    const clock = waitMs > 0 ? formatDuration(waitMs, 'clock') : '';
    line.frame(
      fitFrame(
        {
          done,
          count,
          requests: `${requests} requests`,
          estimate: left(),
          label,
          waiting: waitMs > 0 ? { long: `waiting ${clock} for budget`, short: `wait ${clock}` } : undefined,
        },
        line.columns(),
      ),
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
        if (!tty) io.stderr.write(`[${event.position + 1}/${event.count}] exporting ${label} (${left().long})\n`);
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
      line.end();
    },
  };
}
