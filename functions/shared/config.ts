/**
 * The one place that reads the environment. Handlers and the CLI call `loadConfig(process.env)`
 * once and pass the typed, frozen `Config` on; nothing else looks at `process.env`.
 *
 * An empty or blank variable counts as unset (`FOO= cmd` is a common way to "unset" in a
 * shell). Every problem is a `ConfigError` with one line that names the variable and says
 * what to do; the API key is never echoed.
 */
import { inspect } from 'node:util';
import * as v from 'valibot';
import { DEFAULT_BUDGET, parseBudget, type BudgetSpec } from './budget-spec.js';
import { DATASET_NAMES, isDatasetName, type DatasetName } from './catalog.js';
import { parseDestinationTarget } from './destination-target.js';
import { ConfigError } from './errors.js';

export const DEFAULT_API_URL = 'https://api.mintlify.com';

/**
 * Ids (projects, jobs, request ids) as the API's paths accept them, and as they are safe in
 * S3 keys and file names. The one pattern for the functions and the infra.
 */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
export const PROJECT_ID_PATTERN = ID_PATTERN;

/**
 * Every default of the configuration, in one place: the schema below, the infra (which passes
 * some of them to the functions, so a deploy without a context value gets exactly what a local
 * run gets) and the docs read them here.
 */
export const CONFIG_DEFAULTS = {
  apiUrl: DEFAULT_API_URL,
  destination: './data',
  budget: DEFAULT_BUDGET,
  healDays: 7,
  refreshDays: 7,
  settleHours: 2,
  maxPages: 10_000,
  apiTimeoutMs: 30_000,
  checkpointMaxAgeHours: 24,
  feedbackContact: false,
  followUpMaxWaitHours: 24,
  followUpMaxDeferMinutes: 120,
  anomalyDrop: 0.5,
  anomalyRise: 3,
} as const;

