/**
 * The local API sandbox: one node:http server on 127.0.0.1 implementing every analytics
 * endpoint of the service (visitors, views, searches, feedback, feedback by page, assistant
 * conversations and caller stats) and the agent follow-up endpoints, with seeded data,
 * optional latency, fault injection, an optional request budget and a request log, plus a
 * small unauthenticated control API under `/_sandbox/` for out-of-process use (control.ts).
 *
 * Order of checks for an API request: route → auth (401/403) → the request budget
 * (analytics only: 429 beyond it) → project and input (404/400) → the next matching fault,
 * if any → the normal answer. So a fault never hides a bad key or a bad query, faults are
 * only consumed by requests that would otherwise succeed, and every authenticated analytics
 * request spends budget, as at the service.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PageVisitors, VisitorCounts } from '../../functions/shared/api-types.js';
import type { FeedbackStatus, JobStatus } from '../../functions/shared/api-enums.js';
import { parseDay } from '../../functions/shared/dates.js';
import { describeError } from '../../functions/shared/errors.js';
import { AgentStore, type JobState, type RunScript } from '../agent.js';
import { answerAgent } from '../agent-routes.js';
import { createRandom } from '../generators/hash.js';
import { DEFAULT_PROJECTS, type ProjectSeed } from '../generators/projects.js';
import type { PlantedFix } from '../generators/planted-fixes.js';
import { Datasets, type SandboxData } from '../generators/registry.js';
import { AnalyticsRoutes } from './analytics-routes.js';
import { createAuthCheck, SANDBOX_API_KEY, type AuthCheck } from './auth.js';
import { RequestBudget, type BudgetOptions, type BudgetState } from './budget.js';
import { answerControl } from './control.js';
import { FaultQueue, type FaultRule } from './faults.js';
import { createExchange, readBody, RequestLog, writeAnswer, writeEmpty, type RequestLogEntry } from './http.js';
import { matchRoute } from './routes.js';
import { Delays, SandboxClock, type SandboxState } from './state.js';

export interface SandboxOptions {
  /** TCP port; default 0 (ephemeral). The host is always 127.0.0.1. */
  readonly port?: number;
  /** The key accepted. Default `SANDBOX_API_KEY`. */
  readonly apiKey?: string;
  /**
   * Keys accepted besides `apiKey` (organisations each with its key); the request log's `keyIndex`
   * says which one a request carried (0: `apiKey`, 1: the first of these). Default none.
   */
  readonly moreApiKeys?: readonly string[];
  /** Seed of the generated data; default 42. */
  readonly seed?: number;
  /** Default `DEFAULT_PROJECTS`; `proj_synth_<N>` always exists as well. */
  readonly projects?: readonly ProjectSeed[];
  /** Delay before each API response, ms (fixed or uniform in [min, max]); default 0. */
  readonly latencyMs?: number | { readonly min: number; readonly max: number };
  /**
   * The sandbox's clock, epoch ms; default Date.now. Drives everything time-dependent: the
   * request budget and its Retry-After, the agent state machine and its rate limit, the
   * request log, the default date window (through today), HTTP-date Retry-After of faults.
   * (Latency and `slow` faults are real delays.) `POST /_sandbox/clock` adds an offset to it.
   */
  readonly now?: () => number;
  /**
   * The service's shared analytics rate limit (every analytics endpoint together, not the
   * agent ones): beyond `requests` per window, 429 `{error}`. Default: none (unlimited).
   * Changeable at run time (`setBudget`, `POST /_sandbox/budget`). See budget.ts.
   */
  readonly budget?: BudgetOptions;
  readonly agent?: {
    /** How long a run stays `active`, ms; default 2000. */
    readonly activeMs?: number;
    /** Accepted prompts per project per trailing hour; default 100. */
    readonly rateLimitPerHour?: number;
    /** Retry-After of the agent rate limit: default seconds until a slot frees; null = no header. */
    readonly retryAfterSeconds?: number | null;
  };
  /**
   * Drift mode: every answer as after the service's next change (new fields and enum values,
   * `drift.ts`); the `drift` fault kind does the same for matching requests only. Default false.
   */
  readonly drift?: boolean;
  /** Oldest request-log entries are dropped beyond this many; default 100,000. */
  readonly requestLogLimit?: number;
  /**
   * Plant past fixes as of this day (`YYYY-MM-DD`): completed agent jobs made for pages' thumbs
   * down, one whose page's rate falls by a known share after it and one that changed nothing
   * (generators/planted-fixes.ts). Default none: the data as without them.
   */
  readonly fixesAsOf?: string;
}

