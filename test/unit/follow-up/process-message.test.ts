import { createHash } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient, CallOptions } from '../../../functions/shared/api-types.js';
import type { AgentJob } from '../../../functions/shared/api-enums.js';
import { ApiError, NetworkError, RateLimitedError, SendUncertainError, UnreachableError } from '../../../functions/shared/errors.js';
import { FOLLOWUP_OUTCOMES } from '../../../functions/warehouse/tables.js';
import type { DeadLetterEntry } from '../../../functions/follow-up/dead-letter.js';
import type { FollowUpOutcome } from '../../../functions/follow-up/outcome.js';
import { processMessage } from '../../../functions/follow-up/process-message.js';
import type { FollowUpDeps, FollowUpMetric } from '../../../functions/follow-up/types.js';
import type { FollowUpSettings } from '../../../functions/follow-up/settings.js';
import type { FollowUpState, StateDraft, StateStore } from '../../../functions/follow-up/state.js';

const PROMPT = 'Please rewrite the quickstart — SECRET-PROMPT-MARKER';
const OLD_PR = 'https://github.com/acme/docs/pull/1';
const NEW_PR = 'https://github.com/acme/docs/pull/2';
const job = (status: AgentJob['status'], prLink: string | null = OLD_PR): AgentJob => ({ id: 'job_1', status, prLink });

/** An in-memory compare-and-swap store with the StateStore contract. */
function memoryStore(): StateStore & { records: Map<string, FollowUpState> } {
  const records = new Map<string, FollowUpState>();
  return {
    records,
    async get(id) {
      return records.get(id);
    },
    async put(draft, expected) {
      const current = records.get(draft.requestId);
      if (current?.version !== expected) return undefined;
      const state = JSON.parse(JSON.stringify({ ...draft, version: (expected ?? 0) + 1 })) as FollowUpState;
      records.set(draft.requestId, state);
      return state;
    },
  };
}

/** A scripted fake API: `reads` answers GETs in order (the last one repeats). */
function fakeApi(script: { reads: (AgentJob | Error)[]; sends?: (AgentJob | Error)[] }) {
  const calls = { gets: 0, sends: 0 };
  const api: Pick<ApiClient, 'getJob' | 'sendMessage'> = {
    async getJob() {
      const answer = script.reads[Math.min(calls.gets, script.reads.length - 1)] as AgentJob | Error;
      calls.gets++;
      if (answer instanceof Error) throw answer;
      return answer;
    },
    async sendMessage() {
      const answer = script.sends?.[Math.min(calls.sends, script.sends.length - 1)] ?? job('active', null);
      calls.sends++;
      if (answer instanceof Error) throw answer;
      return answer;
    },
  };
  return { api, calls };
}

let clock: number;
let store: ReturnType<typeof memoryStore>;
let outcomes: FollowUpOutcome[];
let dead: DeadLetterEntry[];
let logs: string[];
let metrics: Partial<Record<FollowUpMetric, number>>;

beforeEach(() => {
  clock = Date.UTC(2026, 0, 15, 12);
  store = memoryStore();
  outcomes = [];
  dead = [];
  logs = [];
  metrics = {};
});

function deps(api: Pick<ApiClient, 'getJob' | 'sendMessage'> & Partial<Pick<ApiClient, 'createJob'>>): FollowUpDeps {
  const log =
    (level: string) =>
    (message: string, ...extra: Record<string, unknown>[]) =>
      logs.push(JSON.stringify({ level, message, extra }));
  return {
    api: {
      createJob: async () => {
        throw new Error('this test creates no job');
      },
      ...api,
    },
    store,
    outcomes: { write: async (o) => void outcomes.push(o) },
    deadLetter: async (e) => void dead.push(e),
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    metrics: { count: (name, value = 1) => void (metrics[name] = (metrics[name] ?? 0) + value) },
    now: () => clock,
    sleep: async (ms) => void (clock += ms),
    random: () => 0,
  };
}

const settings: FollowUpSettings = { projectIds: ['proj_a'], pollBudgetMs: 60_000 };
const message = (extra: object = {}) => ({
  messageId: 'msg-1',
  body: JSON.stringify({ projectId: 'proj_a', jobId: 'job_1', prompt: PROMPT, requestId: 'req-1', ...extra }),
});

