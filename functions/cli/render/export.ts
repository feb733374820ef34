/**
 * What `export` prints when it is done: a line per unit on stdout, then the totals; warnings,
 * stops and what to do next on stderr. `--json`: one JSON object instead of the lines.
 */
import { unitLabel, unitRows, type RunResult, type UnitResult } from '../../export/index.js';
import { formatDuration } from '../../shared/durations.js';
import type { CliIo } from '../io.js';

export function exportJson(result: RunResult, destination: string) {
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
    backlogGuesses: result.backlogGuesses,
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
            rows: unitRows(u.manifest),
            pages: u.manifest.pages,
            requests: u.manifest.requests.sent,
            runs: u.manifest.runs,
            ...(u.manifest.truncated ? { truncated: true } : {}),
            ...(u.manifest.drift ? { drift: u.manifest.drift } : {}),
            ...(u.manifest.provisionalUntil !== undefined ? { provisionalUntil: u.manifest.provisionalUntil } : {}),
            files: u.manifest.files,
          };
        case 'partial':
          return { ...base, pages: u.pages, why: u.why };
        case 'failed':
          return { ...base, error: u.error };
        case 'skipped':
          return { ...base, why: u.why, estimate: u.estimate };
        default:
          return { ...base, estimate: u.estimate, ...(u.guess ? { guess: true } : {}), ...(u.blocked !== undefined ? { blocked: u.blocked } : {}) };
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

export function printExport(result: RunResult, destination: string, io: Pick<CliIo, 'stdout' | 'stderr'>): void {
  for (const u of result.units) {
    const label = unitLabel(u);
    switch (u.status) {
      case 'complete': {
        const m = u.manifest;
        const runs = m.runs > 1 ? `, finished in ${m.runs} runs` : '';
        // One mark per unit; what it means is said once, below.
        const truncated = m.truncated ? ' *' : '';
        const provisional =
          m.provisionalUntil === undefined
            ? ''
            : ` — provisional: the day is due at ${m.provisionalUntil.slice(0, 16).replace('T', ' ')}Z (EXPORT_SETTLE_HOURS; late events may still arrive), the first export after that exports it again`;
        io.stdout.write(
          `ok       ${label}: ${unitRows(u.manifest)} row(s), ${m.pages} page(s), ${m.requests.sent} request(s)${runs}${truncated}${provisional}\n`,
        );
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
        if (u.blocked === undefined) io.stdout.write(`pending  ${label}: not started (~${u.estimate} request(s)${u.guess ? ', a guess' : ''})\n`);
        break;
    }
  }
  const expired = result.expired ?? 0;
  const parts = [
    `${result.completed} of ${result.units.length} unit(s) exported to ${destination} with ${result.requests} API request(s)`,
    ...(result.rateLimited > 0 ? [`${result.rateLimited} rate-limited (429)`] : []),
    ...(result.budgetWaitMs > 0 ? [`waited ${formatDuration(result.budgetWaitMs)} for budget`] : []),
    ...(expired > 0 ? [`${expired} unit(s) of the days asked for expired (retention: PERSONAL_DATA_RETENTION_DAYS), not exported again`] : []),
  ];
  io.stdout.write(`${parts.join('; ')}\n`);
  const truncated = result.units.filter((u) => u.status === 'complete' && u.manifest.truncated).length;
  if (truncated > 0) {
    io.stdout.write(
      `* ${truncated} feedback_by_page unit(s) hit the API's cap of 100 pages a day: the table keeps the 100 pages it returned (feedback_by_page is a summary); every feedback item is in the feedback dataset\n`,
    );
  }
  for (const entry of result.drift) io.stderr.write(`warning: ${entry.message}\n`);
  if (result.retention !== undefined) io.stdout.write(`${result.retention}\n`);
  if (result.units.length === 0) {
    // Expired units are not complete: retention removed them and no run exports them again.
    io.stdout.write(
      expired > 0
        ? `Nothing to do: every unit is complete or expired — ${expired} expired (retention), which no run exports again; --force exports the complete ones again.\n`
        : 'Nothing to do: every unit is complete (--force exports them again).\n',
    );
  }
  for (const stop of result.stops) {
    const untried = result.units.filter((u) => u.status === 'pending' && u.blocked === stop).length;
    io.stderr.write(`Stopped early: ${stop}${untried > 0 ? ` (${untried} more unit(s) not tried)` : ''}\n`);
  }
  // Units of a project the key cannot see fail again on a re-run: only a corrected id helps.
  const failed = result.units.filter((u) => u.status === 'failed' && !result.unknownProjects.includes(u.projectId)).map((u) => unitLabel(u));
  if (failed.length > 0 && result.runStop === undefined) {
    const named = failed.length > 5 ? `${failed.slice(0, 5).join(', ')} and ${failed.length - 5} more` : failed.join(', ');
    io.stderr.write(`Export incomplete: ${named} failed (see FAILED above); a re-run retries them\n`);
  } else if (result.failed > 0) {
    io.stderr.write('Export incomplete: fix what stopped it (said above), then re-run the same command (complete units are skipped)\n');
  } else if (!result.ok) {
    io.stderr.write(`Export ${result.stopped ? 'stopped' : 'incomplete'}: re-run the same command to resume (complete units are skipped)\n`);
  }
}