export interface Sandbox {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  readonly url: string;
  readonly port: number;
  readonly apiKey: string;
  /** The configured projects' ids (`proj_synth_<N>` also exists but is not listed). */
  readonly projectIds: readonly string[];
  /** The past fixes planted in its data, their jobs served by the agent API (none without `fixesAsOf`). */
  readonly plantedFixes: readonly PlantedFix[];
  /** Stops listening, drops open connections and wakes pending delays. */
  close(): Promise<void>;
  /** Live log of API requests (control requests are not logged). */
  readonly requests: RequestLogEntry[];
  clearRequests(): void;
  /** Arms a fault; throws ConfigError when the rule is invalid. */
  addFault(rule: FaultRule): void;
  clearFaults(): void;
  /** What a correct visitors export of `[day, day+1)` must contain: totals and every row, in API order. */
  expectedDay(projectId: string, day: string): { totals: VisitorCounts; visitors: PageVisitors[] };
  /**
   * The expected rows of every dataset for a (dataset, project, day), computed like the
   * endpoints compute them: e.g. `sandbox.data.rows('assistant', 'proj_small', '2026-01-14')`.
   */
  readonly data: SandboxData;
  /** A feedback row's status changes, as when a person changes it in the dashboard. */
  setFeedbackStatus(projectId: string, feedbackId: string, status: FeedbackStatus): void;
  /** Replaces the request budget (null: unlimited); what was counted still counts. Throws ConfigError when invalid. */
  setBudget(budget: BudgetOptions | null): void;
  /** The budget by the sandbox's clock; null when unlimited. */
  budgetState(): BudgetState | null;
  /** Forgets every request counted against the budget. */
  resetBudget(): void;
  /**
   * Spends `count` (default 1) requests of the budget now, as another tool of the
   * organisation would (not logged); returns how many fitted. Calling any analytics
   * endpoint with the key spends budget the same way.
   */
  spendBudget(count?: number): number;
  /** The sandbox's clock now (the `now` option plus any offset set over the control API). */
  now(): number;
  /** Adds or replaces a job (default status `completed`, no PR). */
  createJob(projectId: string, job: { id: string; status?: JobStatus; prLink?: string | null }): void;
  /** Scripts the outcome of the next accepted prompt on a job. */
  scriptNextRun(projectId: string, jobId: string, script: RunScript): void;
  /** The job's true state (ignores stale reads), with prompt hashes and violations. */
  getJobState(projectId: string, jobId: string): JobState | undefined;
}