export interface Config {
  /** Admin key from `MINTLIFY_API_KEY` (CLI/local). Absent: use the secret, or the sandbox. */
  readonly apiKey?: string;
  /** Secrets Manager secret holding the key (Lambda), `MINTLIFY_API_KEY_SECRET_ARN`. */
  readonly apiKeySecretArn?: string;
  /** API base URL without a trailing slash. @default 'https://api.mintlify.com' */
  readonly apiUrl: string;
  /** Projects to export, trimmed, de-duplicated, in the given order. May be empty. */
  readonly projectIds: readonly string[];
  /** `s3://bucket/prefix` or a local directory. @default './data' */
  readonly destination: string;
  /**
   * Caps the rows asked for per request (1–1000). Unset: each endpoint's largest `limit`
   * (250, 100 or 1000), which is what production wants — every request counts against a
   * small budget. Tests and benchmarks set it to make many pages out of little data.
   */
  readonly pageLimit?: number;
  /** Recent days without a manifest that the nightly run re-exports, 0–31. @default 7 */
  readonly healDays: number;
  /** Hard cap of pages per project per day; passing it fails the day. @default 10_000 */
  readonly maxPages: number;
  /** Per-request timeout, ms. @default 30_000 */
  readonly apiTimeoutMs: number;
  /** `ANALYTICS_BUDGET`: analytics requests allowed to start in any sliding window. @default 90/1h */
  readonly budget: BudgetSpec;
  /**
   * `ANALYTICS_BUDGET` is set (not blank): `budget` is what the user asked for, not the default.
   * The CLI's export against the embedded sandbox runs unpaced unless it is.
   */
  readonly budgetSet: boolean;
  /** `EXPORT_SETTLE_HOURS`: a day is due this long after it ends (late events), 0–72. @default 2 */
  readonly settleHours: number;
  /** `EXPORT_DATASETS`: datasets to export, in the given order. @default every dataset */
  readonly datasets: readonly DatasetName[];
  /** `EXPORT_FEEDBACK_CONTACT`: write feedback's `contact` (personal data). @default false */
  readonly feedbackContact: boolean;
  /** `EXPORT_REFRESH_DAYS`: recent days whose `feedback` is re-exported once a day (status changes later), 0–31. @default 7 */
  readonly refreshDays: number;
  /** `EXPORT_CHECKPOINT_MAX_AGE_HOURS`: an older checkpoint restarts its unit, 1–168. @default 24 */
  readonly checkpointMaxAgeHours: number;
  /** `EXPORT_STATE_TABLE`: DynamoDB table of the budget ledger, leases and backlog (AWS). */
  readonly stateTable?: string;
  /** `EXPORT_STATE_DIR`: local folder of the budget ledger and leases when there is no table. */
  readonly stateDir?: string;
  /** DynamoDB table holding follow-up state, when the consumer runs with one. */
  readonly followUpStateTable?: string;
  /** Queue where malformed follow-up messages are sent at once. */
  readonly followUpDeadLetterQueueUrl?: string;
  /** How long a follow-up is polled before it is recorded as `timed_out`, hours. @default 24 */
  readonly followUpMaxWaitHours: number;
  /**
   * `FOLLOWUP_MAX_DEFER_MINUTES`: a follow-up not sent this long after its first attempt is
   * rejected. Unset: the follow-up consumer's default (functions/follow-up/settings.ts).
   */
  readonly followUpMaxDeferMinutes?: number;
  /**
   * `FOLLOWUP_OUTCOMES_TOPIC_ARN`: SNS topic every follow-up outcome record is also published
   * to (attributes `status`, `projectId`, `jobId`). Unset: outcomes are not published.
   */
  readonly followUpOutcomesTopicArn?: string;
  /** `ANOMALY_DROP`: a day's figure below this times its usual level is an anomaly (0–1). @default 0.5 */
  readonly anomalyDrop: number;
  /** `ANOMALY_RISE`: a day's figure above this times its usual level is an anomaly (> 1). @default 3 */
  readonly anomalyRise: number;
  /**
   * `INSIGHTS_TOPIC_ARN`: SNS topic of the weekly report digest, anomalies and stale datasets
   * (attribute `kind`). Unset: the insights functions refuse to start.
   */
  readonly insightsTopicArn?: string;
  /**
   * `AWS_ENDPOINT_URL_SQS` (or `AWS_ENDPOINT_URL`) is set: SQS calls must go to that endpoint,
   * not to the host a queue URL names (the SDK prefers the queue URL's host unless told
   * otherwise, and emulators name hosts that do not resolve).
   */
  readonly sqsEndpointOverridden: boolean;
}

// --- validators shared with the CLI and the API client ------------------------------------

const KEY_PREFIX = 'mint_';
const ASSISTANT_KEY_PREFIX = 'mint_dsc_';
/** Visible ASCII only: anything else cannot go in an HTTP header, and fetch would echo it. */
const HEADER_SAFE = /^[\x21-\x7e]+$/;

/**
 * Checks that `key` looks like a Mintlify admin key and returns it trimmed (secrets pasted
 * with a newline are common). Messages never contain the key — at most its length.
 *
 * @param source what to name in messages (the env var, or the secret).
 */
export function validateApiKey(key: string, source = 'MINTLIFY_API_KEY'): string {
  const trimmed = key.trim();
  if (trimmed === '') throw new ConfigError(`${source} is empty: set it to an admin API key (mint_…)`);
  if (trimmed.startsWith(ASSISTANT_KEY_PREFIX)) {
    throw new ConfigError(`${source} is an assistant key (mint_dsc_…), which cannot call the admin API: create an admin key on the dashboard's API keys page`);
  }
  if (!trimmed.startsWith(KEY_PREFIX)) {
    throw new ConfigError(
      `${source} must be an admin API key starting with mint_ (the value given, ${trimmed.length} characters, does not): copy it from the dashboard's API keys page`,
    );
  }
  if (trimmed.length <= KEY_PREFIX.length || !HEADER_SAFE.test(trimmed)) {
    throw new ConfigError(
      `${source} is not a valid key (${trimmed.length} characters, or it contains spaces/control characters): copy it again from the dashboard's API keys page`,
    );
  }
  return trimmed;
}

