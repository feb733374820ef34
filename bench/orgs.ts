/**
 * Many organisations (issue 46; at 5,000 organisations, issue 53: lib/orgs-scale.ts, run first): 50 organisations × 3 projects with mixed backlogs, one whose
 * key is revoked and one in a storm of 429s, exported hour after hour through the real
 * dispatcher (functions/organisations/dispatch.ts) and export workers (functions/organisations/worker.ts, each
 * organisation's run the export handler itself) against stand-ins: the organisations' secrets
 * and the queue in memory, a pool of W workers taking one message each (SQS with an event
 * source's maximum concurrency), every organisation's ledger and leases in one shared store
 * (the state table), the sandbox API over HTTP with one key per organisation.
 *
 * Everything runs on ONE virtual clock: the sandbox's `now`, every ledger, gate, client and
 * lease, and each request's latency (300 ms, slept on the clock). The clock moves only when
 * every worker is asleep (waiting for budget, a Retry-After or its request's latency), to the
 * earliest wake-up; so ten hours of ten concurrent workers take seconds to a minute.
 *
 * Figures, per healthy organisation (max over them):
 * - requests in any sliding 60 minutes (sandbox log, by key) ≤ its share (ANALYTICS_BUDGET − ANALYTICS_RESERVE);
 * - windows needed ÷ ⌈N/B⌉ ≤ 1.05 (N its requests, B its share; windows counted from the first dispatch);
 * - how much later it finished than in the same simulation without the two broken organisations (≤ 60 s),
 *   and the requests it sent there and here (the same: the broken ones cost it no request);
 * - the ledger's store writes per API request (each a DynamoDB conditional write in AWS).
 */
import { createApiClient } from '../functions/shared/api/index.js';
import { createExportDeps } from '../functions/export/deps.js';
import { createHandler } from '../functions/export/handler.js';
import { dispatchOrganisations, type OrganisationQueue } from '../functions/organisations/dispatch.js';
import type { Organisation } from '../functions/organisations/organisations.js';
import { createWorker, type WorkerRecord } from '../functions/organisations/worker.js';
import { loadConfigFor } from '../functions/settings/config.js';
import { createLogger, silentLogger } from '../functions/shared/logger.js';
import { shareOf } from '../functions/shared/pacing/budget.js';
import { fixedPersonalDataKey } from '../functions/shared/personal-data/index.js';
import type { Destination } from '../functions/shared/storage/destination.js';
import { orgScope, scopedStore } from '../functions/shared/storage/scoped-store.js';
import { createMemoryStore, type SharedStore } from '../functions/shared/storage/shared-store.js';
import { startSandbox, type Sandbox } from '../sandbox/index.js';
import { info, judged, progress, type BenchResult, type Figures } from './lib/figures.js';
import { nullDestination } from './lib/null-destination.js';
import { benchOrgsScale, LATENCY_MS, T0 } from './lib/orgs-scale.js';
import { HOUR_MS, MINUTE_MS, type Sleep } from '../functions/shared/time.js';
import { maxInAnyWindow } from './lib/request-log.js';

const WORKER_TIMEOUT_MS = 15 * MINUTE_MS;

export interface OrgsCase {
  readonly organisations: number;
  readonly workers: number;
  readonly budget: string;
  readonly reserve: number;
  /** Earlier days each run heals: with a fresh lake, each organisation's backlog. */
  readonly healDays: number;
  readonly hours: number;
}

export const ORGS_CASE: OrgsCase = { organisations: 50, workers: 10, budget: '90/1h', reserve: 5, healDays: 7, hours: 10 };

/** A clock that moves only when every task is asleep, to the earliest wake-up. */
class VirtualClock {
  time: number;
  private active = 0;
  private timers: { at: number; wake: () => void }[] = [];
  private scheduled = false;

  constructor(start: number) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  readonly sleep: Sleep = (ms, signal) => {
    signal?.throwIfAborted();
    return new Promise<void>((resolve) => {
      this.timers.push({ at: this.time + Math.max(0, ms), wake: resolve });
      this.kick();
    });
  };

  /** Runs `fn` as a task: the clock waits for it unless it sleeps. */
  async task<T>(fn: () => Promise<T>): Promise<T> {
    this.active += 1;
    try {
      return await fn();
    } finally {
      this.active -= 1;
      this.kick();
    }
  }

