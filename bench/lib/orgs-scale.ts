/**
 * Many organisations at the size the docs promise (issue 53): 5,000 organisations × 3 projects
 * for 12 simulated hours — one with a backfill of 10,000 units, one whose key is revoked, one in a
 * storm of 429s for its first 2 hours — through the real dispatcher (functions/organisations/dispatch.ts),
 * the real export worker (functions/organisations/worker.ts: its idle-wait cap and handback) and each
 * organisation's real ledger and gate (functions/shared/pacing/budget.ts) on one simulated clock,
 * with a simulated queue (visibility delays, W workers taking one message each) and a simulated
 * API (300 ms a request; a 401 for the revoked key; 429 with Retry-After 5 min in the storm).
 *
 * What is simulated is each organisation's export: the run sends its backlog's requests one by one
 * through its gate (one request a unit); the export handler itself is the HTTP simulation's
 * (bench/orgs.ts) — at this size its files and HTTP would be the simulation's whole time.
 */
import { dispatchOrganisations, type OrganisationQueue } from '../../functions/organisations/dispatch.js';
import type { Organisation } from '../../functions/organisations/organisations.js';
import { capWaits, claimHandBack, createWorker, MAX_HANDBACK_MS, type IdleWaits, type WorkerRecord } from '../../functions/organisations/worker.js';
import type { RunResult } from '../../functions/export/run.js';
import { silentLogger } from '../../functions/shared/logger.js';
import { createBudgetGate, createBudgetLedger, shareOf, type BudgetLedger } from '../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../functions/shared/pacing/budget-spec.js';
import { BudgetExhaustedError } from '../../functions/shared/pacing/errors.js';
import { createMemoryStore } from '../../functions/shared/storage/shared-store.js';
import { HOUR_MS, MINUTE_MS } from '../../functions/shared/time.js';
import { info, judged, type BenchResult } from './figures.js';

/** 03:05 UTC: yesterday is due (2 settle hours), and ten hours stay within the day (bench/orgs.ts starts there too). */
export const T0 = Date.UTC(2026, 2, 2, 3, 5, 0);
/** A request's round trip to the simulated API. */
export const LATENCY_MS = 300;
/** The queue's visibility timeout: a message whose worker reported it failed without a handback comes back after it. */
const VISIBILITY_MS = 20 * MINUTE_MS;

export interface ScaleCase {
  readonly organisations: number;
  readonly workers: number;
  readonly budget: string;
  readonly reserve: number;
  readonly hours: number;
  readonly backfill: number;
  readonly stormHours: number;
  readonly stormRetryAfterMs: number;
}

export const SCALE_CASE: ScaleCase = {
  organisations: 5_000,
  workers: 50,
  budget: '90/1h',
  reserve: 5,
  hours: 12,
  backfill: 10_000,
  stormHours: 2,
  stormRetryAfterMs: 5 * MINUTE_MS,
};

/** A binary heap of items by `at` (timers, messages by visibility). */
class Heap<T extends { at: number; seq: number }> {
  private readonly items: T[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): T | undefined {
    return this.items[0];
  }
  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(a[i] as T, a[parent] as T)) break;
      [a[i], a[parent]] = [a[parent] as T, a[i] as T];
      i = parent;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && before(a[l] as T, a[m] as T)) m = l;
        if (r < a.length && before(a[r] as T, a[m] as T)) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m] as T, a[i] as T];
        i = m;
      }
    }
    return top;
  }
}

function before(a: { at: number; seq: number }, b: { at: number; seq: number }): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** One clock for everything: it moves to the earliest timer once every task is waiting on one. */
class SimClock {
  time = T0;
  private seq = 0;
  private readonly timers = new Heap<{ at: number; seq: number; wake: () => void }>();
  readonly now = (): number => this.time;
  readonly sleep = (ms: number): Promise<void> => new Promise((wake) => this.timers.push({ at: this.time + Math.max(0, ms), seq: this.seq++, wake }));
  /** Runs until `until` (or no timer is left). */
  async run(until: number): Promise<void> {
    for (;;) {
      // Let every task run to its next wait first.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const next = this.timers.peek();
      if (next === undefined || next.at > until) return;
      this.time = next.at;
      while (this.timers.peek()?.at === this.time) this.timers.pop()?.wake();
    }
  }
}

type Kind = 'healthy' | 'backfill' | 'revoked' | 'storm';

interface SimOrg {
  readonly org: Organisation;
  readonly kind: Kind;
  readonly ledger: BudgetLedger;
  backlog: number;
  readonly starts: number[];
  /** Backlog at the storm's end (the storm organisation). */
  backlogAtStormEnd?: number;
  drainedAt?: number;
}

interface Message {
  at: number;
  seq: number;
  readonly id: string;
  readonly body: string;
  readonly sentAt: number;
}