/** Starts the sandbox on 127.0.0.1 and resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const apiKey = options.apiKey ?? SANDBOX_API_KEY;
  const seed = options.seed ?? 42;
  const projects = options.projects ?? DEFAULT_PROJECTS;
  const state = createState(options, new Datasets({ seed, projects, ...(options.fixesAsOf !== undefined ? { fixesAsOf: options.fixesAsOf } : {}) }));
  // The planted fixes' jobs: completed, their pull requests merged, on the day they say.
  for (const fix of state.data.planted) {
    state.agent.createJob(fix.projectId, { id: fix.jobId, status: 'completed', prLink: fix.prLink, createdAt: Date.parse(`${fix.completedDay}T09:00:00Z`) });
  }
  const handle = createRequestHandler(state, createAuthCheck(apiKey, options.moreApiKeys), createLatency(options.latencyMs ?? 0, createRandom(seed ^ 0x5eed)));
  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      // A bug in the sandbox: answer 500 without echoing request data.
      if (!res.headersSent && !res.destroyed) {
        writeAnswer(res, { status: 500, body: { error: 'sandbox internal error', details: [{ message: describeError(error) }] } });
      }
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  const { clock, delays, data, budget, agent, faults, requests } = state;
  const sandbox: Sandbox = {
    url: `http://127.0.0.1:${port}`,
    port,
    apiKey,
    projectIds: projects.map((project) => project.id),
    plantedFixes: data.planted,
    requests: requests.entries,
    async close() {
      if (delays.closed) return;
      delays.close();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await stopped;
    },
    clearRequests() {
      requests.clear();
    },
    addFault(rule) {
      faults.add(rule);
    },
    clearFaults() {
      faults.clear();
    },
    expectedDay(projectId, day) {
      const { totals, rows } = data.day('visitors', projectId, parseDay(day, 'day'));
      return { totals, visitors: rows };
    },
    data,
    setFeedbackStatus(projectId, feedbackId, status) {
      data.generators.feedback.setStatus(projectId, feedbackId, status);
    },
    setBudget(options) {
      budget.set(options);
    },
    budgetState() {
      return budget.state();
    },
    resetBudget() {
      budget.reset();
    },
    spendBudget(count = 1) {
      return budget.spend(count);
    },
    now: clock.now,
    createJob(projectId, job) {
      agent.createJob(projectId, job);
    },
    scriptNextRun(projectId, jobId, script) {
      agent.scriptNextRun(projectId, jobId, script);
    },
    getJobState(projectId, jobId) {
      return agent.getJobState(projectId, jobId);
    },
  };
  return sandbox;
}

/** The state every piece of the sandbox works on, from the options. */
function createState(options: SandboxOptions, data: Datasets): SandboxState {
  const clock = new SandboxClock(options.now ?? Date.now);
  return {
    clock,
    delays: new Delays(),
    data,
    budget: new RequestBudget(clock.now, options.budget),
    agent: new AgentStore({
      now: clock.now,
      activeMs: options.agent?.activeMs ?? 2_000,
      rateLimitPerHour: options.agent?.rateLimitPerHour ?? 100,
      retryAfterSeconds: options.agent?.retryAfterSeconds,
      hasProject: (projectId) => data.hasProject(projectId),
    }),
    faults: new FaultQueue(),
    requests: new RequestLog(options.requestLogLimit ?? 100_000),
    drift: options.drift === true,
  };
}

/**
 * The server's request handler: a control request goes to the control API; an API request
 * is logged, waits the latency, then goes through the order of checks in the header (route,
 * auth, body size) to the analytics or agent routes.
 */
function createRequestHandler(state: SandboxState, checkAuth: AuthCheck, latency: () => number): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const analytics = new AnalyticsRoutes(state);
  return async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const rawBody = await readBody(req);
    if (url.pathname.startsWith('/_sandbox/')) {
      const answer = rawBody === undefined ? { status: 413, body: { error: 'body too large' } } : answerControl(state, method, url.pathname, rawBody);
      return answer.body === undefined ? writeEmpty(res, answer.status) : writeAnswer(res, { status: answer.status, body: answer.body });
    }
    const target = matchRoute(method, url.pathname);
    const entry = state.requests.add(method, target, url.searchParams, state.clock.now());
    await state.delays.sleep(latency());
    const exchange = createExchange(req, res, entry);
    const { send } = exchange;
    if (target.kind === 'other') return send({ status: target.status, body: { error: target.error } });
    const denied = checkAuth(req.headers.authorization);
    if (denied) return send(denied);
    entry.keyIndex = checkAuth.keyIndex(req.headers.authorization);
    if (rawBody === undefined) return send({ status: 413, body: { error: 'request body too large (limit 1 MiB)' } });
    if (target.kind === 'analytics') return analytics.answer(target.route, target.projectId, url.searchParams, exchange);
    return answerAgent(state, target.route, target.projectId, target.jobId, rawBody, exchange);
  };
}

/** The delay before each API response, ms: fixed, or uniform in [min, max] by the seeded `random`. */
function createLatency(latency: NonNullable<SandboxOptions['latencyMs']>, random: () => number): () => number {
  return () => (typeof latency === 'number' ? latency : latency.min + random() * Math.max(0, latency.max - latency.min));
}
