/**
 * What `gaps` prints: the ranked gaps with their evidence and what was done about each on
 * stdout (`--json`: one JSON document), then one summary line on stderr (where the prompts
 * went, what to do next).
 */
import type { GapsResult } from '../../gaps/find.js';
import type { Gap, GapRequest } from '../../gaps/gaps.js';
import type { CliIo } from '../io.js';
import { writeJson } from './json.js';

export interface GapsOutput {
  readonly json: boolean;
  /** The `--prompts` file, when one was written. */
  readonly promptsFile?: string | undefined;
  /** Prompts written to it. */
  readonly written?: number | undefined;
}

export function printGaps(result: GapsResult, output: GapsOutput, io: Pick<CliIo, 'stdout' | 'stderr'>): void {
  if (output.json) {
    writeJson(io.stdout, {
      destination: result.destination,
      from: result.from,
      last: result.last,
      projects: result.projects,
      days: result.days,
      daysWithData: result.daysWithData,
      followUpStateRead: result.stateRead,
      gaps: result.gaps,
      ...(output.promptsFile === undefined ? {} : { prompts: { file: output.promptsFile, written: output.written ?? 0 } }),
    });
  } else {
    io.stdout.write(
      `${result.gaps.length === 0 ? 'No gap' : `The ${result.gaps.length} most severe gap(s)`} in ${result.destination}, ${result.from} to ${result.last} (${result.projects.length} project(s); data on ${result.daysWithData} of ${result.days} day(s)); open gaps first\n`,
    );
    for (const [i, gap] of result.gaps.entries()) io.stdout.write(gapLines(gap, i + 1));
  }
  if (!result.stateRead) {
    io.stderr.write('Note: the follow-up state was not read (an s3:// destination without FOLLOWUP_STATE_TABLE): only finished jobs mark their gaps\n');
  }
  if (output.promptsFile !== undefined) {
    const skipped = result.gaps.filter((gap) => !gap.promptable).length;
    io.stderr.write(
      `${output.written ?? 0} prompt(s) written to ${output.promptsFile}${skipped > 0 ? ` (${skipped} gap(s) left out: a job in flight or done)` : ''}; review them, then: mintlify-exporter enqueue --queue-url URL --file ${output.promptsFile}\n`,
    );
  }
}

function gapLines(gap: Gap, rank: number): string {
  const lines = [`${String(rank).padStart(3)}. ${gap.title} — ${gap.projectId}, score ${gap.score} [${gap.kind} ${gap.gapId}]`, `     ${gap.because}`];
  const quotes = gap.evidence.kind === 'unanswered_category' ? gap.evidence.examples : gap.evidence.kind === 'thumbs_down_page' ? gap.evidence.comments : [];
  const asked = gap.evidence.kind === 'unanswered_category' ? (gap.evidence.asked ?? []) : [];
  for (const [i, text] of quotes.entries()) lines.push(`     “${oneLine(text)}”${(asked[i] ?? 0) > 1 ? ` (asked ${asked[i]}×)` : ''}`);
  const latest = gap.requests[0];
  if (latest) lines.push(`     ${requestLine(latest)}${gap.promptable ? ' — may be prompted again' : ''}`);
  return `${lines.join('\n')}\n`;
}

function requestLine(request: GapRequest): string {
  if (request.state === 'in_flight') return `job in flight (request ${request.requestId}${request.jobId ? `, job ${request.jobId}` : ''})`;
  const job = request.jobId ? `job ${request.jobId}` : 'no job';
  return `done: ${request.status ?? 'unknown'} (request ${request.requestId}, ${job}${request.prLink ? `, ${request.prLink}` : ''})`;
}

function oneLine(text: string): string {
  const line = text.replace(/[\s\p{Cc}]+/gu, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}