  /** Moves to `at` when nothing runs (between hourly runs). */
  advanceTo(at: number): void {
    if (this.active > 0) throw new Error('the clock cannot jump while tasks run');
    this.time = Math.max(this.time, at);
  }

  private kick(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // After the I/O and promises now under way have had their turn.
    setImmediate(() => {
      this.scheduled = false;
      if (this.active === 0 || this.timers.length < this.active) return;
      const at = Math.min(...this.timers.map((timer) => timer.at));
      this.time = Math.max(this.time, at);
      const due = this.timers.filter((timer) => timer.at <= this.time);
      this.timers = this.timers.filter((timer) => timer.at > this.time);
      for (const timer of due) timer.wake();
    });
  }
}

/** The store with every ledger write counted (a refusal that leaves the document as it was is no write). */
function countingStore(store: SharedStore): SharedStore & { readonly ledgerWrites: () => number } {
  let writes = 0;
  return {
    description: store.description,
    get: (key) => store.get(key),
    list: (prefix) => store.list(prefix),
    update: (key, change) =>
      store.update(key, (current) => {
        const next = change(current as never);
        if (key.endsWith('budget/ledger') && next.value !== current) writes += 1;
        return next;
      }),
    ledgerWrites: () => writes,
  };
}

interface Org extends Organisation {
  readonly kind: 'healthy' | 'revoked' | 'storm';
}

/** Mixed backlogs: each organisation's three projects range from 1 to 24 pages a day. */
function organisationsOf(count: number): Org[] {
  const sizes = [100, 250, 600, 1_500, 3_000, 6_000];
  return Array.from({ length: count }, (_, i) => {
    const id = `org-${String(i + 1).padStart(2, '0')}`;
    const projectIds = [0, 1, 2].map((p) => `proj_synth_${(sizes[(i + p * 2) % sizes.length] as number) + i * 3 + p}`);
    const kind = i === 6 ? 'revoked' : i === 13 ? 'storm' : 'healthy';
    return { id, apiKey: `mint_bench_${id}_0123456789abcdef`, projectIds, kind };
  });
}

interface Outcome {
  /** Per organisation: requests sent and when they started, when its run of each hour ended (virtual ms), whether its backlog is done. */
  readonly perOrg: Map<string, { requests: number; starts: number[]; ends: number[]; completed: boolean }>;
  readonly ledgerWrites: number;
  readonly requests: number;
  readonly wallMs: number;
  readonly failedRuns: Map<string, number>;
}

