/**
 * The export worker: one organisation per message, each run as the single-organisation export
 * runs (export/handler.ts's `createHandler`, unchanged) over that organisation's lake, key,
 * projects and part of the state. A failed organisation — a revoked key, a 429 storm, an API that
 * stalls — is reported as that message's batch item failure (its message goes to the dead-letter
 * queue, naming it) and stops at its own deadline; the messages of the others are other
 * invocations, so it costs them no request.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import * as v from 'valibot';
import type { ExportContext } from '../export/handler.js';
import type { RunResult } from '../export/run.js';
import { describeError } from '../shared/errors.js';
import type { AppLogger } from '../shared/logger.js';
import { issueLine, type Organisation } from './organisations.js';
import { OrgMessageSchema } from './dispatch.js';
import type { OrganisationSecrets } from './secrets.js';

/** One organisation's export: the export handler built over its dependencies. */
export type OrganisationExport = (event: unknown, context: ExportContext) => Promise<RunResult>;

export interface WorkerDeps {
  readonly secrets: Pick<OrganisationSecrets, 'read'>;
  /** The export of `org` (export/handler.ts's `createHandler` over `createExportDeps` of the organisation). */
  readonly exportFor: (org: Organisation) => OrganisationExport;
  readonly logger: AppLogger;
  readonly now: () => number;
  /**
   * The longest one organisation's run may take, ms: at that deadline its run checkpoints and
   * returns, like a run whose Lambda is ending. @default the invocation's own time
   */
  readonly orgTimeLimitMs?: number;
  /** Told of each organisation's end (metrics). */
  readonly onOrganisation?: (org: string, outcome: { readonly ok: boolean; readonly result?: RunResult }) => void;
}

export interface WorkerRecord {
  readonly messageId: string;
  readonly body: string;
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
    const parsed = v.safeParse(OrgMessageSchema, parseJson(record.body));
    if (!parsed.success) {
      logger.error('organisation message refused', {
        messageId: record.messageId,
        reason: `the message is {"org":"<id>","time":"<ISO>"}: ${issueLine(parsed.issues)}`,
      });
      return false;
    }
    const { org: id, time } = parsed.output;
    const started = now();
    const limit = deps.orgTimeLimitMs;
    const orgContext: ExportContext = {
      awsRequestId: `${context.awsRequestId}:${id}`,
      getRemainingTimeInMillis: () => Math.min(context.getRemainingTimeInMillis(), limit === undefined ? Number.POSITIVE_INFINITY : started + limit - now()),
    };
    try {
      // Read fresh for each message: a rotated or replaced key is used at the next run.
      const org = await deps.secrets.read(id);
      const result = await deps.exportFor(org)({ 'detail-type': 'Scheduled Event', source: 'aws.events', time }, orgContext);
      logger.info('organisation run finished', { organisation: id, completed: result.completed, pending: result.pending, requests: result.requests });
      deps.onOrganisation?.(id, { ok: true, result });
      return true;
    } catch (error) {
      logger.error('organisation run failed', { organisation: id, error: describeError(error) });
      deps.onOrganisation?.(id, { ok: false });
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
