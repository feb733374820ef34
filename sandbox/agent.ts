/**
 * The agent-job side of the sandbox: jobs, the follow-up state machine, job creation and
 * their rate limits.
 *
 * State is evaluated lazily from `now()`: an accepted prompt starts a run that is `active`
 * until `acceptedAt + activeMs`, then shows its outcome. Nothing is scheduled, so a fake
 * clock drives every transition and tests take milliseconds.
 */
import { createHash } from 'node:crypto';
import type { JobStatus } from '../functions/shared/api-enums.js';
import { HOUR_MS } from '../functions/shared/time.js';

/** The job record the API returns. */
export interface JobRecord {
  readonly id: string;
  readonly status: JobStatus;
  readonly source: { readonly repository: string; readonly ref: string };
  readonly model: string;
  readonly prLink: string | null;
  readonly createdAt: string;
  /** ISO 8601 when archived, null otherwise (the spec leaves this open). */
  readonly archivedAt: string | null;
}

/** How the next accepted prompt on a job ends. */
export interface RunScript {
  readonly outcome: 'completed' | 'failed' | 'archived';
  /** For `completed`: the PR link; default a new `…/pull/<n>`; null means "no files changed". */
  readonly prLink?: string | null;
  /** How long the run stays `active`, ms. Default: the sandbox's `agent.activeMs`. */
  readonly activeMs?: number;
  /**
   * The POST response and the first `staleReads` GETs after it show the previous run's
   * terminal status and prLink, as the real service may do right after accepting.
   */
  readonly staleReads?: number;
}

/** A job's full state, for assertions. */
export interface JobState extends JobRecord {
  readonly projectId: string;
  /** Accepted prompts, oldest first (hash only, never the text). */
  readonly prompts: readonly { readonly promptSha256: string; readonly acceptedAt: number }[];
  /** Contract breaches by the caller, e.g. a prompt sent while the job was active. */
  readonly violations: readonly string[];
}

export interface AgentOptions {
  readonly now: () => number;
  /** Default run length, ms. */
  readonly activeMs: number;
  /** Accepted prompts per project in any trailing hour. */
  readonly rateLimitPerHour: number;
  /** Retry-After on the rate limit: undefined = seconds until a slot frees, null = no header. */
  readonly retryAfterSeconds: number | null | undefined;
  /** Whether a project exists (so its seed jobs can be created on first use). */
  readonly hasProject: (projectId: string) => boolean;
}

/** An HTTP answer of the agent endpoints. */
export interface AgentResponse {
  readonly status: number;
  readonly body: JobRecord | { readonly error: string };
  readonly headers?: Readonly<Record<string, string>>;
  /** True when the prompt was accepted (a run started). */
  readonly accepted?: boolean;
}

interface Run {
  readonly acceptedAt: number;
  readonly activeMs: number;
  readonly outcome: 'completed' | 'failed' | 'archived';
  readonly prLink: string | null;
  /** Status and prLink before this run, shown by stale reads. */
  readonly previous: { readonly status: JobStatus; readonly prLink: string | null };
  readonly staleResponse: boolean;
  staleReadsLeft: number;
}

interface Job {
  readonly id: string;
  readonly projectId: string;
  readonly repository: string;
  readonly createdAt: number;
  readonly initial: { status: JobStatus; prLink: string | null; archivedAt: number | null };
  run: Run | undefined;
  nextScript: RunScript | undefined;
  readonly prompts: { promptSha256: string; acceptedAt: number }[];
  readonly violations: string[];
}

/**
 * The job id that scripts the next job CREATED in a project (`scriptNextRun(projectId,
 * NEXT_CREATED_JOB, script)`, or `POST /_sandbox/jobs/{projectId}/@next/script`): a slow job
 * (`activeMs`), a failure, no pull request. `@` is outside the ids' pattern, so no real job
 * has it.
 */
export const NEXT_CREATED_JOB = '@next';

const MODEL = 'claude-sonnet-4-5';
const GITHUB_ORG = 'sandbox-docs';
/** When seed jobs say they were created: fixed, so responses are deterministic. */
const SEED_CREATED_AT = Date.UTC(2026, 0, 5, 9, 30);

export class AgentStore {
  private readonly jobs = new Map<string, Map<string, Job>>();
  private readonly acceptedByProject = new Map<string, number[]>();
  private readonly createdByProject = new Map<string, number[]>();
  private readonly nextCreateScripts = new Map<string, RunScript>();
  private nextPullNumber = 101;
  private nextCreatedJob = 1;

  constructor(private readonly options: AgentOptions) {}