async function simulate(c: OrgsCase, orgs: readonly Org[]): Promise<Outcome> {
  const clock = new VirtualClock(T0 - MINUTE_MS);
  const healthy = orgs.filter((org) => org.kind !== 'revoked');
  const sandbox: Sandbox = await startSandbox({
    now: clock.now,
    apiKey: healthy[0]?.apiKey as string,
    moreApiKeys: healthy.slice(1).map((org) => org.apiKey),
  });
  const keyIndex = new Map(healthy.map((org, i) => [i, org.id]));
  try {
    const storm = orgs.find((org) => org.kind === 'storm');
    // A storm of 429s (Retry-After 30 s) on every request of one organisation, for its first ~3 hours.
    for (const projectId of storm?.projectIds ?? []) sandbox.addFault({ projectId, kind: 'rate-limit', retryAfter: 30, times: 60 });

    const config = loadConfigFor(
      {
        EXPORT_DESTINATION: 's3://bench-bucket/mintlify',
        EXPORT_DATASETS: 'visitors',
        EXPORT_HEAL_DAYS: String(c.healDays),
        EXPORT_REFRESH_DAYS: '0',
        ANALYTICS_BUDGET: c.budget,
        ANALYTICS_RESERVE: String(c.reserve),
        EXPORT_STATE_TABLE: 'bench-state',
        PERSONAL_DATA_KEY: 'bench-personal-data-key-0123456789',
      },
      'export',
    );
    const store = countingStore(createMemoryStore());
    const destinations = new Map(orgs.map((org) => [org.id, nullDestination({ keepPuts: true })]));
    const byId = new Map(orgs.map((org) => [org.id, org]));
    const logger = createLogger({ serviceName: 'bench', level: 'SILENT' });
    const latencyFetch: typeof fetch = async (input, init) => {
      await clock.sleep(LATENCY_MS);
      return fetch(input, init);
    };
    // The figures come from the sandbox's log and the store; the metrics are published nowhere.
    const noMetrics = { addMetric: (): never => noMetrics as never, publishStoredMetrics: (): never => noMetrics as never };
    const failedRuns = new Map<string, number>();
    const ends = new Map<string, number[]>();
    const worker = createWorker({
      secrets: { read: async (id) => byId.get(id) as Org },
      exportFor: (org) => {
        const deps = createExportDeps(
          { ...config, org: org.id, projectIds: org.projectIds },
          {
            destination: destinations.get(org.id) as Destination,
            store: scopedStore(store, orgScope(org.id)),
            apiUrl: sandbox.url,
            apiKey: org.apiKey,
            now: clock.now,
            sleep: clock.sleep,
            logger,
            personalDataKey: fixedPersonalDataKey('bench-personal-data-key-0123456789'),
          },
        );
        return createHandler({
          ...deps,
          metrics: noMetrics,
          // The deps' client, with each request's latency slept on the virtual clock.
          createApi: (gate) =>
            createApiClient({
              baseUrl: sandbox.url,
              apiKey: org.apiKey,
              budget: gate,
              now: clock.now,
              sleep: clock.sleep,
              fetch: latencyFetch,
              logger: silentLogger,
            }),
        });
      },
      logger: silentLogger,
      now: clock.now,
      onOrganisation: (id, outcome) => {
        if (!outcome.ok) failedRuns.set(id, (failedRuns.get(id) ?? 0) + 1);
        ends.set(id, [...(ends.get(id) ?? []), clock.now()]);
      },
    });

    const started = performance.now();
    const messages: WorkerRecord[] = [];
    const queue: OrganisationQueue = {
      async sendBatch(batch) {
        for (const message of batch) messages.push({ messageId: `${message.id}@${clock.now()}`, body: message.body });
        return [];
      },
    };
    for (let hour = 0; hour < c.hours; hour++) {
      clock.advanceTo(T0 + hour * HOUR_MS);
      await dispatchOrganisations(clock.now(), { secrets: { list: async () => ({ ids: orgs.map((org) => org.id), refused: [] }) }, queue });
      // W workers, one message each at a time, until the queue is empty (an event source's maximum concurrency).
      await Promise.all(
        Array.from({ length: c.workers }, () =>
          clock.task(async () => {
            for (let record = messages.shift(); record !== undefined; record = messages.shift()) {
              const invoked = clock.now();
              await worker(
                { Records: [record] },
                { awsRequestId: record.messageId, getRemainingTimeInMillis: () => invoked + WORKER_TIMEOUT_MS - clock.now() },
              );
            }
          }),
        ),
      );
      progress(`orgs: hour ${hour + 1} of ${c.hours} simulated (${sandbox.requests.length} requests so far)`);
    }
    const wallMs = performance.now() - started;

    const perOrg = new Map<string, { requests: number; starts: number[]; ends: number[]; completed: boolean }>();
    for (const org of orgs) perOrg.set(org.id, { requests: 0, starts: [], ends: ends.get(org.id) ?? [], completed: false });
    for (const entry of sandbox.requests) {
      const id = entry.keyIndex === undefined ? orgs.find((org) => org.projectIds.includes(entry.projectId ?? ''))?.id : keyIndex.get(entry.keyIndex);
      const record = id === undefined ? undefined : perOrg.get(id);
      if (!record) continue;
      record.requests += 1;
      record.starts.push(entry.startedAt);
    }
    // Complete: every unit of the heal window and yesterday has its manifest.
    for (const org of orgs) {
      const keys = (await (destinations.get(org.id) as Destination).list?.('_manifests/')) ?? [];
      const record = perOrg.get(org.id);
      if (record) record.completed = keys.length === (c.healDays + 1) * org.projectIds.length;
    }
    return { perOrg, ledgerWrites: store.ledgerWrites(), requests: sandbox.requests.length, wallMs, failedRuns };
  } finally {
    await sandbox.close();
  }
}