/**
 * Whether `hostname` names this machine by convention: 127.0.0.0/8, `localhost`, `*.localhost`
 * (RFC 6761) or [::1]. A name is not checked against what it resolves to: fine for choosing a
 * local default (the follow-up consumer's sandbox for an emulator's queue), never enough to
 * send a bearer token over plain http — see `allowsPlainHttp`.
 */
export function isLoopback(hostname: string): boolean {
  return allowsPlainHttp(hostname) || hostname.endsWith('.localhost');
}

/**
 * Whether the key may travel over plain http to `hostname` (a WHATWG URL's hostname, so numeric
 * forms like `127.1` are already `127.0.0.1`): only a literal loopback address (127.0.0.0/8,
 * [::1]) or `localhost`, which resolvers answer with loopback themselves. Other `*.localhost`
 * names are refused: nothing here checks what they resolve to, and resolving at start-up would
 * not bind the connection made later to that answer.
 */
export function allowsPlainHttp(hostname: string): boolean {
  if (hostname === 'localhost' || hostname === '[::1]') return true;
  const octets = hostname.split('.');
  return octets.length === 4 && octets[0] === '127' && octets.every((o) => /^\d{1,3}$/.test(o) && Number(o) <= 255);
}

/**
 * Checks an API base URL and returns it without trailing slashes. https is required, except
 * for loopback (127.0.0.0/8, localhost, [::1]) where the local sandbox speaks plain http: the
 * key is a bearer token and must not cross a network in clear text.
 */
export function validateApiUrl(url: string, source = 'MINTLIFY_API_URL'): string {
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    throw new ConfigError(`${source} is not a URL: use e.g. ${DEFAULT_API_URL}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ConfigError(`${source} must use https (got ${parsed.protocol}): use e.g. ${DEFAULT_API_URL}`);
  }
  if (parsed.protocol === 'http:' && !allowsPlainHttp(parsed.hostname)) {
    throw new ConfigError(
      `${source} uses plain http for ${parsed.hostname}: use https (http is allowed only for 127.0.0.0/8, localhost and [::1]; other *.localhost names are not)`,
    );
  }
  if (parsed.username || parsed.password) {
    throw new ConfigError(`${source} must not contain credentials: pass the key in MINTLIFY_API_KEY instead`);
  }
  if (parsed.search || parsed.hash) {
    throw new ConfigError(`${source} must not have a query or fragment: give only the base URL, e.g. ${DEFAULT_API_URL}`);
  }
  return `${parsed.origin}${parsed.pathname.replace(/\/+$/, '')}`;
}

const TOPIC_ARN = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(?:\.fifo)?$/;

/** Checks an SNS topic ARN (the outcomes or insights topic; `output` names the stack output) and returns it trimmed. */
export function validateTopicArn(arn: string, source = 'FOLLOWUP_OUTCOMES_TOPIC_ARN', output = 'FollowUpOutcomesTopicArn'): string {
  const trimmed = arn.trim();
  if (!TOPIC_ARN.test(trimmed)) {
    throw new ConfigError(`${source} is not an SNS topic ARN: use arn:aws:sns:<region>:<account>:<topic> (the stack output ${output})`);
  }
  return trimmed;
}

/** Validates one project id (the same rule the config applies to MINTLIFY_PROJECT_IDS). */
export function validateProjectId(id: string, source = 'project id'): string {
  if (!PROJECT_ID_PATTERN.test(id)) {
    throw new ConfigError(`${source} "${id.slice(0, 40)}" is not a project id: use 1–128 letters, digits, _ or - (copy it from the dashboard's API keys page)`);
  }
  return id;
}

// --- the environment schema ----------------------------------------------------------------

/** Throws inside a valibot transform so the first problem becomes the message. */
function fail(message: string): never {
  throw new ConfigError(message);
}

function wholeNumber(name: string, raw: string, min: number, max: number, fallback: number | string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    fail(`${name} must be a whole number from ${min} to ${max} (got "${raw.slice(0, 20)}"): fix or unset it (default ${fallback})`);
  }
  return Number(raw);
}

function integerVar(name: string, min: number, max: number, fallback: number) {
  return v.pipe(
    v.optional(v.string(), String(fallback)),
    v.transform((raw) => wholeNumber(name, raw, min, max, fallback)),
  );
}

