/**
 * CLI commands of the export, registered on the CLI's commander program:
 *
 *   export [--date D | --from D1 --to D2] [--project ID]... [--dataset NAME]... [--out DEST] [--force] [--json]
 *   plan   [--date D | --from D1 --to D2] [--project ID]... [--dataset NAME]... [--out DEST] [--json]
 *   status [--date D | --from D1 --to D2 | --days N] [--project ID]... [--dataset NAME]... [--out DEST] [--json]
 *
 * `export` paces itself through the same budget ledger as every other run of this machine
 * (a countdown while it waits), skips complete units (`--force` re-exports them), resumes
 * partial ones, and on the first Ctrl-C/SIGTERM lets the request in flight arrive, stages it
 * and stops (a second stops at once). `plan` and `status` read the destination and the ledger
 * only: they send no API request and create nothing. Every command first checks its
 * configuration (probe.ts): a mistake is one line, exit 2, before any request.
 */
import type { Command } from 'commander';
import { EXIT_STOPPED } from '../cli/io.js';
import { retryLinePrinter } from '../cli/retry-lines.js';
import { clientOverrides, datasetsOf, probeInput, scopeOptions, type ExportCommandIo, type ScopeFlags } from '../cli/scope.js';
import { budgetTime, type BudgetLedger, type BudgetSnapshot, type BudgetWait } from '../shared/budget.js';
import { loadConfig } from '../shared/config.js';
import { formatDuration } from '../shared/durations.js';
import { ConfigError } from '../shared/errors.js';
import { newLeaseOwner } from '../shared/leases.js';
import { createMemoryStore } from '../shared/shared-store.js';
import { DATASETS } from './datasets.js';
import { FLAG_NAMES, requestedDays, yesterday } from './event.js';
import { runExport, type RunEvent, type RunResult, type UnitResult } from './run.js';
import { createExportDeps, openExportDestination } from './deps.js';
import { probeSetup } from './probe.js';
import { runSettings } from './runtime.js';
import { unitLabel } from './staging.js';

interface ExportFlags extends ScopeFlags {
  readonly force?: boolean;
}

export function registerExportCommands(program: Command, io: ExportCommandIo): void {
  scopeOptions(
    program
      .command('export')
      .description('Export each dataset of each day in [--from, --to) (default: yesterday, UTC) to Parquet, paced by the request budget.'),
  )
    .option('--force', 'export complete units again')
    .action(async (flags: ExportFlags) => io.setExitCode(await runExportCommand(flags, io)));
}

async function runExportCommand(flags: ExportFlags, io: ExportCommandIo): Promise<number> {
  const config = loadConfig(io.env);
  const days = requestedDays(flags, io.now(), FLAG_NAMES) ?? [yesterday(io.now())];
  const datasets = datasetsOf(flags, config);
  const clients = clientOverrides(io, flags.out);
  const destination = openExportDestination(config, clients);
  // Before any request: a destination or state folder that cannot be written must not cost budget.
  const sandboxBudget = config.apiKey === undefined && !config.budgetSet;
  await probeSetup({ ...probeInput(config, io, flags.out, destination, !sandboxBudget), mode: 'write' });
  const target = await io.resolveApiTarget(config);
  try {
    const projects = flags.project.length > 0 ? flags.project : target.defaultProjects;
    if (projects.length === 0) throw new ConfigError('no project to export: pass --project ID or set MINTLIFY_PROJECT_IDS');
    // The embedded sandbox is not the organisation's API: it has no limit, and spending the
    // real ledger on it would only slow the real exports. ANALYTICS_BUDGET still applies if set.
    const sandboxed = target.sandbox !== undefined && !config.budgetSet;
    const deps = createExportDeps(config, {
      ...clients,
      destination,
      apiUrl: target.baseUrl,
      apiKey: target.apiKey,
      ...(sandboxed ? { store: createMemoryStore(), budget: { requests: 1_000_000, windowMs: 3_600_000, text: 'unlimited (embedded sandbox)' } } : {}),
    });
    const spec = deps.ledger.spec;
    const progress = flags.json ? undefined : createProgress(io, spec.text, deps.ledger, await deps.ledger.snapshot());
    const gate = deps.createGate(progress?.onWait);
    const api = deps.createApi(gate, { logger: retryLinePrinter((line) => io.stderr.write(line), { tty: io.stderr.isTTY === true }) });
    const stop = new AbortController();
    const controller = new AbortController();
    let running = true;
    const say = (line: string) => running && io.stderr.write(`${io.stderr.isTTY === true ? '\r\x1b[K' : ''}${line}\n`);
    void io.stopSignal.then(() => {
      say(
        `Stopping: the request in flight finishes (at most ${formatDuration(config.apiTimeoutMs)}) and its page is kept. Ctrl-C again stops at once, but that page is then fetched (and paid) again by the next run.`,
      );
      stop.abort(new Error('stopped by the user'));
    });
    void io.forceStopSignal?.then(() => {
      say('Stopping now: a page on its way is dropped; the next run fetches it again (one more request).');
      controller.abort(new Error('stopped by the user'));
    });
    let result: RunResult;
    try {
      result = await runExport({ kind: 'days', days, projects, datasets, force: flags.force === true }, runSettings(config), {
        api,
        gate,
        destination,
        leases: deps.createLeases(newLeaseOwner()),
        store: deps.store,
        now: io.now,
        signal: controller.signal,
        stop: stop.signal,
        ...(progress ? { onEvent: (event: RunEvent) => progress.onEvent(event, api.stats.requests) } : {}),
      });
    } finally {
      running = false;
      progress?.close();
    }
    if (flags.json) io.stdout.write(`${JSON.stringify(jsonSummary(result, destination.url))}\n`);
    else printSummary(result, destination.url, io);
    if (result.ok) return 0;
    return result.stopped ? EXIT_STOPPED : 1;
  } finally {
    await target.close();
  }
}

