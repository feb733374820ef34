/**
 * The agent operations: read a job, and send it a follow-up prompt. They differ in what a
 * repeat can do:
 * - the read (GET `/v2/agent/{projectId}/job/{jobId}`) is retried on 429, 408, 5xx, network
 *   errors and timeouts, a malformed body once (retry-policy.ts `isRetryableRead`);
 * - the follow-up POST (`…/job/{jobId}/message`) is retried only where the service cannot have
 *   acted on it (429, or a connection that failed before the request was sent:
 *   `isRetryableSend`). Anything that leaves the send unknown becomes `SendUncertainError` at
 *   once, so a prompt is never POSTed twice. The prompt is a secret of the call: it is kept out
 *   of every message, like the key.
 */
import type { AgentJob, ApiClient, CallOptions } from '../api-types.js';
import { ApiError, ConfigError, MalformedResponseError, SendUncertainError } from '../errors.js';
import { isRetryableRead, isRetryableSend, isUncertainSend } from '../retry-policy.js';
import { parseAgentJob } from '../schemas.js';
import { type CallSteps, checkId } from './call.js';

/** The job read and the follow-up POST over `steps`. */
export function agentOperations(steps: CallSteps): Pick<ApiClient, 'getJob' | 'sendMessage'> {
  const { withKey, attempt, run, redactor } = steps;
  return {
    async getJob(projectId: string, jobId: string, call: CallOptions = {}): Promise<AgentJob> {
      const path = `/v2/agent/${checkId('project id', projectId)}/job/${checkId('job id', jobId)}`;
      return run(
        'getJob',
        `GET ${path}`,
        () => withKey('getJob', (key) => attempt('getJob', 'GET', path, undefined, { projectId, jobId }, parseAgentJob, call, key)),
        isRetryableRead,
        call,
      );
    },

    async sendMessage(projectId: string, jobId: string, prompt: string, call: CallOptions = {}): Promise<AgentJob> {
      const path = `/v2/agent/${checkId('project id', projectId)}/job/${checkId('job id', jobId)}/message`;
      if (typeof prompt !== 'string' || prompt.length === 0) {
        throw new ConfigError('the follow-up prompt is empty: the API requires at least one character');
      }
      const body = JSON.stringify({ prompt });
      const once = async (): Promise<AgentJob> => {
        try {
          return await withKey('sendMessage', (key) => attempt('sendMessage', 'POST', path, body, { projectId, jobId }, parseAgentJob, call, key, [prompt]));
        } catch (error) {
          if (call.signal?.aborted && error === call.signal.reason) throw error;
          throw uncertainOrAsIs(error, (text) => redactor.scrub(text, [prompt]));
        }
      };
      return run('sendMessage', `POST ${path}`, once, isRetryableSend, call);
    },
  };
}

/**
 * For the POST: an error after which the service may have acted (retry-policy's `uncertain`)
 * becomes `SendUncertainError`, which is never resent. The others are kept as they are: 429, a
 * connection that failed before sending, other 4xx (the service refused it), a deadline
 * reached before sending.
 */
function uncertainOrAsIs(error: unknown, scrub: (text: string) => string): unknown {
  if (!isUncertainSend(error) || error instanceof SendUncertainError) return error;
  const what =
    error instanceof MalformedResponseError
      ? 'the API accepted the follow-up but its response was unreadable'
      : error instanceof ApiError
        ? `the follow-up may or may not have been processed (HTTP ${error.status})`
        : 'the follow-up may or may not have been received';
  return new SendUncertainError(`${what} (${scrub(error instanceof Error ? error.message : String(error))}): it is not sent again`, {
    cause: error,
  });
}