/** A comma-separated list of dataset names (duplicates dropped, order kept). */
export function parseDatasets(raw: string, source: string): DatasetName[] {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.find((name) => !isDatasetName(name));
  if (unknown !== undefined || names.length === 0) {
    fail(
      `${source} ${unknown === undefined ? 'is empty' : `names an unknown dataset "${unknown.slice(0, 30)}"`}: use a comma-separated list of ${DATASET_NAMES.join(', ')}`,
    );
  }
  return [...new Set(names as DatasetName[])];
}

function numberVar(name: string, min: number, max: number, fallback: number) {
  return v.pipe(
    v.optional(v.string(), String(fallback)),
    v.transform((raw) => {
      const value = /^\d+(?:\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
      if (!(value > min && value <= max)) {
        fail(`${name} must be a number above ${min} and at most ${max} (got "${raw.slice(0, 20)}"): fix or unset it (default ${fallback})`);
      }
      return value;
    }),
  );
}

/** A Secrets Manager secret ARN (the infra's context also requires the complete ARN's 6-character suffix). */
export const SECRET_ARN_PATTERN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
/** An S3 bucket name: 3–63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit. */
export const BUCKET_NAME_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const SECRET_ARN = SECRET_ARN_PATTERN;
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

const EnvSchema = v.object({
  MINTLIFY_API_KEY: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => validateApiKey(raw)),
    ),
  ),
  MINTLIFY_API_KEY_SECRET_ARN: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) =>
        SECRET_ARN.test(raw)
          ? raw
          : fail('MINTLIFY_API_KEY_SECRET_ARN is not a Secrets Manager ARN: use arn:aws:secretsmanager:<region>:<account>:secret:<name>'),
      ),
    ),
  ),
  MINTLIFY_API_URL: v.pipe(
    v.optional(v.string(), CONFIG_DEFAULTS.apiUrl),
    v.transform((raw) => validateApiUrl(raw)),
  ),
  MINTLIFY_PROJECT_IDS: v.pipe(
    v.optional(v.string(), ''),
    v.transform((raw) => {
      const ids = raw
        .split(',')
        .map((id) => id.trim())
        .filter((id) => id !== '');
      for (const id of ids) validateProjectId(id, 'MINTLIFY_PROJECT_IDS entry');
      return [...new Set(ids)];
    }),
  ),
  EXPORT_DESTINATION: v.pipe(
    v.optional(v.string(), CONFIG_DEFAULTS.destination),
    v.transform((raw) => {
      parseDestinationTarget(raw, 'EXPORT_DESTINATION');
      return raw;
    }),
  ),
  EXPORT_PAGE_LIMIT: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => wholeNumber('EXPORT_PAGE_LIMIT', raw, 1, 1000, "each endpoint's maximum")),
    ),
  ),
  ANALYTICS_BUDGET: v.pipe(
    v.optional(v.string(), CONFIG_DEFAULTS.budget),
    v.transform((raw) => parseBudget(raw)),
  ),
  EXPORT_SETTLE_HOURS: integerVar('EXPORT_SETTLE_HOURS', 0, 72, CONFIG_DEFAULTS.settleHours),
  EXPORT_DATASETS: v.pipe(
    v.optional(v.string(), DATASET_NAMES.join(',')),
    v.transform((raw) => parseDatasets(raw, 'EXPORT_DATASETS')),
  ),
  EXPORT_FEEDBACK_CONTACT: v.pipe(
    v.optional(v.string(), String(CONFIG_DEFAULTS.feedbackContact)),
    v.transform((raw) => (raw === 'true' ? true : raw === 'false' ? false : fail(`EXPORT_FEEDBACK_CONTACT must be true or false (got "${raw.slice(0, 20)}")`))),
  ),
  EXPORT_REFRESH_DAYS: integerVar('EXPORT_REFRESH_DAYS', 0, 31, CONFIG_DEFAULTS.refreshDays),
  EXPORT_CHECKPOINT_MAX_AGE_HOURS: integerVar('EXPORT_CHECKPOINT_MAX_AGE_HOURS', 1, 168, CONFIG_DEFAULTS.checkpointMaxAgeHours),
  EXPORT_STATE_TABLE: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => (TABLE_NAME.test(raw) ? raw : fail('EXPORT_STATE_TABLE is not a DynamoDB table name: use 3–255 letters, digits, _ . or -'))),
    ),
  ),
  EXPORT_STATE_DIR: v.optional(v.string()),
  EXPORT_HEAL_DAYS: integerVar('EXPORT_HEAL_DAYS', 0, 31, CONFIG_DEFAULTS.healDays),
  EXPORT_MAX_PAGES: integerVar('EXPORT_MAX_PAGES', 1, 1_000_000, CONFIG_DEFAULTS.maxPages),
  API_TIMEOUT_MS: integerVar('API_TIMEOUT_MS', 100, 900_000, CONFIG_DEFAULTS.apiTimeoutMs),
  FOLLOWUP_STATE_TABLE: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => (TABLE_NAME.test(raw) ? raw : fail('FOLLOWUP_STATE_TABLE is not a DynamoDB table name: use 3–255 letters, digits, _ . or -'))),
    ),
  ),
  FOLLOWUP_DEAD_LETTER_QUEUE_URL: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => {
        let url: URL | undefined;
        try {
          url = new URL(raw);
        } catch {
          url = undefined;
        }
        return url && (url.protocol === 'https:' || url.protocol === 'http:')
          ? raw
          : fail('FOLLOWUP_DEAD_LETTER_QUEUE_URL is not a queue URL: use https://sqs.<region>.amazonaws.com/<account>/<queue>');
      }),
    ),
  ),
  FOLLOWUP_MAX_WAIT_HOURS: numberVar('FOLLOWUP_MAX_WAIT_HOURS', 0, 336, CONFIG_DEFAULTS.followUpMaxWaitHours),
  FOLLOWUP_MAX_DEFER_MINUTES: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => wholeNumber('FOLLOWUP_MAX_DEFER_MINUTES', raw, 1, 20_160, CONFIG_DEFAULTS.followUpMaxDeferMinutes)),
    ),
  ),
  FOLLOWUP_OUTCOMES_TOPIC_ARN: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => validateTopicArn(raw)),
    ),
  ),
  ANOMALY_DROP: v.pipe(
    numberVar('ANOMALY_DROP', 0, 1, CONFIG_DEFAULTS.anomalyDrop),
    v.transform((value) =>
      value < 1 ? value : fail(`ANOMALY_DROP must be below 1 (got ${value}): a drop to half is 0.5; fix or unset it (default ${CONFIG_DEFAULTS.anomalyDrop})`),
    ),
  ),
  ANOMALY_RISE: v.pipe(
    numberVar('ANOMALY_RISE', 0, 1_000, CONFIG_DEFAULTS.anomalyRise),
    v.transform((value) =>
      value > 1 ? value : fail(`ANOMALY_RISE must be above 1 (got ${value}): a tripling is 3; fix or unset it (default ${CONFIG_DEFAULTS.anomalyRise})`),
    ),
  ),
  INSIGHTS_TOPIC_ARN: v.optional(
    v.pipe(
      v.string(),
      v.transform((raw) => validateTopicArn(raw, 'INSIGHTS_TOPIC_ARN', 'InsightsTopicArn')),
    ),
  ),
  // Read by the AWS SDK itself; only their presence matters here.
  AWS_ENDPOINT_URL_SQS: v.optional(v.string()),
  AWS_ENDPOINT_URL: v.optional(v.string()),
});