function rowsOf(result: Extract<UnitResult, { status: 'complete' }>): number {
  return result.manifest.rows[DATASETS[result.dataset].table.name] ?? 0;
}

function jsonSummary(result: RunResult, destination: string) {
  return {
    ok: result.ok,
    destination,
    completed: result.completed,
    partial: result.partial,
    failed: result.failed,
    skipped: result.skipped,
    pending: result.pending,
    requests: result.requests,
    rateLimited: result.rateLimited,
    budgetWaitMs: result.budgetWaitMs,
    backlogRequests: result.backlogRequests,
    stopped: result.stopped,
    driftUnits: result.driftUnits,
    stops: result.stops,
    failedRequests: result.failedRequests,
    units: result.units.map((u) => {
      const base = { dataset: u.dataset, projectId: u.projectId, date: u.day, reason: u.reason, status: u.status };
      switch (u.status) {
        case 'complete':
          return {
            ...base,
            rows: rowsOf(u),
            pages: u.manifest.pages,
            requests: u.manifest.requests.sent,
            runs: u.manifest.runs,
            ...(u.manifest.truncated ? { truncated: true } : {}),
            ...(u.manifest.drift ? { drift: u.manifest.drift } : {}),
            files: u.manifest.files,
          };
        case 'partial':
          return { ...base, pages: u.pages, why: u.why };
        case 'failed':
          return { ...base, error: u.error };
        case 'skipped':
          return { ...base, why: u.why, estimate: u.estimate };
        default:
          return { ...base, estimate: u.estimate, ...(u.blocked !== undefined ? { blocked: u.blocked } : {}) };
      }
    }),
  };
}

const PARTIAL_WHY: Record<Extract<UnitResult, { status: 'partial' }>['why'], string> = {
  budget: 'the request budget has no room before the deadline',
  deadline: 'out of time',
  stopped: 'stopped',
  lease: 'another run took the unit over',
};