type Result = Awaited<ReturnType<typeof processMessage>>;

/** Delivers the message again after each deferral, the clock moved by its delay, at most `times` times; the last result. */
async function redeliverWhileDeferred(result: Result, api: Pick<ApiClient, 'getJob' | 'sendMessage'>, given: FollowUpSettings, times: number): Promise<Result> {
  for (let i = 0; i < times && result.action === 'defer'; i++) {
    clock += result.delayMs;
    result = await processMessage(message(), deps(api), given);
  }
  return result;
}

describe('processMessage', () => {
  it('sends once, polls until the run ends and records the outcome with exactly the table columns', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed'), job('active', null), job('completed', NEW_PR)] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'handled', status: 'completed', prLink: NEW_PR, polls: 2 });
    expect(calls.sends).toBe(1);
    expect(outcomes).toHaveLength(1);
    expect(Object.keys(outcomes[0] as object)).toEqual(FOLLOWUP_OUTCOMES.columns.map((c) => c.name));
    expect(outcomes[0]).toMatchObject({ request_id: 'req-1', status: 'completed', pr_link: NEW_PR, attempts: 1, polls: 2, prompt_length: PROMPT.length });
    expect(store.records.get('req-1')?.phase).toBe('done');
    expect(metrics).toMatchObject({ PromptsSent: 1, OutcomesRecorded: 1 });
  });

  it('drops a redelivered message whose request is done, without any request', async () => {
    const first = fakeApi({ reads: [job('completed'), job('completed', NEW_PR)] });
    await processMessage(message(), deps(first.api), settings);
    const second = fakeApi({ reads: [job('completed')] });

    const result = await processMessage(message(), deps(second.api), settings);

    expect(result).toMatchObject({ action: 'handled', status: 'duplicate' });
    expect(second.calls).toEqual({ gets: 0, sends: 0 });
  });

  it('defers without sending while the job is active', async () => {
    const { api, calls } = fakeApi({ reads: [job('active', null)] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer', sent: false, reason: 'job is active' });
    expect(calls.sends).toBe(0);
    expect(metrics.PromptsDeferred).toBe(1);
  });

  it('defers a rate-limited prompt by Retry-After and sends it once later', async () => {
    const { api, calls } = fakeApi({
      reads: [job('completed'), job('completed'), job('completed', NEW_PR)],
      sends: [new RateLimitedError('rate limited', { retryAfterMs: 42_000 }), job('active', null)],
    });

    const deferred = await processMessage(message(), deps(api), settings);
    expect(deferred).toMatchObject({ action: 'defer', delayMs: 42_000, sent: false });
    expect(store.records.get('req-1')).toMatchObject({ phase: 'pending', attempts: 1 });

    const done = await processMessage(message(), deps(api), settings);
    expect(done).toMatchObject({ action: 'handled', status: 'completed' });
    expect(calls.sends).toBe(2);
    expect(outcomes[0]).toMatchObject({ attempts: 2 });
  });

  it('defers a prompt whose job read is rate limited by the Retry-After, without counting a failure', async () => {
    const { api, calls } = fakeApi({ reads: [new RateLimitedError('rate limited', { retryAfterMs: 42_000 })] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer', delayMs: 42_000, sent: false });
    expect(store.records.get('req-1')?.failures ?? 0).toBe(0);
    expect(calls.sends).toBe(0);
  });

  it('never dead-letters a prompt because its job reads keep being rate limited', async () => {
    const { api } = fakeApi({ reads: [new RateLimitedError('rate limited')] });

    const results = [];
    for (let i = 0; i < 12; i++) results.push(await processMessage(message(), deps(api), settings));

    expect(results.map((r) => r.action)).toEqual(Array.from({ length: 12 }, () => 'defer'));
    expect(results[0]).toMatchObject({ delayMs: 60_000 });
    expect(dead).toEqual([]);
  });

  it('defers by the Retry-After when a job read is rate limited while polling', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed'), new RateLimitedError('rate limited', { retryAfterMs: 300_000 })] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer', sent: true, delayMs: 300_000 });
    expect(calls.sends).toBe(1);
    expect(store.records.get('req-1')).toMatchObject({ phase: 'sent', failures: 0 });
  });

  it('records uncertain and dead-letters when the send may have gone through, and never resends', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed')], sends: [new SendUncertainError('timeout after send')] });

    const result = await processMessage(message(), deps(api), settings);
    const again = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'handled', status: 'uncertain' });
    expect(again).toMatchObject({ status: 'duplicate' });
    expect(calls.sends).toBe(1);
    expect(dead[0]?.reason).toMatch(/^uncertain/);
    expect(outcomes[0]).toMatchObject({ status: 'uncertain', sent_at: null });
    expect(metrics).toMatchObject({ PromptsUncertain: 1, MessagesDeadLettered: 1 });
  });

  it('defers a prompt whose job read never reached the API (unknown host) as unreachable, naming MINTLIFY_API_URL, without counting a failure', async () => {
    const unknownHost = new UnreachableError('GET /v2/agent/proj_a/job/job_1', 'ENOTFOUND', 'https://api.mintlify.example');
    const { api, calls } = fakeApi({ reads: [unknownHost] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer', cause: 'unreachable', sent: false });
    expect(result.action === 'defer' && result.reason).toMatch(
      /^the API at https:\/\/api\.mintlify\.example could not be reached \(ENOTFOUND: the host name does not resolve\): .*MINTLIFY_API_URL/,
    );
    expect(calls.sends).toBe(0);
    expect(store.records.get('req-1')).toMatchObject({ phase: 'pending', failures: 0 });
    expect(dead).toEqual([]);
  });

  it('releases the claim of a new job whose creation never reached the API, so a later run creates it', async () => {
    const refused = new UnreachableError('POST /v2/agent/proj_a/job', 'ECONNREFUSED', 'http://127.0.0.1:9');
    const created: string[] = [];
    let fail = true;
    const api = {
      ...fakeApi({ reads: [{ id: 'job_new', status: 'completed', prLink: NEW_PR }] }).api,
      createJob: async (): Promise<AgentJob> => {
        if (fail) throw refused;
        created.push('job_new');
        return { id: 'job_new', status: 'completed', prLink: NEW_PR };
      },
    };
    const create = { messageId: 'msg-2', body: JSON.stringify({ projectId: 'proj_a', prompt: PROMPT, requestId: 'req-new' }) };

    const first = await processMessage(create, deps(api), settings);
    const record = store.records.get('req-new');
    fail = false;
    const second = await processMessage(create, deps(api), settings);

    expect(first).toMatchObject({ action: 'defer', cause: 'unreachable', sent: false });
    expect(record).toMatchObject({ phase: 'pending', failures: 0 });
    expect(second).toMatchObject({ action: 'handled', status: 'completed' });
    expect(created).toEqual(['job_new']);
  });

  it('defers polling as unreachable when the API stops answering after the send, keeping the request sent', async () => {
    const refused = new UnreachableError('GET /v2/agent/proj_a/job/job_1', 'ECONNREFUSED', 'http://127.0.0.1:9');
    const { api, calls } = fakeApi({ reads: [job('completed'), refused] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer', cause: 'unreachable', sent: true });
    expect(calls.sends).toBe(1);
    expect(store.records.get('req-1')).toMatchObject({ phase: 'sent' });
  });

  it('treats a claim whose lease expired as uncertain without sending', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed')] });
    await store.put(claimedRecord({ owner: 'crashed', leaseExpiresAt: clock - 1 }), undefined);

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ status: 'uncertain' });
    expect(calls).toEqual({ gets: 0, sends: 0 });
  });

  it('defers a concurrent duplicate while another consumer holds a live claim', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed')] });
    await store.put(claimedRecord({ owner: 'other', leaseExpiresAt: clock + 30_000 }), undefined);

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer', delayMs: 31_000 });
    expect(calls.sends).toBe(0);
  });

  it('defers with the next poll interval when the job outlives the poll budget, then resumes', async () => {
    const reads = [job('completed'), ...Array.from({ length: 30 }, () => job('active', null)), job('completed', NEW_PR)];
    const { api, calls } = fakeApi({ reads });

    const first = await processMessage(message(), deps(api), settings);
    expect(first).toMatchObject({ action: 'defer', sent: true });
    const saved = store.records.get('req-1');
    expect(saved).toMatchObject({ phase: 'sent', sawActive: true });
    expect(saved?.phase === 'sent' && saved.polls).toBeGreaterThan(0);

    const result = await redeliverWhileDeferred(first, api, settings, 10);
    expect(result).toMatchObject({ action: 'handled', status: 'completed', prLink: NEW_PR, polls: 31 });
    expect(calls.sends).toBe(1);
  });

  it('keeps its poll lease ahead of every read while one call polls for longer than the lease', async () => {
    const reads = [job('completed'), ...Array.from({ length: 40 }, () => job('active', null)), job('completed', NEW_PR)];
    const { api } = fakeApi({ reads });
    const leaseAtReads: number[] = [];
    const watched = {
      ...api,
      getJob: async (p: string, j: string, o?: CallOptions) => {
        const state = store.records.get('req-1');
        if (state?.phase === 'sent') leaseAtReads.push((state.leaseExpiresAt ?? 0) - clock);
        return api.getJob(p, j, o);
      },
    };

    const result = await processMessage(message(), deps(watched), { ...settings, pollBudgetMs: 3_600_000, leaseMs: 20_000 });

    expect(result).toMatchObject({ action: 'handled', status: 'completed' });
    expect(leaseAtReads.length).toBeGreaterThan(30);
    expect(Math.min(...leaseAtReads)).toBeGreaterThan(0);
  });

  it('does not take a stale terminal read for the end of the new run', async () => {
    const { api } = fakeApi({
      reads: [job('completed'), job('completed'), job('completed'), job('active', null), job('failed', OLD_PR)],
      sends: [job('completed')],
    });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'handled', status: 'failed' });
  });

  it('ends as timed_out once the maximum wait has passed', async () => {
    const { api } = fakeApi({ reads: [job('completed'), job('active', null)] });
    const short = { ...settings, maxWaitMs: 120_000 };

    const result = await redeliverWhileDeferred(await processMessage(message(), deps(api), short), api, short, 10);

    expect(result).toMatchObject({ action: 'handled', status: 'timed_out' });
    expect(outcomes[0]?.detail).toContain('FOLLOWUP_MAX_WAIT_HOURS');
  });

  it('keeps polling through a job status it does not know until it becomes completed, saying so once in the log', async () => {
    const { api, calls } = fakeApi({
      reads: [job('completed'), job('queued', null), job('queued', null), job('queued', null), job('completed', NEW_PR)],
      sends: [job('queued', null)],
    });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'handled', status: 'completed', prLink: NEW_PR, polls: 4 });
    expect(calls.sends).toBe(1);
    expect(logs.filter((line) => line.includes('a status this version does not know'))).toHaveLength(1);
  });

  it('ends an unknown job status that never ends as timed_out at the maximum wait, never as finished', async () => {
    const { api } = fakeApi({ reads: [job('completed'), job('paused', null)] });
    const short = { ...settings, maxWaitMs: 120_000 };

    const result = await redeliverWhileDeferred(await processMessage(message(), deps(api), short), api, short, 10);

    expect(result).toMatchObject({ action: 'handled', status: 'timed_out' });
  });

  it('does not send while the job reports a status it does not know (it may be running)', async () => {
    const { api, calls } = fakeApi({ reads: [job('queued', null)] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer' });
    expect(calls.sends).toBe(0);
  });

  it('refuses a job read that answers for another job as malformed, and does not send', async () => {
    const { api, calls } = fakeApi({ reads: [{ ...job('completed'), id: 'job_2' }] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer', sent: false, reason: expect.stringContaining('MalformedResponseError') });
    expect(calls.sends).toBe(0);
    expect(store.records.get('req-1')).toMatchObject({ phase: 'pending', failures: 1 });
  });

  it('does not take a poll answer for another job as the end of the run', async () => {
    const { api } = fakeApi({ reads: [job('completed'), { ...job('completed', NEW_PR), id: 'job_2' }] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'defer', sent: true, reason: 'job read failed' });
    expect(outcomes).toEqual([]);
  });

  it('records uncertain when the POST answers for another job', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed'), job('completed', NEW_PR)], sends: [{ ...job('active', null), id: 'job_2' }] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'handled', status: 'uncertain' });
    expect(calls.sends).toBe(1);
    expect(outcomes[0]?.detail).toContain('job_2');
  });

  it('dead-letters an unknown job as rejected', async () => {
    const { api, calls } = fakeApi({ reads: [new ApiError('job job_1 not found in project proj_a', 404)] });

    const result = await processMessage(message(), deps(api), settings);

    expect(result).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(calls.sends).toBe(0);
    expect(dead[0]).toMatchObject({ requestId: 'req-1', groupId: 'job_1', reason: expect.stringContaining('404') });
  });

  it('dead-letters a malformed message at once without an outcome record', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed')] });

    const result = await processMessage({ messageId: 'msg-2', body: 'not json' }, deps(api), settings);

    expect(result).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(dead).toEqual([expect.objectContaining({ body: 'not json', reason: 'malformed message: body is not JSON', requestId: 'msg-2' })]);
    expect(outcomes).toEqual([]);
    expect(calls.gets).toBe(0);
  });

  it('counts failures, backs off, and dead-letters after the limit', async () => {
    const { api } = fakeApi({ reads: [new NetworkError('connection reset', false)] });
    const results = [];
    for (let i = 0; i < 10; i++) results.push(await processMessage(message(), deps(api), settings));

    expect(results.slice(0, 9).map((r) => r.action === 'defer' && r.delayMs)).toEqual([
      10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 900_000, 900_000,
    ]);
    expect(results[9]).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(dead[0]?.reason).toContain('gave up after 10 failed attempts');
  });

  it('records a request rejected at its first failure as done, so a redelivery sends nothing', async () => {
    const once = { ...settings, maxFailures: 1 };
    const failing = fakeApi({ reads: [new NetworkError('connection reset', false)] });
    const rejected = await processMessage(message(), deps(failing.api), once);
    const working = fakeApi({ reads: [job('completed')] });

    const again = await processMessage(message(), deps(working.api), once);

    expect(rejected).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(store.records.get('req-1')).toMatchObject({ phase: 'done', outcome: 'rejected', failures: 1 });
    expect(again).toMatchObject({ action: 'handled', status: 'duplicate' });
    expect(working.calls).toEqual({ gets: 0, sends: 0 });
  });

  it('hands a message back untouched, without counting a failure, when the invocation has no time left', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed')] });
    const d = deps(api);

    const result = await processMessage(message(), d, settings, { deadline: d.now() + 1_000 });

    expect(result).toMatchObject({ action: 'defer', delayMs: 0, sent: false, reason: 'no time left in this invocation' });
    expect(calls.gets + calls.sends).toBe(0);
    expect(await d.store.get('req-1')).toBeUndefined();
  });

  it("defers with the failure backoff by the message's deliveries, instead of throwing, when the state store fails", async () => {
    const { api, calls } = fakeApi({ reads: [job('completed')] });
    const failing: StateStore = { get: async () => Promise.reject(new Error('ProvisionedThroughputExceededException')), put: store.put };

    const result = await processMessage({ ...message(), deliveries: 3 }, { ...deps(api), store: failing }, settings);

    expect(result).toMatchObject({
      action: 'defer',
      cause: 'storage',
      delayMs: 40_000,
      sent: false,
      reason: expect.stringContaining('ProvisionedThroughputExceededException'),
    });
    expect(calls).toEqual({ gets: 0, sends: 0 });
    expect(dead).toEqual([]);
  });

  it('defers a sent prompt, instead of throwing, when its outcome cannot be written, and records it on a later delivery', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed'), job('completed', NEW_PR)] });
    const failingOnce = { ...deps(api), outcomes: { write: async () => Promise.reject(new Error('SlowDown')) } };

    const first = await processMessage(message(), failingOnce, settings);
    const result = await redeliverWhileDeferred(first, api, settings, 5);

    expect(first).toMatchObject({ action: 'defer', cause: 'storage', sent: true, delayMs: 10_000 });
    expect(result).toMatchObject({ action: 'handled', status: 'completed' });
    expect(calls.sends).toBe(1);
  });

  it('rejects a prompt still not sent after maxDeferMs, with the last reason, at the bound', async () => {
    const { api, calls } = fakeApi({ reads: [job('active', null)] });
    const bounded = { ...settings, maxDeferMs: 60_000 };
    const started = clock;

    const result = await redeliverWhileDeferred(await processMessage(message(), deps(api), bounded), api, bounded, 20);

    expect(result).toMatchObject({ action: 'handled', status: 'rejected' });
    expect(clock - started).toBe(60_000);
    expect(calls.sends).toBe(0);
    expect(outcomes[0]?.detail).toBe('not sent within 1 min (FOLLOWUP_MAX_DEFER_MINUTES): job is active');
    expect(dead).toHaveLength(1);
  });

  it('ends the retries of a job read before the send at the defer bound', async () => {
    const seen: CallOptions[] = [];
    const { api } = fakeApi({ reads: [job('active', null)] });
    const spy = { ...api, getJob: (p: string, j: string, o?: CallOptions) => (seen.push(o ?? {}), api.getJob(p, j, o)) };

    await processMessage(message(), deps(spy), { ...settings, maxDeferMs: 600_000 });

    expect(seen[0]?.deadline).toBe(clock + 600_000);
  });

  it('passes the stop signal to job reads, so their retries end when the consumer stops', async () => {
    const stop = new AbortController();
    const seen: CallOptions[] = [];
    const { api } = fakeApi({ reads: [job('active', null)] });
    const spy = { ...api, getJob: (p: string, j: string, o?: CallOptions) => (seen.push(o ?? {}), api.getJob(p, j, o)) };

    await processMessage(message(), deps(spy), settings, { stopSignal: stop.signal });

    expect(seen[0]?.signal).toBe(stop.signal);
  });

  it('defers without counting a failure when the stop signal ends a job read', async () => {
    const stop = new AbortController();
    const api = {
      ...fakeApi({ reads: [job('completed')] }).api,
      getJob: async () => {
        stop.abort();
        throw stop.signal.reason;
      },
    };

    const result = await processMessage(message(), deps(api), settings, { stopSignal: stop.signal });

    expect(result).toMatchObject({ action: 'defer', cause: 'stopping', sent: false });
    expect(store.records.get('req-1')?.failures ?? 0).toBe(0);
  });

  it('ends the POST, retries included, before its claim runs out, and does not abort it on stop', async () => {
    const seen: CallOptions[] = [];
    const { api } = fakeApi({ reads: [job('completed'), job('completed', NEW_PR)] });
    const spy = { ...api, sendMessage: (p: string, j: string, t: string, o?: CallOptions) => (seen.push(o ?? {}), api.sendMessage(p, j, t, o)) };
    const claimedAt = clock;

    await processMessage(message(), deps(spy), { ...settings, leaseMs: 120_000 }, { stopSignal: new AbortController().signal });

    expect(seen).toEqual([{ deadline: claimedAt + 119_000 }]);
  });

  it('refuses a requestId already used for a different prompt', async () => {
    const { api, calls } = fakeApi({ reads: [job('completed'), job('completed', NEW_PR)] });
    await processMessage(message(), deps(api), settings);

    const result = await processMessage(message({ prompt: 'another prompt' }), deps(api), settings);

    expect(result).toMatchObject({ status: 'rejected' });
    expect(calls.sends).toBe(1);
    expect(store.records.get('req-1')).toMatchObject({ phase: 'done', outcome: 'completed' });
  });

  it('never writes the prompt text in logs, outcomes, state or dead-letter reasons', async () => {
    const { api } = fakeApi({ reads: [job('completed'), job('completed', NEW_PR)] });
    await processMessage(message(), deps(api), settings);
    await processMessage({ messageId: 'm3', body: JSON.stringify({ jobId: 'bad id', prompt: PROMPT }) }, deps(api), settings);

    const written = JSON.stringify({ logs, outcomes, state: [...store.records.values()], reasons: dead.map((d) => d.reason) });
    expect(logs.length).toBeGreaterThan(2);
    expect(written).not.toContain('SECRET-PROMPT-MARKER');
    expect(written).toContain(sha(PROMPT));
  });
});

/** A claim on req-1 held by another consumer. */
function claimedRecord(lease: { owner: string; leaseExpiresAt: number }): StateDraft {
  return {
    requestId: 'req-1',
    phase: 'claimed',
    projectId: 'proj_a',
    jobId: 'job_1',
    promptLength: PROMPT.length,
    promptSha256: sha(PROMPT),
    failures: 0,
    attempts: 0,
    expiresAt: 0,
    pendingSince: clock,
    before: { status: 'completed', prLink: OLD_PR },
    ...lease,
  };
}

function sha(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
