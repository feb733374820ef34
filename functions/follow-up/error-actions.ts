/**
 * What a follow-up does about a failed API call, in one table: the reads before the send, the
 * POST itself and the polls after it answer the same errors differently (a 404 before the send
 * rejects the prompt; while polling it fails the request), and those answers live here rather
 * than in three `if` ladders. send.ts and poll-job.ts act on the result; stopping (Ctrl-C,
 * SIGTERM) is checked before this table is asked.
 */
import { ApiError, DeadlineExceededError, RateLimitedError, UnreachableError } from '../shared/errors.js';
import { isOutOfCredits, provablyNotSent } from '../shared/pacing/retry-policy.js';

/** Where the call failed: reading the job before the send, the POST, or a poll after it. */
export type CallSite = 'read' | 'send' | 'poll';

/**
 * - `reject`: the request ends `rejected` and is dead-lettered (the API refused it for good);
 * - `reject-out-of-credits`: the same, because the organisation ran out of agent credits (a 402,
 *   or a 4xx naming credits): not worth retrying within the hour, never sent twice;
 * - `fail`: the request ends `failed` (the job disappeared while polling);
 * - `defer-rate-limited`: try later, after Retry-After (else the rate-limit deferral);
 * - `defer-job-active`: try later, the job is busy;
 * - `defer-unreachable`: the API was never reached (nothing listens, the host name does not
 *   resolve, TLS failed: the client's `UnreachableError`, as `export` classifies it): nothing was
 *   sent, so the request is left as it was before the call — a claim released, a `sent` record
 *   still `sent` — and deferred without counting a failure; the commands stop on it (a setting,
 *   MINTLIFY_API_URL, far more often than a hiccup);
 * - `retry-later`: a failure of the call — before the send it is counted (dead-lettered at the
 *   limit); while polling, polling goes on later;
 * - `uncertain`: the POST may have been accepted: the request ends `uncertain`, never re-sent.
 */
export type ErrorAction =
  | 'reject'
  | 'reject-out-of-credits'
  | 'fail'
  | 'defer-rate-limited'
  | 'defer-job-active'
  | 'defer-unreachable'
  | 'retry-later'
  | 'uncertain';

interface ErrorRule {
  /** What the rule is about, for readers and test names. */
  readonly when: string;
  readonly matches: (error: unknown) => boolean;
  /** The action per call site; a site not named falls through to the next rule. */
  readonly actions: Partial<Record<CallSite, ErrorAction>>;
}

const status = (code: number) => (error: unknown) => error instanceof ApiError && error.status === code;

/** The rules, first match wins. */
export const ERROR_RULES: readonly ErrorRule[] = [
  {
    when: '429 rate limited',
    matches: (error) => error instanceof RateLimitedError,
    actions: { read: 'defer-rate-limited', send: 'defer-rate-limited', poll: 'defer-rate-limited' },
  },
  {
    when: 'the API never reached (connection refused, unknown host, TLS)',
    matches: (error) => unreachableOf(error) !== undefined,
    actions: { read: 'defer-unreachable', send: 'defer-unreachable', poll: 'defer-unreachable' },
  },
  { when: 'out of agent credits (402, or a 4xx naming credits)', matches: isOutOfCredits, actions: { send: 'reject-out-of-credits' } },
  { when: '404 job not found', matches: status(404), actions: { read: 'reject', send: 'reject', poll: 'fail' } },
  { when: '409 job busy', matches: status(409), actions: { send: 'defer-job-active' } },
  { when: '400 prompt refused', matches: status(400), actions: { send: 'reject' } },
  { when: 'the POST provably never acted on', matches: provablyNotSent, actions: { send: 'retry-later' } },
];

/** When no rule matches: a read or poll is tried again later; a POST's fate is unknown. */
const OTHERWISE: Record<CallSite, ErrorAction> = { read: 'retry-later', send: 'uncertain', poll: 'retry-later' };

/** The action for `error` at `site`. */
export function errorAction(site: CallSite, error: unknown): ErrorAction {
  for (const rule of ERROR_RULES) {
    const action = rule.actions[site];
    if (action !== undefined && rule.matches(error)) return action;
  }
  return OTHERWISE[site];
}

/** The wait a 429 asked for (Retry-After), if any. */
export function retryAfterOf(error: unknown): number | undefined {
  return error instanceof ApiError ? error.retryAfterMs : undefined;
}

/** The `UnreachableError` behind `error` (itself, or the cause of a deadline it ran into), if any. */
export function unreachableOf(error: unknown): UnreachableError | undefined {
  const root = error instanceof DeadlineExceededError && error.cause !== undefined ? error.cause : error;
  return root instanceof UnreachableError ? root : undefined;
}

/**
 * The line that says the API was never reached: its URL, the cause, and the setting to check.
 * `follow-up` and `consume` end with it (exit 2), like `export`.
 */
export function unreachableReason(error: unknown): string {
  const unreachable = unreachableOf(error);
  if (!unreachable) return 'the API could not be reached: check MINTLIFY_API_URL and that this machine can reach it';
  return `the API at ${unreachable.url} could not be reached (${unreachable.what}): nothing reached the service; check MINTLIFY_API_URL and that this machine can reach it`;
}
