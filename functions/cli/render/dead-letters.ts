/**
 * What `dead-letters` prints: one line per message on stdout (`--json`: one JSON object), a
 * summary on stderr. The text lines never show the prompt (`--json` carries each body whole, to
 * fix it or enqueue it again). Text from the queue reaches the terminal only through `clean`.
 */
import { readerText } from '../../shared/reader-text.js';
import type { DeadLetterListing, DeadLetterMessage, RedriveReport } from '../dead-letter-queue.js';
import type { CliIo } from '../io.js';
import { writeJson } from './json.js';

type Out = Pick<CliIo, 'stdout' | 'stderr'>;

/** The flags of `dead-letters list` and `redrive` that shape what is printed. */
interface PrintFlags {
  readonly queueUrl: string;
  readonly json?: boolean | undefined;
}

/** Text from the queue (a writer to the queue chose it) as readers' words: one line, nothing hidden or reordered. */
const clean = (text: string): string => readerText(text, 600);

/** What a listed message's redrive would be, when it is not a plain move. */
function redriveNote(message: DeadLetterMessage): string {
  if (message.rejected) return ' — redrive skips it (the consumer would reject it again: fix it and enqueue it again, or move it with --include-rejected)';
  return '';
}

export function printDeadLetters(listing: DeadLetterListing, flags: PrintFlags, io: Out): void {
  if (flags.json) writeJson(io.stdout, listing);
  else for (const message of listing.messages) io.stdout.write(`${messageLine(message)}: ${clean(message.reason)}${redriveNote(message)}\n`);
  if (listing.stillHidden > 0) {
    io.stderr.write(`warning: ${listing.stillHidden} message(s) could not be made visible again at once: they are back within 30 s\n`);
  }
  const total = Math.max(listing.approximateTotal, listing.messages.length);
  if (total === 0) {
    io.stderr.write(`the dead-letter queue ${listing.deadLetterQueueUrl} is empty\n`);
    return;
  }
  const behind = total - listing.messages.length;
  io.stderr.write(
    `${total} message(s) on the dead-letter queue ${listing.deadLetterQueueUrl}` +
      (behind > 0
        ? `; ${behind} more wait behind the ones listed (a FIFO queue hands out one message of a job's group at a time): they show once those are redriven or deleted`
        : '') +
      `; all stay on it. Move them back with: mintlify-exporter dead-letters redrive --queue-url ${flags.queueUrl}\n`,
  );
}

export function printRedrive(report: RedriveReport, flags: PrintFlags, io: Out): void {
  if (flags.json) writeJson(io.stdout, report);
  else {
    for (const message of report.moved) {
      const kept = message.requestIdAdded ? '; its id written into the body as requestId, so it stays the same request' : '';
      io.stdout.write(`moved ${messageLine(message)} back (new message id ${message.newMessageId}${kept})\n`);
    }
    for (const message of report.skipped) io.stdout.write(`skipped ${messageLine(message)}: ${clean(message.reason)}\n`);
  }
  io.stderr.write(
    `${report.moved.length} of the ${report.present} message(s) present moved back to ${report.queueUrl}: each sent as the same request, then deleted from the dead-letter queue (at least once: a stop between the two leaves a copy in both, and the consumer sends a request id at most once — a request it already finished, rejected or uncertain, is dropped as a duplicate; enqueue such a prompt under a new request id)\n`,
  );
  if (report.skipped.length > 0) {
    io.stderr.write(
      `${report.skipped.length} skipped: the consumer rejected them as malformed or as a reused request id, and would again at once — fix each and enqueue it under a new request id, or move them anyway with --include-rejected\n`,
    );
  }
  if (report.returned.length > 0) {
    io.stderr.write(
      `${report.returned.length} of the moved message(s) came back to the dead-letter queue while this ran (dead-lettered again): left there, not moved twice\n`,
    );
  }
  io.stderr.write(
    `${report.left} message(s) left on the dead-letter queue ${report.deadLetterQueueUrl}${report.left > 0 ? ` (mintlify-exporter dead-letters list --queue-url ${flags.queueUrl} shows why)` : ''}\n`,
  );
  if (report.failed) {
    io.stderr.write(
      `error: message ${report.failed.messageId}${report.failed.requestId ? ` (request ${clean(report.failed.requestId)})` : ''}: ${report.failed.error}; it and the rest stay on the dead-letter queue — run the command again once the cause is fixed\n`,
    );
  }
}

/** `request r1 (project p, job j, dead-lettered …)`, or `message m (body is not JSON …)` when the body names no request. */
function messageLine(message: DeadLetterMessage): string {
  const about = [
    `project ${message.projectId ?? '(none)'}`,
    `job ${message.jobId ?? '(none)'}`,
    ...(message.deadLetteredAt ? [`dead-lettered ${message.deadLetteredAt}`] : []),
  ];
  const what = message.requestId
    ? `request ${message.requestId}`
    : `message ${message.messageId}${message.bodyIsJson ? '' : ', body not JSON (redrive moves it unchanged)'}`;
  return clean(`${what} (${about.join(', ')})`);
}
