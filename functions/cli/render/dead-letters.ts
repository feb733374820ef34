/**
 * What `dead-letters` prints: one line per message on stdout (`--json`: one JSON object), a
 * summary on stderr. The text lines never show the prompt (`--json` carries each body whole, to
 * fix it or enqueue it again).
 */
import { scrubText } from '../../shared/errors.js';
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

export function printDeadLetters(listing: DeadLetterListing, flags: PrintFlags, io: Out): void {
  if (flags.json) writeJson(io.stdout, listing);
  else for (const message of listing.messages) io.stdout.write(`${messageLine(message)}: ${scrubText(message.reason)}\n`);
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
  else for (const message of report.moved) io.stdout.write(`moved ${messageLine(message)} back (new message id ${message.newMessageId})\n`);
  io.stderr.write(
    `${report.moved.length} message(s) moved back to ${report.queueUrl}: each sent, then deleted from the dead-letter queue (at least once: a stop between the two leaves a copy in both, and the consumer sends a request id at most once — a request it already finished, rejected or uncertain, is dropped as a duplicate; enqueue such a prompt under a new request id)\n`,
  );
  if (report.failed) {
    io.stderr.write(
      `error: message ${report.failed.messageId}${report.failed.requestId ? ` (request ${report.failed.requestId})` : ''} was not moved: ${report.failed.error}; it and the rest stay on the dead-letter queue — run the command again\n`,
    );
  }
}

function messageLine(message: DeadLetterMessage): string {
  const about = [
    `project ${message.projectId ?? '(none)'}`,
    `job ${message.jobId ?? '(none)'}`,
    ...(message.deadLetteredAt ? [`dead-lettered ${message.deadLetteredAt}`] : []),
  ];
  // Ids come from the message: a writer to the queue chose them (readers' words, shared/reader-text.ts).
  return readerText(`request ${message.requestId ?? `(none; message ${message.messageId})`} (${about.join(', ')})`, 600);
}
