/**
 * What `enqueue` prints: one line per prompt on stdout (`--json`: one JSON object), then a
 * summary on stderr saying what to do about prompts not sent.
 *
 * A prompt is "accepted", not "enqueued": a FIFO queue answers success for a deduplication id
 * (our request id) it took in the last 5 minutes and drops the message, and its answer (the
 * same message id and sequence number as the first send, or new ones) does not tell which.
 */
import type { EnqueueReport } from '../../producer/enqueue.js';
import type { CliIo } from '../io.js';
import { writeJson } from './json.js';

/** What a repeated request id does, said wherever the queue's success is reported. */
const DEDUPLICATION =
  'the queue drops a request id it already took in the last 5 minutes (and answers success all the same), and the consumer never sends a request id twice';

/** The flags of `enqueue` that shape what is printed. */
interface PrintFlags {
  readonly queueUrl: string;
  readonly file?: string | undefined;
  readonly json?: boolean | undefined;
}

export function printEnqueue(report: EnqueueReport, flags: PrintFlags, io: Pick<CliIo, 'stdout' | 'stderr'>): void {
  const fromFile = flags.file !== undefined;
  if (flags.json) {
    writeJson(io.stdout, { queueUrl: flags.queueUrl, enqueued: report.enqueued, notSent: report.notSent });
  } else {
    const where = (line: number) => (fromFile ? `line ${line}: ` : '');
    const rows = [
      ...report.enqueued.map((p) => ({ line: p.line, text: `${where(p.line)}accepted request ${p.requestId} for ${jobOf(p)} (project ${p.projectId})` })),
      ...report.notSent.map((p) => ({ line: p.line, text: `${where(p.line)}NOT SENT request ${p.requestId} for ${jobOf(p)}: ${p.reason}` })),
    ].sort((a, b) => a.line - b.line);
    for (const row of rows) io.stdout.write(`${row.text}\n`);
  }
  const total = report.enqueued.length + report.notSent.length;
  if (report.stopped && fromFile) {
    io.stderr.write(
      `Stopped: ${report.enqueued.length} of ${total} prompt(s) were accepted by the queue before the stop; the other ${report.notSent.length} were not sent. ` +
        'Enqueuing the same, unchanged file again is safe: each line keeps its request id, the queue drops one it took in the last 5 minutes, and after that the consumer never sends a request id it already handled (it remembers them for 15 days).\n',
    );
  } else if (report.stopped) {
    io.stderr.write('Stopped before the prompt was sent: nothing was queued.\n');
  } else if (report.notSent.length > 0) {
    const lines = report.notSent.map((p) => p.line).join(', ');
    io.stderr.write(
      `${report.enqueued.length} of ${total} prompt(s) accepted by the queue; not sent: ${fromFile ? `line(s) ${lines}` : 'the prompt'}. ` +
        `Enqueue ${fromFile ? 'the same file' : `it with --request-id ${report.notSent[0]?.requestId}`} again: no request id is ever sent twice.\n`,
    );
  } else if (!fromFile && report.enqueued[0]?.requestIdMade) {
    io.stderr.write(
      `request id ${report.enqueued[0].requestId} was made for this prompt: pass --request-id ${report.enqueued[0].requestId} to enqueue it again safely\n`,
    );
  } else {
    io.stderr.write(`${total} prompt(s) accepted by ${flags.queueUrl}; ${DEDUPLICATION}\n`);
  }
}

/** `job job_1`, or `a new job` for a message without one. */
function jobOf(prompt: { readonly jobId?: string | undefined }): string {
  return prompt.jobId === undefined ? 'a new job' : `job ${prompt.jobId}`;
}
