/**
 * The export worker: one organisation per message, each run as the single-organisation export
 * runs (export/handler.ts's `createHandler`, unchanged) over that organisation's lake, key,
 * projects and part of the state. A failed organisation — a revoked key, a 429 storm, an API that
 * stalls — is reported as that message's batch item failure (its message goes to the dead-letter
 * queue, naming it) and stops at its own deadline; the messages of the others are other
 * invocations, so it costs them no request.
 *
 * No idle worker: an organisation that must wait longer than {@link MAX_IDLE_WAIT_MS} for its
 * budget (one wait, or its run's waits together) does not wait in the worker. Its run checkpoints there (the gate's refusal is the
 * budget's partial unit, as at a deadline), the worker ends, and the message is handed back to
 * the queue until the ledger's next free slot, at least that minute (`handBack`: a visibility
 * delay of at most 12 h).
 * With `deadLetter`, a failed organisation's message is sent to the dead-letter queue by the
 * worker itself, so the queue's own redrive only catches a worker that crashed: a handback is
 * not a failure.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import * as v from 'valibot';
import type { ExportContext } from '../export/handler.js';
import type { RunResult } from '../export/run.js';
import type { BudgetLedger } from '../shared/pacing/budget.js';
import { BudgetExhaustedError } from '../shared/pacing/errors.js';
import { describeError } from '../shared/errors.js';
import type { AppLogger } from '../shared/logger.js';
import { issueLine, type Organisation } from './organisations.js';
import { OrganisationMessageSchema } from './dispatch.js';
import type { OrganisationSecrets } from './secrets.js';

/** One organisation's export: the export handler built over its dependencies. */
export type OrganisationExport = (event: unknown, context: ExportContext) => Promise<RunResult>;

/** The longest single wait for budget a run may sleep through (ms); DESIGN's limit. A longer wait ends the run and hands the message back. */
export const MAX_IDLE_WAIT_MS = 60_000;

/**
 * What a run's budget waits may take together (ms): a full window frees one start at a time, and
 * a worker that sleeps each of them is idle most of its time (the benchmark's 1 % goal), so past
 * this the run hands its message back for at least {@link MAX_IDLE_WAIT_MS}, which then finds
 * room for a batch.
 */
export const MAX_RUN_WAIT_MS = 5_000;

/** The longest visibility delay SQS allows (12 h, ms): a later slot is a fresh message's. */
export const MAX_HANDBACK_MS = 12 * 3_600_000;

/**
 * One message's limit on budget waits: {@link capWaits} refuses a start that must wait longer
 * than `maxWaitMs` and keeps the instant it could start (`refusedUntil`).
 */
export interface IdleWaits {
  /** The longest the run's waits may take together. */
  readonly maxWaitMs: number;
  /** The shortest handback: a handback should find room for a batch, not for one request. */
  readonly minHandBackMs: number;
  /** What the run has waited so far (the waits the ledger named and the gate slept). */
  waitedMs?: number;
  refusedUntil?: number;
}

/**
 * `ledger` with its waits capped by `waits`: a start whose wait would take the run's waits
 * together past `maxWaitMs` (a full window that frees one start at a time adds up too) is refused with
 * BudgetExhaustedError (what a gate throws at a deadline), so the unit keeps its checkpoint and
 * the run ends instead of sleeping. Nothing is reserved for a refused start.
 */
export function capWaits(ledger: BudgetLedger, waits: IdleWaits, now: () => number): BudgetLedger {
  return {
    spec: ledger.spec,
    unstart: (at) => ledger.unstart(at),
    pause: (until) => ledger.pause(until),
    snapshot: () => ledger.snapshot(),
    async tryStart() {
      const decision = await ledger.tryStart();
      if (decision.reason === 'free' || decision.waitMs <= 0) return decision;
      // A wait within what is left of the run's minute is slept; the run's waits together never pass it.
      const waited = waits.waitedMs ?? 0;
      if (waited + decision.waitMs <= waits.maxWaitMs) {
        waits.waitedMs = waited + decision.waitMs;
        return decision;
      }
      const until = now() + decision.waitMs;
      waits.refusedUntil = Math.min(waits.refusedUntil ?? Number.POSITIVE_INFINITY, until);
      throw new BudgetExhaustedError(
        `No analytics request of this organisation may start before ${new Date(until).toISOString()} (${decision.reason === 'paused' ? 'a 429 asked to pause' : `its budget ${ledger.spec.text} is spent`}): the worker hands its message back until then rather than wait`,
        until,
      );
    },
  };
}

/**
 * The handback rule over `records` (organisation → the message handed back and until when): a
 * message may be handed back when no other message of the organisation is handed back to a slot
 * still to come (a minute's grace: a late message is not yet lost).
 */
export function claimHandBack(
  records: Map<string, { readonly messageId: string; readonly until: number }>,
  org: string,
  messageId: string,
  until: number,
  now: number,
): boolean {
  const held = records.get(org);
  if (held !== undefined && held.messageId !== messageId && held.until + MAX_IDLE_WAIT_MS > now) return false;
  records.set(org, { messageId, until });
  return true;
}

/** What became of a message handed back. */
export type HandBack = (record: WorkerRecord, delayMs: number) => Promise<void>;

