/** `follow-up`'s result on stdout: one line, or one JSON object. */
import type { AgentJob } from '../../shared/api-enums.js';

export interface FollowUpView {
  readonly requestId: string;
  /** The outcome's status, `sent` (--no-wait) or `not_sent`. */
  readonly status: string;
  readonly prLink: string | null;
  readonly polls: number;
  readonly job: AgentJob | null;
  /** Why the prompt is not sent yet (a deferral the command did not wait out). */
  readonly reason?: string;
}

export function followUpJson(view: FollowUpView) {
  const { requestId, status, prLink, polls, job, reason } = view;
  return { requestId, status, prLink, polls, job, ...(reason === undefined ? {} : { reason }) };
}

export function followUpLine(view: FollowUpView): string {
  const next = view.reason === undefined ? '' : `: ${view.reason}; run the command again with --request-id ${view.requestId} to go on`;
  return `${view.status}${view.prLink ? ` ${view.prLink}` : ''} (request ${view.requestId})${next}\n`;
}