export async function benchOrgs(c: OrgsCase = ORGS_CASE): Promise<BenchResult> {
  progress('orgs: 5,000 organisations × 3 projects, 12 hours, through the real dispatcher, worker and ledgers (simulated queue, API and clock)');
  const scale = await benchOrgsScale();
  const orgs = organisationsOf(c.organisations);
  const share = shareOf({ requests: Number(c.budget.split('/')[0]), windowMs: HOUR_MS, text: c.budget }, c.reserve).requests;
  progress(
    `orgs: ${c.organisations} organisations × 3 projects, ${c.workers} workers, ${c.budget} less ${c.reserve} reserved each, one key revoked, one 429 storm (virtual clock)`,
  );
  const mixed = await simulate(c, orgs);
  progress(`orgs: the same without the revoked and the storming organisation (the baseline of the delay)`);
  const baseline = await simulate(
    c,
    orgs.filter((org) => org.kind === 'healthy'),
  );

  const healthy = orgs.filter((org) => org.kind === 'healthy');
  let maxPerWindow = 0;
  let worstRatio = 0;
  let worstDelayMs = Number.NEGATIVE_INFINITY;
  let extraRequests = 0;
  let incomplete = 0;
  const ratios: Record<string, number> = {};
  for (const org of healthy) {
    const here = mixed.perOrg.get(org.id);
    const there = baseline.perOrg.get(org.id);
    if (!here || !there) continue;
    maxPerWindow = Math.max(maxPerWindow, maxInAnyWindow(here.starts, HOUR_MS));
    const windows = Math.floor((Math.max(...here.starts) - T0) / HOUR_MS) + 1;
    const ideal = Math.ceil(here.requests / share);
    ratios[org.id] = windows / ideal;
    worstRatio = Math.max(worstRatio, windows / ideal);
    // Each hour's run: how much later it ended than the same organisation's run of that hour without the broken ones.
    for (const [hour, end] of here.ends.entries()) worstDelayMs = Math.max(worstDelayMs, end - (there.ends[hour] ?? end));
    extraRequests += Math.abs(here.requests - there.requests);
    if (!here.completed) incomplete += 1;
  }
  const storm = orgs.find((org) => org.kind === 'storm');
  const revoked = orgs.find((org) => org.kind === 'revoked');
  const stormOrg = storm ? mixed.perOrg.get(storm.id) : undefined;
  const figures: Figures = {
    'orgs.max_per_window': judged(
      maxPerWindow,
      'requests',
      '<=',
      share,
      `most starts of one healthy organisation's key in any sliding 60 min (sandbox log); its share ${c.budget} − ${c.reserve}`,
    ),
    'orgs.windows_ratio': judged(worstRatio, 'ratio', '<=', 1.05, `worst healthy organisation: windows ÷ ⌈N/B⌉, B = ${share}`),
    'orgs.healthy_delay': judged(
      Math.max(0, worstDelayMs) / 1000,
      's',
      '<=',
      60,
      `most any healthy organisation's hourly run ended later than without the two broken ones (${c.workers} workers)`,
    ),
    'orgs.storm_complete': info(stormOrg?.completed ? 1 : 0, 'yes=1', 'the storming organisation finished its backlog once the storm passed'),
    'orgs.healthy_extra_requests': judged(extraRequests, 'requests', '==', 0, 'requests the healthy organisations sent beyond the run without the broken ones'),
    'orgs.healthy_incomplete': judged(
      incomplete,
      'organisations',
      '==',
      0,
      `healthy organisations without every unit of ${c.healDays + 1} days after ${c.hours} hours`,
    ),
    'orgs.revoked_requests': info(
      revoked ? (mixed.perOrg.get(revoked.id)?.requests ?? 0) : 0,
      'requests',
      `the revoked key's requests over ${c.hours} runs (one 401 each)`,
    ),
    'orgs.storm_requests': info(stormOrg?.requests ?? 0, 'requests', 'the storming organisation, 429s included; its ledger alone paused'),
    'orgs.ledger_writes_per_request': info(
      mixed.ledgerWrites / mixed.requests,
      'writes',
      `ledger writes (DynamoDB conditional writes in AWS) ÷ ${mixed.requests} API requests`,
    ),
    'orgs.wall': info(mixed.wallMs / 1000, 's', `real time for ${c.hours} simulated hours of ${c.organisations} organisations`),
  };
  return {
    figures: { ...scale.figures, ...figures },
    details: {
      ...scale.details,
      orgs: {
        case: c,
        share,
        ratios,
        failedRuns: Object.fromEntries(mixed.failedRuns),
        requests: Object.fromEntries([...mixed.perOrg].map(([id, o]) => [id, o.requests])),
        runEnds: Object.fromEntries([...mixed.perOrg].map(([id, o]) => [id, o.ends.map((end) => new Date(end).toISOString())])),
        baselineRunEnds: Object.fromEntries([...baseline.perOrg].map(([id, o]) => [id, o.ends.map((end) => new Date(end).toISOString())])),
      },
    },
  };
}