/** The name of every variable `loadConfig` reads: the infra sets the functions' environment with these. */
export type EnvName = keyof typeof EnvSchema.entries;

/** A function's environment as the infra writes it: only names the functions read. */
export type ConfigEnvironment = Partial<Record<EnvName, string>>;

/**
 * Reads and validates the configuration from `env` (normally `process.env`).
 * @throws ConfigError naming the first bad variable.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  // Blank counts as unset; only the variables we know are looked at.
  const present: Record<string, string> = {};
  for (const name of Object.keys(EnvSchema.entries)) {
    const value = env[name]?.trim();
    if (value) present[name] = value;
  }
  const result = v.safeParse(EnvSchema, present);
  if (!result.success) {
    // Every transform throws its own ConfigError; this is only reached for type problems.
    const issue = result.issues[0];
    const name = issue?.path?.[0]?.key;
    throw new ConfigError(`${typeof name === 'string' ? name : 'configuration'} is invalid: check its value`);
  }
  const e = result.output;
  const config: Config = {
    ...(e.MINTLIFY_API_KEY !== undefined ? { apiKey: e.MINTLIFY_API_KEY } : {}),
    ...(e.MINTLIFY_API_KEY_SECRET_ARN !== undefined ? { apiKeySecretArn: e.MINTLIFY_API_KEY_SECRET_ARN } : {}),
    apiUrl: e.MINTLIFY_API_URL,
    projectIds: Object.freeze(e.MINTLIFY_PROJECT_IDS),
    destination: e.EXPORT_DESTINATION,
    ...(e.EXPORT_PAGE_LIMIT !== undefined ? { pageLimit: e.EXPORT_PAGE_LIMIT } : {}),
    healDays: e.EXPORT_HEAL_DAYS,
    maxPages: e.EXPORT_MAX_PAGES,
    apiTimeoutMs: e.API_TIMEOUT_MS,
    budget: e.ANALYTICS_BUDGET,
    budgetSet: present['ANALYTICS_BUDGET'] !== undefined,
    settleHours: e.EXPORT_SETTLE_HOURS,
    datasets: Object.freeze(e.EXPORT_DATASETS),
    feedbackContact: e.EXPORT_FEEDBACK_CONTACT,
    refreshDays: e.EXPORT_REFRESH_DAYS,
    checkpointMaxAgeHours: e.EXPORT_CHECKPOINT_MAX_AGE_HOURS,
    ...(e.EXPORT_STATE_TABLE !== undefined ? { stateTable: e.EXPORT_STATE_TABLE } : {}),
    ...(e.EXPORT_STATE_DIR !== undefined ? { stateDir: e.EXPORT_STATE_DIR } : {}),
    ...(e.FOLLOWUP_STATE_TABLE !== undefined ? { followUpStateTable: e.FOLLOWUP_STATE_TABLE } : {}),
    ...(e.FOLLOWUP_DEAD_LETTER_QUEUE_URL !== undefined ? { followUpDeadLetterQueueUrl: e.FOLLOWUP_DEAD_LETTER_QUEUE_URL } : {}),
    followUpMaxWaitHours: e.FOLLOWUP_MAX_WAIT_HOURS,
    ...(e.FOLLOWUP_MAX_DEFER_MINUTES !== undefined ? { followUpMaxDeferMinutes: e.FOLLOWUP_MAX_DEFER_MINUTES } : {}),
    ...(e.FOLLOWUP_OUTCOMES_TOPIC_ARN !== undefined ? { followUpOutcomesTopicArn: e.FOLLOWUP_OUTCOMES_TOPIC_ARN } : {}),
    anomalyDrop: e.ANOMALY_DROP,
    anomalyRise: e.ANOMALY_RISE,
    ...(e.INSIGHTS_TOPIC_ARN !== undefined ? { insightsTopicArn: e.INSIGHTS_TOPIC_ARN } : {}),
    sqsEndpointOverridden: e.AWS_ENDPOINT_URL_SQS !== undefined || e.AWS_ENDPOINT_URL !== undefined,
  };
  return Object.freeze(hideKey(config));
}

/**
 * Makes a logged config safe: `JSON.stringify` (which the Powertools logger uses) and
 * `util.inspect` (console.log) show `apiKey` as `[redacted]`. The helpers are non-enumerable,
 * so a spread copy (`{ ...config }`) keeps every field, the key included, but not the helpers.
 */
function hideKey(config: Config): Config {
  const redacted = () => ({ ...config, ...(config.apiKey !== undefined ? { apiKey: '[redacted]' } : {}) });
  Object.defineProperty(config, 'toJSON', { value: redacted, enumerable: false });
  Object.defineProperty(config, inspect.custom, { value: () => redacted(), enumerable: false });
  return config;
}
