/**
 * Outcome notifications in the core, on a fake clock with an in-memory state store: when a
 * publish happens, what a failed mark does, and the Publish request itself (a captured
 * `send`, the narrow SDK surface). The end-to-end path (real SNS on fauxqs, redeliveries) is in
 * test/integration/follow-up/follow-up-outcomes.test.ts.
 */
import type { PublishCommand } from '@aws-sdk/client-sns';
import { describe, expect, it } from 'vitest';
import type { AgentJob } from '../../../functions/shared/api-enums.js';
import { FOLLOWUP_METRICS } from '../../../functions/shared/metric-names.js';
import { createSnsNotifier, notificationOf } from '../../../functions/follow-up/notify.js';
import type { FollowUpOutcome } from '../../../functions/follow-up/outcome.js';
import { processMessage } from '../../../functions/follow-up/process-message.js';
import type { FollowUpDeps } from '../../../functions/follow-up/types.js';
import type { FollowUpState, StateStore } from '../../../functions/follow-up/state.js';

const job = (status: AgentJob['status']): AgentJob => ({ id: 'job_1', status, prLink: status === 'completed' ? 'https://github.com/acme/docs/pull/2' : null });
const body = JSON.stringify({ projectId: 'proj_a', jobId: 'job_1', prompt: 'Add a FAQ', requestId: 'req-1' });
const settings = { projectIds: ['proj_a'], grace: { ms: 0, reads: 1 } };

/** A compare-and-swap store in memory; `failWhen` makes matching writes throw (storage down). */
function memoryStore(failWhen: (draft: Record<string, unknown>) => boolean = () => false): StateStore & { records: Map<string, FollowUpState> } {
  const records = new Map<string, FollowUpState>();
  return {
    records,
    async get(id) {
      return records.get(id);
    },
    async put(draft, expected) {
      if (failWhen(draft as unknown as Record<string, unknown>)) throw new Error('table unavailable');
      if (records.get(draft.requestId)?.version !== expected) return undefined;
      const state = { ...draft, version: (expected ?? 0) + 1 } as FollowUpState;
      records.set(draft.requestId, state);
      return state;
    },
  };
}

function setup(store: StateStore, notify?: FollowUpDeps['notify']) {
  let clock = Date.UTC(2026, 0, 15, 12);
  const published: FollowUpOutcome[] = [];
  const counts = new Map<string, number>();
  const deps: FollowUpDeps = {
    // Idle (completed) before the send, active in the POST's answer, completed on the next read.
    api: {
      getJob: async () => job('completed'),
      sendMessage: async () => job('active'),
      createJob: async () => {
        throw new Error('no job is created here');
      },
    },
    store,
    outcomes: { write: async () => undefined },
    deadLetter: async () => undefined,
    ...(notify === undefined
      ? {}
      : {
          notify: async (outcome: FollowUpOutcome) => {
            await notify(outcome);
            published.push(outcome);
          },
        }),
    logger: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    metrics: { count: (name, value = 1) => void counts.set(name, (counts.get(name) ?? 0) + value) },
    now: () => clock,
    sleep: async (ms) => void (clock += ms),
    random: () => 0.5,
  };
  return { deps, published, counts };
}

describe('outcome notifications in the core', () => {
  it('without an outcomes topic, publishes nothing and leaves no notified mark', async () => {
    const store = memoryStore();
    const { deps } = setup(store);
    expect(await processMessage({ messageId: 'm', body }, deps, settings)).toMatchObject({ action: 'handled', status: 'completed' });
    const done = store.records.get('req-1');
    expect(done).toMatchObject({ phase: 'done' });
    expect(done && 'notified' in done).toBe(false);
  });

  it('does not defer, nor publish again, when the publish went through but marking it failed', async () => {
    const store = memoryStore((draft) => draft['notified'] === true);
    const { deps, published, counts } = setup(store, async () => undefined);

    const result = await processMessage({ messageId: 'm', body }, deps, settings);

    expect(result).toMatchObject({ action: 'handled', status: 'completed' });
    expect(published).toHaveLength(1);
    expect(counts.get(FOLLOWUP_METRICS.notified)).toBe(1);
    expect(counts.get(FOLLOWUP_METRICS.notifyFailures)).toBeUndefined();
  });
});

describe('the Publish request', () => {
  const outcome = {
    request_id: 'req-1',
    project_id: 'proj_a',
    job_id: `job_${'x'.repeat(120)}`,
    status: 'uncertain',
    kind: 'follow_up',
  } as unknown as FollowUpOutcome;

  it('carries the record as the message, the four attributes, and a subject SNS accepts', () => {
    const request = notificationOf(outcome);
    expect(JSON.parse(request.Message)).toEqual(outcome);
    expect(request.MessageAttributes).toEqual({
      status: { DataType: 'String', StringValue: 'uncertain' },
      kind: { DataType: 'String', StringValue: 'follow_up' },
      projectId: { DataType: 'String', StringValue: 'proj_a' },
      jobId: { DataType: 'String', StringValue: outcome.job_id },
    });
    expect(request.Subject.length).toBeLessThanOrEqual(100);
    expect(request.Subject).toMatch(/^mintlify-exporter follow-up uncertain: job /);
  });

  it('says a new job in the kind attribute, and leaves jobId out when its creation never named the job', () => {
    const lost = { ...outcome, job_id: null, kind: 'create' } as FollowUpOutcome;
    const request = notificationOf(lost);
    expect(request.MessageAttributes).toEqual({
      status: { DataType: 'String', StringValue: 'uncertain' },
      kind: { DataType: 'String', StringValue: 'create' },
      projectId: { DataType: 'String', StringValue: 'proj_a' },
    });
    expect(request.Subject).toBe('mintlify-exporter new job uncertain: job (unknown) (proj_a)');
  });

  it('sets the group and deduplication ids only for a FIFO topic', async () => {
    const sent: PublishCommand[] = [];
    const sns = { send: async (command: PublishCommand) => void sent.push(command) };
    await createSnsNotifier({ sns: sns as never, topicArn: 'arn:aws:sns:eu-west-1:123456789012:outcomes' })(outcome);
    await createSnsNotifier({ sns: sns as never, topicArn: 'arn:aws:sns:eu-west-1:123456789012:outcomes.fifo' })(outcome);
    expect(sent[0]?.input).not.toHaveProperty('MessageGroupId');
    expect(sent[1]?.input).toMatchObject({ MessageGroupId: outcome.job_id, MessageDeduplicationId: 'req-1' });
  });
});
