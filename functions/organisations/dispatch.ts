/**
 * The dispatcher: at each scheduled run, one message per organisation on the organisations'
 * queue, each carrying the schedule's own `time` (every organisation's run plans from the same
 * instant, retries included). The workers take them with bounded concurrency (infra), so the
 * fan-out runs on SQS and Lambda, not on a scheduler of ours.
 */
import * as v from 'valibot';
import type { OrganisationSecrets } from './secrets.js';
import { ORGANISATION_ID_PATTERN } from './organisations.js';

/** A worker's message: the organisation and the schedule's time (ISO). */
export const OrganisationMessageSchema = v.strictObject({
  org: v.pipe(v.string(), v.regex(ORGANISATION_ID_PATTERN, 'an organisation id')),
  time: v.pipe(v.string(), v.isoTimestamp('an ISO time')),
});
export type OrganisationMessage = v.InferOutput<typeof OrganisationMessageSchema>;

/** SendMessageBatch's limit. */
export const SEND_BATCH = 10;

export interface OrganisationQueue {
  /** Sends up to {@link SEND_BATCH} messages; resolves with the ids (`org`) SQS did not take. */
  sendBatch(messages: readonly { readonly id: string; readonly body: string; readonly groupId: string }[]): Promise<readonly string[]>;
}

export interface DispatchDeps {
  readonly secrets: Pick<OrganisationSecrets, 'list'>;
  readonly queue: OrganisationQueue;
}

export interface DispatchResult {
  readonly dispatched: readonly string[];
  /** Organisations whose message SQS refused (after one more try). */
  readonly notSent: readonly string[];
  readonly refused: readonly { readonly name: string; readonly reason: string }[];
}

/** One message per organisation listed now, for the schedule's `time` (epoch ms). */
export async function dispatchOrganisations(time: number, deps: DispatchDeps): Promise<DispatchResult> {
  const { ids, refused } = await deps.secrets.list();
  const at = new Date(time).toISOString();
  const notSent: string[] = [];
  for (let start = 0; start < ids.length; start += SEND_BATCH) {
    // The message group is the organisation: on a fair queue one organisation's backlog of
    // messages cannot hold the others back.
    const batch = ids
      .slice(start, start + SEND_BATCH)
      .map((org) => ({ id: org, body: JSON.stringify({ org, time: at } satisfies OrganisationMessage), groupId: org }));
    let failed = await deps.queue.sendBatch(batch);
    if (failed.length > 0) failed = await deps.queue.sendBatch(batch.filter((message) => failed.includes(message.id)));
    notSent.push(...failed);
  }
  return { dispatched: ids.filter((id) => !notSent.includes(id)), notSent, refused };
}
