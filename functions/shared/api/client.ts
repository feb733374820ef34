/**
 * `createApiClient`: composes the client from its parts and does nothing else. The options are
 * resolved once (options.ts); the call steps (call.ts) hold the transport, the redactor and the
 * counters; the operations (analytics.ts, agent.ts) are built over them.
 */
import type { ApiClient } from '../api-types.js';
import { agentOperations } from './agent.js';
import { type AnalyticsApi, analyticsOperations } from './analytics.js';
import { createCallSteps } from './call.js';
import { type ApiClientOptions, resolveApiOptions } from './options.js';

/** What `createApiClient` returns: the agent operations and the analytics reads. */
export type MintlifyClient = Pick<ApiClient, 'getJob' | 'sendMessage' | 'createJob' | 'stats'> & AnalyticsApi;

/** Creates the client. Validates the key and URL now, so a typo fails before any request. */
export function createApiClient(options: ApiClientOptions): MintlifyClient {
  const steps = createCallSteps(resolveApiOptions(options));
  return { stats: steps.stats, ...analyticsOperations(steps), ...agentOperations(steps) };
}
