/**
 * What the CLI prints of the API client's events (shared/api/events.ts): each retry, a 429's
 * pause that was cut, invalid UTF-8 kept as U+FFFD and a corrected clock, one short line each
 * on stderr. The client emits them typed; how a person reads them lives here, with the CLI.
 *
 * A request that never reached the service (`UnreachableError`) gets no retry line: it is tried
 * again only a few times within seconds, and the one line that ends the run names its cause.
 */
import type { ApiEvents } from '../shared/api/events.js';
import { formatDuration } from '../shared/durations.js';
import { describeError, scrubText, UnreachableError } from '../shared/errors.js';

const MAX_RETRY_LINE = 200;

/**
 * The client's events as lines written with `write` (the CLI passes stderr), so a run that
 * retries does not sit silent for minutes. On a terminal, `export` passes stderr through its
 * terminal line (progress.ts), which clears the progress bar before each line.
 */
export function retryLinePrinter(write: (line: string) => unknown): ApiEvents {
  const say = (text: string, maxLength = 300) => write(`${scrubText(text, { maxLength })}\n`);
  return {
    onClockSkew: ({ offsetMs, skew }) =>
      say(
        offsetMs === 0
          ? "warning: this machine's clock agrees with the API's again: no more correction"
          : `warning: this machine's clock is ${skew} the API's (its Date header): the budget ledger and leases use the API's time; set the clock right (e.g. enable NTP)`,
      ),
    onRateLimited: ({ askedMs, pausedMs, header }) => {
      if (askedMs === undefined) return;
      say(
        `warning: a 429 asked to wait ${formatDuration(askedMs, 'retry')} (${header !== undefined ? `"${header}"` : 'a wait'}), longer than the budget window: pausing ${formatDuration(pausedMs, 'retry')} instead (a proxy's or a CDN's header, or a unit mix-up)`,
      );
    },
    onInvalidUtf8: ({ request, replaced }) =>
      say(`warning: ${request} answered with ${replaced} invalid UTF-8 sequence(s): kept as U+FFFD (counted in the manifest)`),
    onRetry: ({ request, attempt, delayMs, fromRetryAfter, error }) => {
      if (error instanceof UnreachableError) return;
      const asked = fromRetryAfter ? ', as the API asked' : '';
      // The error's message repeats the request (with its query): drop it, so the line keeps
      // the cause (the status, `ECONNRESET`) rather than losing it to the cut.
      const reason = describeError(error)
        .replace(/^[A-Za-z]*Error: /, '')
        .replace(/^(GET|POST) \S+ /, '');
      const line = scrubText(`retrying ${request} in ${formatDuration(delayMs, 'retry')}${asked} (attempt ${attempt} failed: ${reason}`, {
        maxLength: MAX_RETRY_LINE - 1,
      });
      write(`${line})\n`);
    },
  };
}