/** The simulation's figures. */
export async function benchOrgsScale(c: ScaleCase = SCALE_CASE): Promise<BenchResult> {
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const clock = new SimClock();
  const spec = shareOf(parseBudget(c.budget), c.reserve);
  const share = spec.requests;
  const stormEnd = T0 + c.stormHours * HOUR_MS;

  const orgs = new Map<string, SimOrg>();
  for (let i = 0; i < c.organisations; i++) {
    const id = `org-${String(i).padStart(4, '0')}`;
    const kind: Kind = i === 0 ? 'backfill' : i === 1 ? 'revoked' : i === 2 ? 'storm' : 'healthy';
    // Three projects a day of 1–8 requests each (a deterministic spread); the storm's organisation a week's.
    const backlog = kind === 'backfill' ? c.backfill : kind === 'storm' ? 3 * 7 * 8 : 3 + ((i * 7919) % 22);
    orgs.set(id, {
      org: { id, apiKey: `mint_${id.replace('-', '_')}_0123456789`, projectIds: ['a', 'b', 'c'].map((p) => `proj_${id}_${p}`) },
      kind,
      ledger: createBudgetLedger(createMemoryStore(), spec, { now: clock.now }),
      backlog,
      starts: [],
    });
  }

  // The queue: messages by the instant they are visible; one receive takes the earliest visible.
  let seq = 0;
  const queue = new Heap<Message>();
  const sentAt = new Map<string, number>();
  const orgQueue: OrganisationQueue = {
    async sendBatch(messages) {
      for (const m of messages) {
        const id = `m${seq}`;
        queue.push({ at: clock.now(), seq: seq++, id, body: m.body, sentAt: clock.now() });
        sentAt.set(id, clock.now());
      }
      return [];
    },
  };
  const ids = [...orgs.keys()].sort();
  const secrets = {
    list: async () => ({ ids, refused: [] }),
    read: async (id: string) => (orgs.get(id) as SimOrg).org,
  };

  const handedBackUntil = new Map<string, { readonly messageId: string; readonly until: number }>();
  let waitedMs = 0;
  let busyMs = 0;
  const startDelays: number[] = [];
  let handbacks = 0;
  let deadLettered = 0;
  /** Where the worker put the message it is running: back on the queue (a handback) or nowhere. */
  let handedBack: { delayMs: number } | undefined;

  // Each organisation's export: its backlog's requests one by one through its gate over its ledger,
  // the ledger's waits capped by the worker (capWaits), as createOrganisationsWorker wires it.
  const exportFor = (org: Organisation, waits: IdleWaits) => {
    const sim = orgs.get(org.id) as SimOrg;
    return async (): Promise<RunResult> => {
      const gate = createBudgetGate(capWaits(sim.ledger, waits, clock.now), {
        now: clock.now,
        sleep: async (ms) => {
          waitedMs += ms;
          await clock.sleep(ms);
        },
      });
      let requests = 0;
      let completed = 0;
      while (sim.backlog > 0) {
        try {
          await gate.take();
        } catch (error) {
          if (error instanceof BudgetExhaustedError) break;
          throw error;
        }
        requests += 1;
        sim.starts.push(clock.now());
        await clock.sleep(LATENCY_MS);
        if (sim.kind === 'revoked') throw new Error('401: the key was revoked');
        if (sim.kind === 'storm' && clock.now() < stormEnd) {
          await gate.rateLimited(c.stormRetryAfterMs);
          continue;
        }
        sim.backlog -= 1;
        completed += 1;
        if (sim.backlog === 0) sim.drainedAt = clock.now();
      }
      // What the worker reads of a run (worker.ts); the rest of a run's summary is the export's.
      return { ok: sim.backlog === 0, completed, pending: sim.backlog, requests } as unknown as RunResult;
    };
  };
  const worker = createWorker({
    secrets,
    exportFor,
    logger: silentLogger,
    now: clock.now,
    handBack: async (_record: WorkerRecord, delayMs: number) => {
      handbacks += 1;
      handedBack = { delayMs: Math.min(delayMs, MAX_HANDBACK_MS) };
    },
    deadLetter: async () => {
      deadLettered += 1;
    },
    handBacks: { claim: async (org, messageId, until) => claimHandBack(handedBackUntil, org, messageId, until, clock.now()) },
  });

  const end = T0 + c.hours * HOUR_MS;
  let stopped = false;
  const workerLoop = async (): Promise<void> => {
    while (!stopped) {
      const next = queue.peek();
      if (next === undefined || next.at > clock.now()) {
        await clock.sleep(next === undefined ? MINUTE_MS : Math.min(MINUTE_MS, next.at - clock.now()));
        continue;
      }
      const message = queue.pop() as Message;
      const started = clock.now();
      const orgId = (JSON.parse(message.body) as { org: string }).org;
      if ((orgs.get(orgId) as SimOrg).kind === 'healthy' && message.sentAt === sentAt.get(message.id)) startDelays.push(started - message.sentAt);
      sentAt.delete(message.id);
      handedBack = undefined;
      const { batchItemFailures } = await worker(
        { Records: [{ messageId: message.id, body: message.body }] },
        { awsRequestId: message.id, getRemainingTimeInMillis: () => 15 * MINUTE_MS },
      );
      const back = handedBack as { delayMs: number } | undefined;
      busyMs += clock.now() - started;
      if (batchItemFailures.length > 0) queue.push({ ...message, at: clock.now() + (back?.delayMs ?? VISIBILITY_MS), seq: seq++ });
    }
  };

  const dispatcher = async (): Promise<void> => {
    for (let hour = 0; hour < c.hours; hour++) {
      const at = T0 + hour * HOUR_MS;
      if (clock.now() < at) await clock.sleep(at - clock.now());
      await dispatchOrganisations(at, { secrets, queue: orgQueue });
    }
  };
  const stormWatch = async (): Promise<void> => {
    await clock.sleep(stormEnd - clock.now());
    for (const sim of orgs.values()) if (sim.kind === 'storm') sim.backlogAtStormEnd = sim.backlog;
  };

  const tasks = [dispatcher(), stormWatch(), ...Array.from({ length: c.workers }, () => workerLoop())];
  await clock.run(end);
  stopped = true;
  await clock.run(end + HOUR_MS);
  void tasks;

  // Requests over each organisation's share in any sliding hour (two pointers over its starts).
  let over = 0;
  let maxInWindow = 0;
  for (const sim of orgs.values()) {
    let lo = 0;
    for (let hi = 0; hi < sim.starts.length; hi++) {
      while ((sim.starts[hi] as number) - (sim.starts[lo] as number) >= HOUR_MS) lo += 1;
      const inWindow = hi - lo + 1;
      maxInWindow = Math.max(maxInWindow, inWindow);
      if (inWindow > share) over += 1;
    }
  }
  startDelays.sort((a, b) => a - b);
  const p99 = startDelays[Math.min(startDelays.length - 1, Math.floor(startDelays.length * 0.99))] ?? 0;
  const storm = [...orgs.values()].find((sim) => sim.kind === 'storm') as SimOrg;
  const backfill = [...orgs.values()].find((sim) => sim.kind === 'backfill') as SimOrg;
  const stormN = storm.backlogAtStormEnd ?? 0;
  const stormWindows = storm.drainedAt === undefined ? Number.POSITIVE_INFINITY : Math.ceil((storm.drainedAt - stormEnd) / HOUR_MS);
  const cpu = process.cpuUsage(cpuStart);
  const cpuS = (cpu.user + cpu.system) / 1e6;
  const healthyLeft = [...orgs.values()].filter((sim) => sim.kind === 'healthy' && sim.backlog > 0).length;
  return {
    figures: {
      'orgs.scale.over_share': judged(
        over,
        'requests',
        '==',
        0,
        `requests beyond an organisation's share (${share}) in any sliding 60 min, over all ${c.organisations}`,
      ),
      'orgs.scale.start_delay_p99': judged(
        p99 / MINUTE_MS,
        'min',
        '<=',
        10,
        `healthy organisations: dispatch → a worker starts the message, p99 (${c.workers} workers)`,
      ),
      'orgs.scale.wait_share': judged(busyMs === 0 ? 0 : waitedMs / busyMs, 'ratio', '<=', 0.01, 'worker time spent sleeping for budget ÷ all worker time'),
      'orgs.scale.storm_windows': judged(
        stormWindows - Math.ceil(stormN / share),
        'windows',
        '<=',
        2,
        `the storm's organisation: windows from the storm's end to its backlog drained (N = ${stormN}) − ⌈N/B⌉`,
      ),
      'orgs.scale.cpu': judged(cpuS, 's', '<=', 60, `CPU time of the simulation: ${c.hours} h of ${c.organisations} organisations on one core`),
      'orgs.scale.max_per_window': info(maxInWindow, 'requests', 'most starts of one organisation in any sliding 60 min'),
      'orgs.scale.healthy_left': info(healthyLeft, 'organisations', 'healthy organisations with backlog left at the end'),
      'orgs.scale.backfill_done': info(c.backfill - backfill.backlog, 'units', `the backfill's units done in ${c.hours} h`),
      'orgs.scale.handbacks': info(handbacks, 'messages', 'messages handed back until their budget had room'),
      'orgs.scale.dead_lettered': info(deadLettered, 'messages', "the revoked organisation's messages, one a run"),
      'orgs.scale.wall': info((performance.now() - wallStart) / 1000, 's', 'real time (a shared machine: the CPU figure is the one judged)'),
    },
    details: { orgsScale: { case: c, share, busyMs, waitedMs, startDelays: startDelays.length, stormN, stormDrainedAt: storm.drainedAt } },
  };
}
