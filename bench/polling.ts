/**
 * Figure 6 — polling cost. One prompt to a job whose run lasts 30 s, 10 min or 2 h, driven
 * through the real core (`processMessage`) against the sandbox over HTTP, everything on one
 * simulated clock: the core's `sleep` advances it, and each deferral is redelivered after
 * exactly its `delayMs`, as SQS would. Measured: GETs and POSTs per prompt, and the delay
 * between the run's real end and the moment the outcome is recorded.
 */
import { createApiClient } from '../functions/shared/api/index.js';
import type { FollowUpOutcome } from '../functions/follow-up/outcome.js';
import { processMessage } from '../functions/follow-up/process-message.js';
import type { FollowUpDeps } from '../functions/follow-up/types.js';
import type { FollowUpSettings } from '../functions/follow-up/settings.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { info, judged, median, progress, type BenchResult, type Figures } from './lib/figures.js';
import { memoryStateStore, seededRandom } from './lib/memory-store.js';

const PROJECT = 'proj_small';
export const POLL_DURATIONS = [
  { label: '30s', ms: 30_000 },
  { label: '10min', ms: 10 * 60_000 },
  { label: '2h', ms: 2 * 3_600_000 },
] as const;
const RUNS = 5;
const MAX_GETS_2H = 70;

interface Sample {
  readonly gets: number;
  readonly posts: number;
  readonly delayMs: number;
  /** Calls of processMessage (Lambda invocations, one per delivery). */
  readonly deliveries: number;
  /** Time slept inside calls (billed Lambda time spent waiting), ms. */
  readonly sleptMs: number;
  readonly status: string;
}

const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

async function measure(sandbox: Sandbox, clock: { now: number }, durationMs: number, run: number): Promise<Sample> {
  const jobId = `job_bench_${durationMs}_${run}`;
  sandbox.createJob(PROJECT, { id: jobId, status: 'completed', prLink: 'https://github.com/acme/docs/pull/1' });
  sandbox.scriptNextRun(PROJECT, jobId, { outcome: 'completed', activeMs: durationMs });
  const outcomes: FollowUpOutcome[] = [];
  let sleptMs = 0;
  const deps: FollowUpDeps = {
    api: createApiClient({
      baseUrl: sandbox.url,
      apiKey: sandbox.apiKey,
      now: () => clock.now,
      sleep: async (ms) => void (clock.now += ms),
    }),
    store: memoryStateStore(),
    outcomes: { write: async (outcome) => void outcomes.push(outcome) },
    deadLetter: async (entry) => {
      throw new Error(`dead-lettered: ${entry.reason}`);
    },
    logger: silent,
    metrics: { count: () => undefined },
    now: () => clock.now,
    sleep: async (ms) => {
      sleptMs += ms;
      clock.now += ms;
    },
    random: seededRandom(run + 1),
  };
  const settings: FollowUpSettings = { projectIds: [PROJECT] };
  const message = {
    messageId: `msg-${jobId}`,
    body: JSON.stringify({ projectId: PROJECT, jobId, prompt: 'Benchmark prompt: update the quickstart', requestId: `req-${jobId}` }),
  };

  let deliveries = 0;
  for (;;) {
    deliveries++;
    const result = await processMessage(message, deps, settings);
    if (result.action === 'handled') {
      const state = sandbox.getJobState(PROJECT, jobId);
      const acceptedAt = state?.prompts[0]?.acceptedAt;
      const outcome = outcomes[0];
      if (acceptedAt === undefined || !outcome) throw new Error(`${jobId}: no prompt accepted or no outcome recorded`);
      const requests = sandbox.requests.filter((entry) => entry.jobId === jobId);
      return {
        gets: requests.filter((entry) => entry.route === 'agent-get').length,
        posts: requests.filter((entry) => entry.route === 'agent-message').length,
        delayMs: Date.parse(outcome.finished_at) - (acceptedAt + durationMs),
        deliveries,
        sleptMs,
        status: result.status,
      };
    }
    if (deliveries > 10_000) throw new Error(`${jobId}: still deferred after 10,000 deliveries`);
    clock.now += result.delayMs; // SQS redelivers after the visibility delay
  }
}

export async function benchPolling(): Promise<BenchResult> {
  const clock = { now: Date.UTC(2026, 0, 15, 12) };
  const sandbox = await startSandbox({ now: () => clock.now, agent: { rateLimitPerHour: 10_000 } });
  const figures: Figures = {};
  const details: Record<string, unknown> = {};
  try {
    for (const { label, ms } of POLL_DURATIONS) {
      progress(`polling: ${RUNS} prompts to a job running ${label} (simulated clock)`);
      const samples: Sample[] = [];
      for (let run = 0; run < RUNS; run++) samples.push(await measure(sandbox, clock, ms, run));
      const gets = median(samples.map((s) => s.gets));
      const delay = median(samples.map((s) => s.delayMs));
      const worstDelay = Math.max(...samples.map((s) => s.delayMs));
      const delayGoal = Math.max(5_000, 0.1 * ms);
      const posts = Math.max(...samples.map((s) => s.posts));
      const statuses = [...new Set(samples.map((s) => s.status))].join(',');
      figures[`polling.${label}.gets`] =
        label === '2h' ? judged(gets, 'GETs', '<=', MAX_GETS_2H, `median of ${RUNS}`) : info(gets, 'GETs', `median of ${RUNS}`);
      figures[`polling.${label}.posts`] = judged(posts, 'POSTs', '==', 1, `worst of ${RUNS}; outcome ${statuses}`);
      figures[`polling.${label}.delay`] = judged(delay / 1000, 's', '<=', delayGoal / 1000, `median of ${RUNS}; worst ${(worstDelay / 1000).toFixed(1)} s`);
      figures[`polling.${label}.delay_worst`] = judged(worstDelay / 1000, 's', '<=', delayGoal / 1000, `worst of ${RUNS}`);
      figures[`polling.${label}.deliveries`] = info(median(samples.map((s) => s.deliveries)), 'invocations', 'processMessage calls (SQS deliveries)');
      figures[`polling.${label}.slept`] = info(median(samples.map((s) => s.sleptMs)) / 1000, 's', 'waited inside invocations (billed)');
      details[`polling.${label}`] = samples;
    }
  } finally {
    await sandbox.close();
  }
  return { figures, details };
}