  /** Adds (or replaces) a job. Default status `completed` with no PR, created now. */
  createJob(projectId: string, job: { id: string; status?: JobStatus; prLink?: string | null; createdAt?: number }): void {
    const status = job.status ?? 'completed';
    const now = job.createdAt ?? this.options.now();
    this.projectJobs(projectId).set(job.id, {
      id: job.id,
      projectId,
      repository: `${GITHUB_ORG}/${projectId.replace(/^proj_/, '')}-docs`,
      createdAt: now,
      initial: {
        status,
        prLink: status === 'active' ? null : (job.prLink ?? null),
        archivedAt: status === 'archived' ? now : null,
      },
      run: undefined,
      nextScript: undefined,
      prompts: [],
      violations: [],
    });
  }

  /** Scripts how the next accepted prompt on the job ends (overrides prompt markers). */
  scriptNextRun(projectId: string, jobId: string, script: RunScript): void {
    if (jobId === NEXT_CREATED_JOB) {
      if (!this.options.hasProject(projectId) && !this.jobs.has(projectId)) throw new RangeError(`unknown sandbox project ${projectId}`);
      this.nextCreateScripts.set(projectId, script);
      return;
    }
    const job = this.find(projectId, jobId);
    if (!job) throw new RangeError(`unknown sandbox job ${projectId}/${jobId}`);
    job.nextScript = script;
  }

  /** The job's true current state, with its prompts and violations; undefined if unknown. */
  getJobState(projectId: string, jobId: string): JobState | undefined {
    const job = this.find(projectId, jobId);
    if (!job) return undefined;
    return {
      ...this.view(job, this.options.now()),
      projectId,
      prompts: job.prompts.map((prompt) => ({ ...prompt })),
      violations: [...job.violations],
    };
  }

  /** `GET /v2/agent/{projectId}/job/{id}`. */
  get(projectId: string, jobId: string): AgentResponse {
    const job = this.find(projectId, jobId);
    if (!job) return notFound(projectId, jobId);
    const now = this.options.now();
    const run = job.run;
    if (run && run.staleReadsLeft > 0) {
      run.staleReadsLeft -= 1;
      return { status: 200, body: this.staleView(job, run, now) };
    }
    return { status: 200, body: this.view(job, now) };
  }

  /** `POST /v2/agent/{projectId}/job/{id}/message` with a validated, non-empty prompt. */
  send(projectId: string, jobId: string, prompt: string): AgentResponse {
    const job = this.find(projectId, jobId);
    if (!job) return notFound(projectId, jobId);
    const now = this.options.now();
    const current = this.view(job, now);
    if (current.status === 'active') {
      job.violations.push(
        `prompt sent while the job was active (at ${new Date(now).toISOString()}, run started ${new Date(job.run?.acceptedAt ?? job.createdAt).toISOString()})`,
      );
      return { status: 409, body: { error: 'job is active' } };
    }
    if (current.status === 'archived') {
      return { status: 400, body: { error: `job ${jobId} is archived and cannot take follow-up messages` } };
    }
    const limited = this.rateLimit(projectId, now);
    if (limited) return limited;

    const script = job.nextScript ?? scriptFromPrompt(prompt);
    job.nextScript = undefined;
    const run = this.startRun(job, script, { status: current.status, prLink: current.prLink }, now);
    job.run = run;
    job.prompts.push({ promptSha256: createHash('sha256').update(prompt).digest('hex'), acceptedAt: now });
    // rateLimit() above has just stored this project's trailing-hour list.
    this.acceptedByProject.get(projectId)?.push(now);
    const body = run.staleResponse ? this.staleView(job, run, now) : this.view(job, now);
    return { status: 200, body, accepted: true };
  }

  /**
   * `POST /v2/agent/{projectId}/job` with a validated, non-empty prompt: creates a job whose
   * first run starts at once (`active`, then as scripted: `NEXT_CREATED_JOB`, else the prompt's
   * markers), and answers 201 with it. 404 for an unknown project; 429 beyond the hourly limit
   * (counted apart from follow-up messages, with the same number).
   */
  create(projectId: string, prompt: string): AgentResponse {
    if (!this.options.hasProject(projectId) && !this.jobs.has(projectId)) {
      return { status: 404, body: { error: `project ${projectId} not found` } };
    }
    const now = this.options.now();
    const limited = this.rateLimit(projectId, now, this.createdByProject, 'new jobs');
    if (limited) return limited;
    const id = `job_new_${this.nextCreatedJob++}`;
    this.createJob(projectId, { id, status: 'completed', prLink: null });
    const job = this.find(projectId, id) as Job;
    const script = this.nextCreateScripts.get(projectId) ?? scriptFromPrompt(prompt);
    this.nextCreateScripts.delete(projectId);
    job.run = this.startRun(job, script, { status: 'active', prLink: null }, now);
    job.prompts.push({ promptSha256: createHash('sha256').update(prompt).digest('hex'), acceptedAt: now });
    this.createdByProject.get(projectId)?.push(now);
    return { status: 201, body: this.view(job, now), accepted: true };
  }

