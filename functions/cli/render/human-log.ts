/**
 * `consume` on a terminal: one short line per event — the time, the project, job and request it
 * is about, what happened and its details — instead of JSON log records; one line per message
 * with its status and pull-request link; and the summary on stop, every outcome by kind. With
 * `--json`, or when stdout is not a terminal (a file, a pipe, a log collector), the JSON records
 * stay.
 */
import { scrubText } from '../../shared/errors.js';
import { formatDuration } from '../../shared/durations.js';
import type { FollowUpLogger } from '../../follow-up/types.js';
import type { ConsumerStats, MessageReport, OutcomeKind } from '../consumer.js';

/** Keys every record of a request carries that a person does not need on each line. */
const QUIET_KEYS = new Set(['promptLength', 'promptSha256']);

export function humanLogger(write: (text: string) => unknown, now: () => number = Date.now): FollowUpLogger {
  const line =
    (level: 'info' | 'warn' | 'error') =>
    (message: string, ...extra: Record<string, unknown>[]): void => {
      const fields: Record<string, unknown> = Object.assign({}, ...extra);
      const { correlationId, jobId, projectId, ...rest } = fields;
      const about = [
        projectId === undefined ? undefined : `project ${String(projectId)}`,
        jobId === undefined ? undefined : `job ${String(jobId)}`,
        correlationId === undefined ? undefined : `request ${String(correlationId)}`,
      ]
        .filter((part) => part !== undefined)
        .join(', ');
      const details = Object.entries(rest)
        .filter(([key, value]) => !QUIET_KEYS.has(key) && value !== undefined && value !== null)
        .map(([key, value]) => `${key} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
        .join(', ');
      const tag = level === 'info' ? '' : `${level === 'warn' ? 'warning' : 'ERROR'}: `;
      write(`${scrubText(`${clock(now)} ${tag}${about ? `${about}: ` : ''}${message}${details ? ` (${details})` : ''}`)}\n`);
    };
  return { debug: () => undefined, info: line('info'), warn: line('warn'), error: line('error') };
}

/** Outcomes that put the message on the dead-letter queue. */
const DEAD_LETTERED: ReadonlySet<OutcomeKind> = new Set(['rejected', 'uncertain']);

/** What became of one message: `10:42:07 project proj_a, job job_1, request r1: completed https://…/pull/7`. */
export function messageLine(report: MessageReport, now: () => number = Date.now): string {
  const job = report.jobId ? `job ${report.jobId}` : report.kind === 'create' ? 'a new job' : `message ${report.messageId}`;
  const about = [`project ${report.projectId ?? '(none)'}`, job, ...(report.requestId ? [`request ${report.requestId}`] : [])].join(', ');
  const what =
    report.status === 'deferred'
      ? `deferred${report.delayMs === undefined ? '' : ` ${formatDuration(report.delayMs)}`}: ${report.reason ?? ''}`
      : report.status === 'error'
        ? `not processed (${report.reason ?? 'error'}); back on the queue after its visibility timeout`
        : `${report.status}${DEAD_LETTERED.has(report.status) ? ', dead-lettered' : ''}${report.prLink ? ` ${report.prLink}` : ''}`;
  return `${scrubText(`${clock(now)} ${about}: ${what}`)}\n`;
}

/** The order and the words of the summary's counts. */
const KINDS: readonly [OutcomeKind, string][] = [
  ['completed', 'completed'],
  ['archived', 'archived'],
  ['failed', 'failed'],
  ['timed_out', 'timed out'],
  ['uncertain', 'uncertain (dead-lettered)'],
  ['rejected', 'rejected (dead-lettered)'],
  ['duplicate', 'duplicate (done before, dropped)'],
  ['deferred', 'deferred (back on the queue)'],
  ['error', 'not processed (back after the visibility timeout)'],
];

/** `stopped: 4 received — 1 completed, 1 failed, 2 rejected (dead-lettered)`: every kind that happened. */
export function consumeSummary(stats: ConsumerStats): string {
  const counts = KINDS.filter(([kind]) => (stats.outcomes[kind] ?? 0) > 0).map(([kind, words]) => `${stats.outcomes[kind]} ${words}`);
  return `stopped: ${stats.received} received${counts.length > 0 ? ` — ${counts.join(', ')}` : ''}\n`;
}

function clock(now: () => number): string {
  return new Date(now()).toISOString().slice(11, 19);
}
