/**
 * The sandbox's control API under `/_sandbox/`, for out-of-process use (benchmarks run the
 * sandbox in another process). JSON bodies; no auth; control requests are not logged.
 * - `POST|GET|DELETE /_sandbox/faults` arm, list, clear fault rules (`FaultRule`, or an array).
 * - `GET|DELETE /_sandbox/requests` the request log.
 * - `POST /_sandbox/jobs/{projectId}` (`{id, status?, prLink?}`), `GET /_sandbox/jobs/{projectId}/{jobId}`,
 *   `POST /_sandbox/jobs/{projectId}/{jobId}/script` (`RunScript`).
 * - `GET /_sandbox/budget` → `{budget: BudgetState | null}`; `POST /_sandbox/budget` with
 *   `BudgetOptions` (plus `"reset": true` to forget what was counted); `DELETE` = no budget;
 *   `POST /_sandbox/budget/spend` `{count}` spends budget as another client would → `{spent, budget}`.
 * - `GET /_sandbox/clock` → `{now, offsetMs}`; `POST /_sandbox/clock` `{advanceMs}` or `{now}`
 *   (epoch ms or ISO) moves the sandbox's clock (an offset on the `now` option).
 * - `POST /_sandbox/feedback/{projectId}/{feedbackId}` `{status}` changes a feedback row's status.
 */
import * as v from 'valibot';
import { FEEDBACK_STATUSES, JOB_STATUSES, TERMINAL_JOB_STATUSES } from '../../functions/shared/api-enums.js';
import { describeError } from '../../functions/shared/errors.js';
import type { RunScript } from '../agent.js';
import { parseBudgetOptions } from './budget.js';
import { parseFaultRule } from './faults.js';
import type { SandboxState } from './state.js';

/** A control answer; without a body it is sent with no body at all (e.g. 204). */
export interface ControlAnswer {
  readonly status: number;
  readonly body?: unknown;
}

/** One control request, as a route's handler sees it. */
interface ControlRequest {
  readonly method: string;
  /** The path pattern's groups, URI-decoded (undefined where an optional group did not match). */
  readonly params: readonly (string | undefined)[];
  /** The body as JSON (undefined when empty); throws on malformed JSON (a 400). */
  json(): unknown;
}

interface ControlRoute {
  readonly methods: readonly string[];
  readonly path: RegExp;
  handle(request: ControlRequest, state: SandboxState): ControlAnswer;
}

const JobSeedBody = v.object({
  id: v.pipe(v.string(), v.minLength(1)),
  status: v.optional(v.picklist(JOB_STATUSES)),
  prLink: v.optional(v.nullable(v.string())),
});
const RunScriptBody = v.object({
  outcome: v.picklist(TERMINAL_JOB_STATUSES),
  prLink: v.optional(v.nullable(v.string())),
  activeMs: v.optional(v.pipe(v.number(), v.minValue(0))),
  staleReads: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0))),
});
const BudgetControlBody = v.looseObject({ reset: v.optional(v.boolean()) });
const SpendBody = v.object({ count: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 1) });
const ClockBody = v.object({
  advanceMs: v.optional(v.pipe(v.number(), v.integer())),
  now: v.optional(v.union([v.pipe(v.number(), v.integer()), v.string()])),
});
const FeedbackStatusBody = v.object({ status: v.picklist(FEEDBACK_STATUSES) });

