/**
 * What the API client can be told, and what it assumes when it is not told: every option is
 * validated and every default resolved once, here, into a `ResolvedApiOptions` (the way ky's
 * `normalize.ts` turns user options into a `Required<>` object). The rest of the client reads
 * the resolved object and never writes a fallback of its own.
 *
 * The numbers come from where they are declared once: the retry numbers from `RETRY_DEFAULTS`
 * (retry.ts, which the retry loop also falls back to) and the timeout from `DEFAULT_API_TIMEOUT_MS` (validators.ts, the default of `API_TIMEOUT_MS`)
 * (config.ts, which `API_TIMEOUT_MS` falls back to).
 */
import type { BudgetGate } from '../pacing/budget.js';
import { createCircuitBreaker, type CircuitBreaker } from '../pacing/circuit-breaker.js';
import type { SkewClock } from '../clock-skew.js';
import { DEFAULT_API_TIMEOUT_MS, validateApiKey, validateApiUrl } from '../validators.js';
import { ConfigError } from '../errors.js';
import type { AppLogger } from '../logger.js';
import type { ApiEvents } from './events.js';
import { RETRY_DEFAULTS } from '../pacing/retry.js';
import { sleep as realSleep, type Sleep } from '../time.js';
import { fixedKey, type ApiKeySource } from '../secrets.js';

export interface ApiClientOptions {
  /** API base URL; https, or http on loopback. */
  readonly baseUrl: string;
  /**
   * Admin key (`mint_…`), or a source of it (secrets.ts `createApiKeyProvider`): then a 401 makes
   * the client read the key again and, if it changed (a rotation), send the request once more.
   */
  readonly apiKey: string | ApiKeySource;
  /** @default globalThis.fetch */
  readonly fetch?: typeof fetch;
  /**
   * Per-request timeout (headers and body), ms; also cut to the call's deadline.
   * @default DEFAULT_API_TIMEOUT_MS
   */
  readonly timeoutMs?: number;
  /** Retries after the first attempt. @default RETRY_DEFAULTS.retries */
  readonly maxRetries?: number;
  /** Backoff base, ms. @default RETRY_DEFAULTS.minMs */
  readonly minDelayMs?: number;
  /** Backoff cap, ms. @default RETRY_DEFAULTS.maxMs */
  readonly maxDelayMs?: number;
  /** Longest Retry-After slept through, ms; longer ones end the call. @default RETRY_DEFAULTS.maxRetryAfterMs */
  readonly maxRetryAfterMs?: number;
  /**
   * Largest 2xx body read, in bytes after decompression. The body is streamed and reading stops
   * at the cap: a larger answer is a `MalformedResponseError` (retried once), never buffered
   * whole. The largest page the export asks for (1000 assistant turns) is a few MB at most.
   * @default API_CLIENT_DEFAULTS.maxResponseBytes (16 MiB)
   */
  readonly maxResponseBytes?: number;
  /** @default Date.now */
  readonly now?: () => number;
  /** @default a real timer */
  readonly sleep?: Sleep;
  /** @default Math.random */
  readonly random?: () => number;
  /** @default no logging */
  readonly logger?: Pick<AppLogger, 'debug' | 'info' | 'warn'>;
  /** Typed events as the client goes (a retry, a 429's pause, a clock off, invalid UTF-8): events.ts. @default none */
  readonly events?: ApiEvents;
  /** @default API_CLIENT_DEFAULTS.userAgent */
  readonly userAgent?: string;
  /**
   * The request budget every analytics request passes before each attempt. Without it the
   * client refuses analytics calls: there is no way around the budget.
   */
  readonly budget?: BudgetGate;
  /**
   * Stops analytics requests after a storm of server failures across calls. @default a new
   * breaker per client (`createCircuitBreaker()`)
   */
  readonly circuitBreaker?: CircuitBreaker;
  /**
   * Hears every answer's `Date` header: measures how far this machine's clock is off the API's,
   * corrects what it serves (`now()`) and refuses a clock far off (clock-skew.ts). @default none
   */
  readonly clock?: SkewClock;
}

/** The client's numeric and text defaults, each taken from where it is declared once. */
export const API_CLIENT_DEFAULTS = {
  timeoutMs: DEFAULT_API_TIMEOUT_MS,
  maxRetries: RETRY_DEFAULTS.retries,
  minDelayMs: RETRY_DEFAULTS.minMs,
  maxDelayMs: RETRY_DEFAULTS.maxMs,
  maxRetryAfterMs: RETRY_DEFAULTS.maxRetryAfterMs,
  /** @see ApiClientOptions.maxResponseBytes */
  maxResponseBytes: 16 * 1024 * 1024,
  userAgent: 'mintlify-exporter/0.1',
} as const;

/** The options that have no default: absent means none (no logs, no analytics calls, no clock). */
type WithoutDefault = 'logger' | 'budget' | 'clock';

/**
 * The options with every default filled in. `apiKey` is always a source (a key given as a
 * string becomes one that never changes); `givenKey` is that string, validated, for the
 * redactor to know from the start.
 */
export type ResolvedApiOptions = Required<Omit<ApiClientOptions, 'apiKey' | WithoutDefault>> & {
  readonly [K in WithoutDefault]: ApiClientOptions[K] | undefined;
} & {
  readonly apiKey: ApiKeySource;
  readonly givenKey: string | undefined;
};

/** Validates `options` and fills in every default. Checks the key and URL now, so a typo fails before any request. */
export function resolveApiOptions(options: ApiClientOptions): ResolvedApiOptions {
  const givenKey = typeof options.apiKey === 'string' ? validateApiKey(options.apiKey) : undefined;
  return {
    baseUrl: validateApiUrl(options.baseUrl),
    apiKey: givenKey !== undefined ? fixedKey(givenKey) : (options.apiKey as ApiKeySource),
    givenKey,
    fetch: options.fetch ?? globalThis.fetch,
    timeoutMs: integerOption('timeoutMs', options.timeoutMs, API_CLIENT_DEFAULTS.timeoutMs, 1),
    maxRetries: integerOption('maxRetries', options.maxRetries, API_CLIENT_DEFAULTS.maxRetries),
    minDelayMs: integerOption('minDelayMs', options.minDelayMs, API_CLIENT_DEFAULTS.minDelayMs),
    maxDelayMs: integerOption('maxDelayMs', options.maxDelayMs, API_CLIENT_DEFAULTS.maxDelayMs),
    maxRetryAfterMs: integerOption('maxRetryAfterMs', options.maxRetryAfterMs, API_CLIENT_DEFAULTS.maxRetryAfterMs),
    maxResponseBytes: integerOption('maxResponseBytes', options.maxResponseBytes, API_CLIENT_DEFAULTS.maxResponseBytes, 1),
    now: options.now ?? Date.now,
    sleep: options.sleep ?? realSleep,
    random: options.random ?? Math.random,
    logger: options.logger,
    events: options.events ?? {},
    userAgent: options.userAgent ?? API_CLIENT_DEFAULTS.userAgent,
    budget: options.budget,
    circuitBreaker: options.circuitBreaker ?? createCircuitBreaker(),
    clock: options.clock,
  };
}

function integerOption(name: string, value: number | undefined, fallback: number, min = 0): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) throw new ConfigError(`${name} must be an integer ≥ ${min} (got ${value})`);
  return value;
}