export interface WorkerDeps {
  readonly secrets: Pick<OrganisationSecrets, 'read'>;
  /**
   * The export of `org` (export/handler.ts's `createHandler` over `createExportDeps` of the
   * organisation), its ledger's waits capped by `waits` ({@link capWaits}).
   */
  readonly exportFor: (org: Organisation, waits: IdleWaits) => OrganisationExport;
  /**
   * Returns a message to the queue for `delayMs` (a visibility change and a batch item failure,
   * or a fresh delayed message). @default none: the worker waits for the budget as a run does
   */
  readonly handBack?: HandBack;
  /**
   * Keeps one handed-back message per organisation: `claim` says whether `messageId` may be handed
   * back until `until` — false when another message of the organisation is handed back already
   * (an hourly message meeting a spent budget): that one is handled (deleted) instead, so two
   * messages never run side by side waiting for the same budget. @default every message is handed back
   */
  readonly handBacks?: { claim(org: string, messageId: string, until: number): Promise<boolean> };
  /** Sends a failed organisation's message to the dead-letter queue with why. @default a batch item failure (the queue's redrive) */
  readonly deadLetter?: (record: WorkerRecord, reason: string) => Promise<void>;
  /** The longest wait for budget in a worker (with `handBack`). @default MAX_IDLE_WAIT_MS */
  readonly maxIdleWaitMs?: number;
  readonly logger: AppLogger;
  readonly now: () => number;
  /**
   * The longest one organisation's run may take, ms: at that deadline its run checkpoints and
   * returns, like a run whose Lambda is ending. @default the invocation's own time
   */
  readonly orgTimeLimitMs?: number;
  /** Told of each organisation's end (metrics). */
  readonly onOrganisation?: (org: string, outcome: { readonly ok: boolean; readonly result?: RunResult; readonly handedBackMs?: number }) => void;
}

export interface WorkerRecord {
  readonly messageId: string;
  readonly body: string;
  /** To hand the message back (SQS gives both). */
  readonly receiptHandle?: string;
  readonly eventSourceARN?: string;
}

/** The SQS handler of the export workers (report batch item failures). */
export function createWorker(deps: WorkerDeps) {
  const { logger, now } = deps;
  return async (event: { readonly Records: readonly WorkerRecord[] }, context: ExportContext): Promise<SQSBatchResponse> => {
    const batchItemFailures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      const ok = await runOne(record, context);
      if (!ok) batchItemFailures.push({ itemIdentifier: record.messageId });
    }
    return { batchItemFailures };
  };

  async function runOne(record: WorkerRecord, context: ExportContext): Promise<boolean> {
    const parsed = v.safeParse(OrganisationMessageSchema, parseJson(record.body));
    if (!parsed.success) {
      const reason = `the message is {"org":"<id>","time":"<ISO>"}: ${issueLine(parsed.issues)}`;
      logger.error('organisation message refused', { messageId: record.messageId, reason });
      return failed(record, reason);
    }
    const { org: id, time } = parsed.output;
    const started = now();
    const limit = deps.orgTimeLimitMs;
    const orgContext: ExportContext = {
      awsRequestId: `${context.awsRequestId}:${id}`,
      getRemainingTimeInMillis: () => Math.min(context.getRemainingTimeInMillis(), limit === undefined ? Number.POSITIVE_INFINITY : started + limit - now()),
    };
    // Without a way to hand the message back, the worker waits as a run does.
    const waits: IdleWaits =
      deps.handBack === undefined
        ? { maxWaitMs: Number.POSITIVE_INFINITY, minHandBackMs: 0 }
        : { maxWaitMs: Math.min(deps.maxIdleWaitMs ?? MAX_IDLE_WAIT_MS, MAX_RUN_WAIT_MS), minHandBackMs: deps.maxIdleWaitMs ?? MAX_IDLE_WAIT_MS };
    try {
      // Read fresh for each message: a rotated or replaced key is used at the next run.
      const org = await deps.secrets.read(id);
      const result = await deps.exportFor(org, waits)({ 'detail-type': 'Scheduled Event', source: 'aws.events', time }, orgContext);
      const until = waits.refusedUntil;
      if (until !== undefined && deps.handBack !== undefined && !result.ok && result.runStop === undefined) {
        const delayMs = Math.max(until - now(), waits.minHandBackMs);
        if (deps.handBacks !== undefined && !(await deps.handBacks.claim(id, record.messageId, now() + delayMs))) {
          logger.info('organisation waits for its budget: another of its messages is handed back already, this one ends', { organisation: id });
          deps.onOrganisation?.(id, { ok: true, result });
          return true;
        }
        await deps.handBack(record, delayMs);
        logger.info('organisation waits for its budget: message handed back', { organisation: id, completed: result.completed, delayMs });
        deps.onOrganisation?.(id, { ok: true, result, handedBackMs: delayMs });
        // A visibility delay is a batch item failure; a fresh message took its place (handled).
        return delayMs > MAX_HANDBACK_MS;
      }
      logger.info('organisation run finished', { organisation: id, completed: result.completed, pending: result.pending, requests: result.requests });
      deps.onOrganisation?.(id, { ok: true, result });
      return true;
    } catch (error) {
      logger.error('organisation run failed', { organisation: id, error: describeError(error) });
      deps.onOrganisation?.(id, { ok: false });
      return failed(record, `organisation "${id}": ${describeError(error)}`);
    }
  }

  /** A failed message: dead-lettered by the worker (then handled), or a batch item failure for the queue's redrive. */
  async function failed(record: WorkerRecord, reason: string): Promise<boolean> {
    if (deps.deadLetter === undefined) return false;
    try {
      await deps.deadLetter(record, reason);
      return true;
    } catch (error) {
      logger.error('could not dead-letter the organisation message: the queue returns it', { messageId: record.messageId, error: describeError(error) });
      return false;
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