function printSummary(result: RunResult, destination: string, io: ExportCommandIo): void {
  for (const u of result.units) {
    const label = unitLabel(u);
    switch (u.status) {
      case 'complete': {
        const m = u.manifest;
        const runs = m.runs > 1 ? `, finished in ${m.runs} runs` : '';
        const truncated = m.truncated ? ' — TRUNCATED: the API had more rows than one request returns' : '';
        io.stdout.write(`ok       ${label}: ${rowsOf(u)} row(s), ${m.pages} page(s), ${m.requests.sent} request(s)${runs}${truncated}\n`);
        break;
      }
      case 'partial':
        io.stdout.write(`partial  ${label}: ${u.pages} page(s) staged (${PARTIAL_WHY[u.why]}); a re-run resumes it\n`);
        break;
      case 'failed':
        io.stdout.write(`FAILED   ${label}: ${u.error}\n`);
        break;
      case 'skipped':
        io.stdout.write(`skipped  ${label}: ${u.why === 'complete' ? 'another run exported it meanwhile' : 'another run is exporting it'}\n`);
        break;
      case 'pending':
        // Units a stop left untried are summed up once, with the stop, below.
        if (u.blocked === undefined) io.stdout.write(`pending  ${label}: not started (~${u.estimate} request(s))\n`);
        break;
    }
  }
  const parts = [
    `${result.completed} of ${result.units.length} unit(s) exported to ${destination} with ${result.requests} API request(s)`,
    ...(result.rateLimited > 0 ? [`${result.rateLimited} rate-limited (429)`] : []),
    ...(result.budgetWaitMs > 0 ? [`waited ${formatDuration(result.budgetWaitMs)} for budget`] : []),
  ];
  io.stdout.write(`${parts.join('; ')}\n`);
  for (const entry of result.drift) io.stderr.write(`warning: ${entry.message}\n`);
  if (result.units.length === 0) io.stdout.write('Nothing to do: every unit is complete (--force exports them again).\n');
  for (const stop of result.stops) {
    const untried = result.units.filter((u) => u.status === 'pending' && u.blocked === stop).length;
    io.stderr.write(`Stopped early: ${stop}${untried > 0 ? ` (${untried} more unit(s) not tried)` : ''}\n`);
  }
  if (result.failed > 0) {
    const failed = result.units.filter((u) => u.status === 'failed').map((u) => unitLabel(u));
    const named = failed.length > 5 ? `${failed.slice(0, 5).join(', ')} and ${failed.length - 5} more` : failed.join(', ');
    io.stderr.write(`Export incomplete: ${named} failed (see FAILED above); a re-run retries them\n`);
  } else if (!result.ok) {
    io.stderr.write(`Export ${result.stopped ? 'stopped' : 'incomplete'}: re-run the same command to resume (complete units are skipped)\n`);
  }
}

interface Progress {
  onEvent(event: RunEvent, requests: number): void;
  onWait(wait: BudgetWait): void;
  close(): void;
}

/**
 * A progress bar with a budget countdown on a terminal; plain lines otherwise (CI logs, pipes).
 * Both say what is left: the requests the units still to do are expected to need (refreshed as
 * units finish) and the time the budget needs for them.
 */
function createProgress(io: ExportCommandIo, budgetText: string, ledger: Pick<BudgetLedger, 'snapshot'>, initial: BudgetSnapshot): Progress {
  const tty = io.stderr.isTTY === true;
  let count = 0;
  let done = 0;
  let requests = 0;
  let label = '';
  let waitUntil = 0;
  let timer: NodeJS.Timeout | undefined;
  /** Requests still needed: the units after the current one, and what is left of it. */
  let queued = 0;
  let current = { estimate: 0, pages: 0 };
  let snapshot: BudgetSnapshot = initial;
  const refreshBudget = () => {
    void ledger.snapshot().then(
      (s) => (snapshot = s),
      () => undefined,
    );
  };
  const toGo = () => queued + Math.max(0, current.estimate - current.pages);
  const left = () => {
    const requestsLeft = toGo();
    const time = budgetTime(snapshot, requestsLeft, io.now()).ms;
    const budget = time === 0 ? ', no wait for budget' : `, the budget needs ~${formatDuration(time)}`;
    return `~${requestsLeft} request(s) to go${budget}`;
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
        queued = event.units.reduce((sum, u) => sum + u.estimate, 0);
        refreshBudget();
        const guesses = event.units.filter((u) => u.guess).length;
        const guessed = guesses === 0 ? '' : ` (${guesses === count ? 'every' : guesses} estimate a guess: refreshed as units finish)`;
        if (!tty) io.stderr.write(`Plan: ${count} unit(s), about ${queued} request(s)${guessed}; budget ${budgetText}\n`);
        return;
      }
      waitUntil = 0;
      stopTimer();
      if (event.kind === 'start') {
        label = unitLabel(event.unit);
        current = { estimate: event.unit.estimate, pages: 0 };
        queued = event.remaining - event.unit.estimate;
        if (!tty) io.stderr.write(`[${event.position + 1}/${event.count}] exporting ${label} (${left()})\n`);
      } else if (event.kind === 'page') {
        label = `${unitLabel(event.unit)} p.${event.pages}`;
        current = { ...current, pages: event.pages };
      } else {
        done += 1;
        current = { estimate: 0, pages: 0 };
        queued = event.remaining;
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
