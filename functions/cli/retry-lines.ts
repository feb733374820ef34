/**
 * What the CLI prints of the API client's log records: each retry, a cut 429 wait, invalid UTF-8
 * kept as U+FFFD and a corrected clock, one short line each on stderr. The client logs them
 * (shared/api/index.ts exports the records' names); how a person reads them lives here, with
 * the CLI.
 */
import type { AppLogger } from '../shared/logger.js';
import { CLOCK_SKEW_LOG_MESSAGE, INVALID_UTF8_LOG_MESSAGE, RETRY_LOG_MESSAGE, WAIT_CUT_LOG_MESSAGE } from '../shared/api/index.js';
import { formatDuration } from '../shared/durations.js';
import { scrubText } from '../shared/errors.js';
import { CLEAR_LINE } from './progress.js';

/** What `retryLinePrinter` reads from a retry record (see `run`). */
interface RetryRecord {
  readonly request?: unknown;
  readonly attempt?: unknown;
  readonly delayMs?: unknown;
  readonly fromRetryAfter?: unknown;
  readonly reason?: unknown;
}

const MAX_RETRY_LINE = 200;

/**
 * A `logger` for `createApiClient` that turns each retry into one short line — the request,
 * how long the client waits and what failed — written with `write` (the CLI passes stderr), so
 * a run that retries does not sit silent for minutes. Everything else is dropped. On a
 * terminal (`tty`) the line first clears the progress bar the line may share.
 */
export function retryLinePrinter(write: (line: string) => unknown, options: { readonly tty?: boolean } = {}): Pick<AppLogger, 'debug' | 'info' | 'warn'> {
  const ignore = (): void => {};
  return {
    debug: ignore,
    info: ignore,
    warn: (message: unknown, ...extra: unknown[]) => {
      const clear = options.tty ? CLEAR_LINE : '';
      if (message === CLOCK_SKEW_LOG_MESSAGE) {
        const record = (extra[0] ?? {}) as { skew?: unknown; offsetMs?: unknown };
        const text =
          record.offsetMs === 0
            ? "warning: this machine's clock agrees with the API's again: no more correction"
            : `warning: this machine's clock is ${String(record.skew)} the API's (its Date header): the budget ledger and leases use the API's time; set the clock right (e.g. enable NTP)`;
        write(`${clear}${scrubText(text, { maxLength: 300 })}\n`);
        return;
      }
      if (message === WAIT_CUT_LOG_MESSAGE) {
        const record = (extra[0] ?? {}) as { header?: unknown; askedMs?: unknown; pausedMs?: unknown };
        const header = typeof record.header === 'string' ? `"${record.header}"` : 'a wait';
        const asked = typeof record.askedMs === 'number' ? formatDuration(record.askedMs, 'retry') : 'longer';
        const paused = typeof record.pausedMs === 'number' ? formatDuration(record.pausedMs, 'retry') : 'one window';
        write(
          `${clear}${scrubText(`warning: a 429 asked to wait ${asked} (${header}), longer than the budget window: pausing ${paused} instead (a proxy's or a CDN's header, or a unit mix-up)`, { maxLength: 300 })}\n`,
        );
        return;
      }
      if (message === INVALID_UTF8_LOG_MESSAGE) {
        const record = (extra[0] ?? {}) as { request?: unknown; replaced?: unknown };
        write(
          `${clear}${scrubText(`warning: ${String(record.request)} answered with ${String(record.replaced)} invalid UTF-8 sequence(s): kept as U+FFFD (counted in the manifest)`, { maxLength: 300 })}\n`,
        );
        return;
      }
      if (message !== RETRY_LOG_MESSAGE) return;
      const record = (extra[0] ?? {}) as RetryRecord;
      const delayMs = typeof record.delayMs === 'number' ? record.delayMs : 0;
      const asked = record.fromRetryAfter === true ? ', as the API asked' : '';
      const request = String(record.request);
      // The reason repeats the request (with its query): drop it, so the line keeps the cause
      // (`ECONNREFUSED`, the status) rather than losing it to the cut.
      const reason = String(record.reason ?? 'an error')
        .replace(/^[A-Za-z]*Error: /, '')
        .replace(/^(GET|POST) \S+ /, '');
      const line = scrubText(`retrying ${request} in ${formatDuration(delayMs, 'retry')}${asked} (attempt ${String(record.attempt)} failed: ${reason}`, {
        maxLength: MAX_RETRY_LINE - 1,
      });
      write(`${clear}${line})\n`);
    },
  } as Pick<AppLogger, 'debug' | 'info' | 'warn'>;
}