/** The control API (see the header), one row per route; a path and method no row matches is a 404. */
const CONTROL_ROUTES: readonly ControlRoute[] = [
  {
    methods: ['POST'],
    path: /^\/_sandbox\/faults$/,
    handle: ({ json }, { faults }) => {
      const input = json();
      for (const rule of (Array.isArray(input) ? input : [input]).map(parseFaultRule)) faults.add(rule);
      return { status: 201, body: { faults: faults.list() } };
    },
  },
  { methods: ['GET'], path: /^\/_sandbox\/faults$/, handle: (_, { faults }) => ({ status: 200, body: { faults: faults.list() } }) },
  {
    methods: ['DELETE'],
    path: /^\/_sandbox\/faults$/,
    handle: (_, { faults }) => {
      faults.clear();
      return { status: 204 };
    },
  },
  { methods: ['GET'], path: /^\/_sandbox\/requests$/, handle: (_, { requests }) => ({ status: 200, body: requests.entries }) },
  {
    methods: ['DELETE'],
    path: /^\/_sandbox\/requests$/,
    handle: (_, { requests }) => {
      requests.clear();
      return { status: 204 };
    },
  },
  { methods: ['GET'], path: /^\/_sandbox\/budget$/, handle: (_, { budget }) => ({ status: 200, body: { budget: budget.state() } }) },
  {
    methods: ['POST'],
    path: /^\/_sandbox\/budget$/,
    handle: ({ json }, { budget }) => {
      const { reset, ...options } = v.parse(BudgetControlBody, json());
      budget.set(parseBudgetOptions(options));
      if (reset) budget.reset();
      return { status: 200, body: { budget: budget.state() } };
    },
  },
  {
    methods: ['DELETE'],
    path: /^\/_sandbox\/budget$/,
    handle: (_, { budget }) => {
      budget.set(null);
      return { status: 204 };
    },
  },
  {
    methods: ['POST'],
    path: /^\/_sandbox\/budget\/spend$/,
    handle: ({ json }, { budget }) => {
      const { count } = v.parse(SpendBody, json() ?? {});
      return { status: 200, body: { spent: budget.spend(count), budget: budget.state() } };
    },
  },
  {
    methods: ['GET', 'POST'],
    path: /^\/_sandbox\/clock$/,
    handle: ({ method, json }, { clock }) => {
      if (method === 'POST') {
        const body = v.parse(ClockBody, json());
        if (body.advanceMs !== undefined) clock.advance(body.advanceMs);
        if (body.now !== undefined) {
          const target = typeof body.now === 'number' ? body.now : Date.parse(body.now);
          if (Number.isNaN(target)) return { status: 400, body: { error: 'now: use epoch ms or an ISO 8601 timestamp' } };
          clock.moveTo(target);
        }
      }
      return { status: 200, body: { now: clock.now(), offsetMs: clock.offsetMs } };
    },
  },
  {
    methods: ['POST'],
    path: /^\/_sandbox\/feedback\/([^/]+)\/([^/]+)$/,
    handle: ({ params: [projectId, feedbackId], json }, { data }) => {
      const { status } = v.parse(FeedbackStatusBody, json());
      data.generators.feedback.setStatus(projectId as string, feedbackId as string, status);
      return { status: 204 };
    },
  },
  {
    methods: ['POST'],
    path: /^\/_sandbox\/jobs\/([^/]+)$/,
    handle: ({ params: [projectId], json }, { agent }) => {
      const job = v.parse(JobSeedBody, json());
      agent.createJob(projectId as string, {
        id: job.id,
        ...(job.status ? { status: job.status } : {}),
        ...(job.prLink !== undefined ? { prLink: job.prLink } : {}),
      });
      return { status: 201, body: agent.getJobState(projectId as string, job.id) };
    },
  },
  {
    methods: ['POST'],
    path: /^\/_sandbox\/jobs\/([^/]+)\/([^/]+)\/script$/,
    handle: ({ params: [projectId, jobId], json }, { agent }) => {
      const script = v.parse(RunScriptBody, json());
      agent.scriptNextRun(projectId as string, jobId as string, script as RunScript);
      return { status: 204 };
    },
  },
  {
    methods: ['GET'],
    path: /^\/_sandbox\/jobs\/([^/]+)\/([^/]+)$/,
    handle: ({ params: [projectId, jobId] }, { agent }) => {
      const job = agent.getJobState(projectId as string, jobId as string);
      return job ? { status: 200, body: job } : { status: 404, body: { error: `job ${jobId} not found in project ${projectId}` } };
    },
  },
];

/** Answers a control request: 404 when no route matches, 400 naming the problem when the body or a path part is bad. */
export function answerControl(state: SandboxState, method: string, pathname: string, rawBody: string): ControlAnswer {
  const json = (): unknown => (rawBody.trim() === '' ? undefined : JSON.parse(rawBody));
  const path = pathname.replace(/\/+$/, '');
  try {
    for (const route of CONTROL_ROUTES) {
      if (!route.methods.includes(method)) continue;
      const match = route.path.exec(path);
      if (!match) continue;
      const params = match.slice(1).map((part) => (part === undefined ? undefined : decodeURIComponent(part)));
      return route.handle({ method, params, json }, state);
    }
    return { status: 404, body: { error: `no sandbox control route ${method} ${path}` } };
  } catch (error) {
    const message = v.isValiError(error) ? error.issues.map((issue) => `${v.getDotPath(issue) ?? 'body'}: ${issue.message}`).join('; ') : describeError(error);
    return { status: 400, body: { error: message } };
  }
}
