/**
 * `consume` on a terminal: one short line per event — the time, the job and request it is
 * about, what happened and its details — instead of JSON log records. With `--json`, or when
 * stdout is not a terminal (a file, a pipe, a log collector), the JSON records stay.
 */
import { scrubText } from '../../shared/errors.js';
import type { FollowUpLogger } from '../../follow-up/types.js';

/** Keys every record of a request carries that a person does not need on each line. */
const QUIET_KEYS = new Set(['promptLength', 'promptSha256', 'projectId']);

export function humanLogger(write: (text: string) => unknown, now: () => number = Date.now): FollowUpLogger {
  const line =
    (level: 'info' | 'warn' | 'error') =>
    (message: string, ...extra: Record<string, unknown>[]): void => {
      const fields: Record<string, unknown> = Object.assign({}, ...extra);
      const { correlationId, jobId, ...rest } = fields;
      const about = [jobId === undefined ? undefined : `job ${String(jobId)}`, correlationId === undefined ? undefined : `request ${String(correlationId)}`]
        .filter((part) => part !== undefined)
        .join(', ');
      const details = Object.entries(rest)
        .filter(([key, value]) => !QUIET_KEYS.has(key) && value !== undefined && value !== null)
        .map(([key, value]) => `${key} ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
        .join(', ');
      const time = new Date(now()).toISOString().slice(11, 19);
      const tag = level === 'info' ? '' : `${level === 'warn' ? 'warning' : 'ERROR'}: `;
      write(`${scrubText(`${time} ${tag}${about ? `${about}: ` : ''}${message}${details ? ` (${details})` : ''}`)}\n`);
    };
  return { debug: () => undefined, info: line('info'), warn: line('warn'), error: line('error') };
}