  /** The ids of the jobs created over the API in a project, oldest first. */
  createdJobs(projectId: string): string[] {
    return [...(this.jobs.get(projectId)?.keys() ?? [])].filter((id) => id.startsWith('job_new_'));
  }

  private startRun(job: Job, script: RunScript, previous: Run['previous'], now: number): Run {
    const prLink =
      script.outcome === 'completed'
        ? script.prLink !== undefined
          ? script.prLink
          : `https://github.com/${job.repository}/pull/${this.nextPullNumber++}`
        : null;
    return {
      acceptedAt: now,
      activeMs: Math.max(0, script.activeMs ?? this.options.activeMs),
      outcome: script.outcome,
      prLink,
      previous,
      staleResponse: script.staleReads !== undefined,
      staleReadsLeft: Math.max(0, script.staleReads ?? 0),
    };
  }

  private rateLimit(projectId: string, now: number, accepted = this.acceptedByProject, what = 'follow-up messages'): AgentResponse | undefined {
    const recent = (accepted.get(projectId) ?? []).filter((at) => at > now - HOUR_MS);
    accepted.set(projectId, recent);
    if (recent.length < this.options.rateLimitPerHour) return undefined;
    const configured = this.options.retryAfterSeconds;
    const oldest = recent[0] ?? now;
    const seconds = configured === undefined ? Math.max(1, Math.ceil((oldest + HOUR_MS - now) / 1000)) : configured;
    return {
      status: 429,
      body: { error: `rate limit exceeded: at most ${this.options.rateLimitPerHour} ${what} per project per hour` },
      ...(seconds === null ? {} : { headers: { 'retry-after': String(seconds) } }),
    };
  }

  private view(job: Job, now: number): JobRecord {
    const run = job.run;
    const record = (status: JobStatus, prLink: string | null, archivedAt: number | null): JobRecord => ({
      id: job.id,
      status,
      source: { repository: job.repository, ref: 'main' },
      model: MODEL,
      prLink,
      createdAt: new Date(job.createdAt).toISOString(),
      archivedAt: archivedAt === null ? null : new Date(archivedAt).toISOString(),
    });
    if (!run) return record(job.initial.status, job.initial.prLink, job.initial.archivedAt);
    const endsAt = run.acceptedAt + run.activeMs;
    if (now < endsAt) return record('active', null, null);
    return record(run.outcome, run.prLink, run.outcome === 'archived' ? endsAt : null);
  }

  private staleView(job: Job, run: Run, now: number): JobRecord {
    const fresh = this.view(job, now);
    return { ...fresh, status: run.previous.status, prLink: run.previous.prLink };
  }

  private find(projectId: string, jobId: string): Job | undefined {
    const existing = this.jobs.get(projectId);
    if (existing) return existing.get(jobId);
    if (!this.options.hasProject(projectId)) return undefined;
    return this.projectJobs(projectId).get(jobId);
  }

  /** The project's jobs; a known project gets its seed jobs on first use. */
  private projectJobs(projectId: string): Map<string, Job> {
    let jobs = this.jobs.get(projectId);
    if (jobs) return jobs;
    jobs = new Map();
    this.jobs.set(projectId, jobs);
    if (this.options.hasProject(projectId)) {
      const repository = `${GITHUB_ORG}/${projectId.replace(/^proj_/, '')}-docs`;
      const seed = (id: string, status: JobStatus, prLink: string | null): void => {
        jobs?.set(id, {
          id,
          projectId,
          repository,
          createdAt: SEED_CREATED_AT,
          initial: { status, prLink, archivedAt: status === 'archived' ? SEED_CREATED_AT + HOUR_MS : null },
          run: undefined,
          nextScript: undefined,
          prompts: [],
          violations: [],
        });
      };
      for (let n = 1; n <= 3; n++) seed(`job_demo_${n}`, 'completed', `https://github.com/${repository}/pull/${n}`);
      seed('job_archived', 'archived', `https://github.com/${repository}/pull/4`);
    }
    return jobs;
  }
}

/** Prompt markers for demos: `[fail]`, `[archive]`, `[no-changes]`; default completed. */
function scriptFromPrompt(prompt: string): RunScript {
  if (prompt.includes('[fail]')) return { outcome: 'failed' };
  if (prompt.includes('[archive]')) return { outcome: 'archived' };
  if (prompt.includes('[no-changes]')) return { outcome: 'completed', prLink: null };
  return { outcome: 'completed' };
}

function notFound(projectId: string, jobId: string): AgentResponse {
  return { status: 404, body: { error: `job ${jobId} not found in project ${projectId}` } };
}
