/**
 * The agent operations: read a job, send it a follow-up prompt, create a new job with a
 * prompt. They differ in what a repeat can do:
 * - the read (GET `/v2/agent/{projectId}/job/{jobId}`) is retried on 429, 408, 5xx, network
 *   errors and timeouts, a malformed body once (retry-policy.ts `isRetryableRead`);
 * - the follow-up POST (`…/job/{jobId}/message`) is retried only where the service cannot have
 *   acted on it (429, or a connection that failed before the request was sent:
 *   `isRetryableSend`). Anything that leaves the send unknown becomes `SendUncertainError` at
 *   once, so a prompt is never POSTed twice. The prompt is a secret of the call: it is kept out
 *   of every message, like the key;
 * - the job creation (POST `/v2/agent/{projectId}/job`, 201 with the job) follows the same
 *   rule as the follow-up POST: a repeat could create a second job. Its answer must name the
 *   new job (`id`): a 201 without one leaves the job unknown, so it is uncertain too.
 */
import type { ApiClient, CallOptions } from '../api-types.js';
import type { AgentJob } from '../api-enums.js';
import { ApiError, ConfigError, MalformedResponseError, SendUncertainError } from '../errors.js';
import { isRetryableRead, isRetryableSend, isUncertainSend } from '../pacing/retry-policy.js';
import { parseAgentJob } from '../schemas.js';
import { type CallSteps, checkId } from './call.js';

/** The job read, the follow-up POST and the job creation over `steps`. */
export function agentOperations(steps: CallSteps): Pick<ApiClient, 'getJob' | 'sendMessage' | 'createJob'> {
  const { withKey, attempt, run, redactor } = steps;
  /** One POST of `prompt` that is never repeated once the service may have acted on it. */
  const postPrompt = (
    op: 'sendMessage' | 'createJob',
    path: string,
    ids: { projectId: string; jobId?: string },
    prompt: string,
    what: string,
    call: CallOptions,
  ) => {
    if (typeof prompt !== 'string' || prompt.length === 0) {
      throw new ConfigError(`the ${what} prompt is empty: the API requires at least one character`);
    }
    const body = JSON.stringify({ prompt });
    const once = async (): Promise<AgentJob> => {
      try {
        return await withKey(op, (key) => attempt({ op, method: 'POST', path, body, ids, parse: parseAgentJob, call, secrets: [prompt] }, key));
      } catch (error) {
        if (call.signal?.aborted && error === call.signal.reason) throw error;
        throw uncertainOrAsIs(error, what, (text) => redactor.scrub(text, [prompt]));
      }
    };
    return run({ op, request: `POST ${path}`, shouldRetry: isRetryableSend, call }, once);
  };
  return {
    async getJob(projectId: string, jobId: string, call: CallOptions = {}): Promise<AgentJob> {
      const path = `/v2/agent/${checkId('project id', projectId)}/job/${checkId('job id', jobId)}`;
      return run({ op: 'getJob', request: `GET ${path}`, shouldRetry: isRetryableRead, call }, () =>
        withKey('getJob', (key) => attempt({ op: 'getJob', method: 'GET', path, ids: { projectId, jobId }, parse: parseAgentJob, call }, key)),
      );
    },

    async sendMessage(projectId: string, jobId: string, prompt: string, call: CallOptions = {}): Promise<AgentJob> {
      const path = `/v2/agent/${checkId('project id', projectId)}/job/${checkId('job id', jobId)}/message`;
      return postPrompt('sendMessage', path, { projectId, jobId }, prompt, 'follow-up', call);
    },

    async createJob(projectId: string, prompt: string, call: CallOptions = {}): Promise<AgentJob> {
      const path = `/v2/agent/${checkId('project id', projectId)}/job`;
      return postPrompt('createJob', path, { projectId }, prompt, 'new job', call);
    },
  };
}

/**
 * For the POST: an error after which the service may have acted (retry-policy's `uncertain`)
 * becomes `SendUncertainError`, which is never resent. The others are kept as they are: 429, a
 * connection that failed before sending, other 4xx (the service refused it), a deadline
 * reached before sending.
 */
function uncertainOrAsIs(error: unknown, prompt: string, scrub: (text: string) => string): unknown {
  if (!isUncertainSend(error) || error instanceof SendUncertainError) return error;
  const what =
    error instanceof MalformedResponseError
      ? `the API accepted the ${prompt} but its response was unreadable`
      : error instanceof ApiError
        ? `the ${prompt} may or may not have been processed (HTTP ${error.status})`
        : `the ${prompt} may or may not have been received`;
  return new SendUncertainError(`${what} (${scrub(error instanceof Error ? error.message : String(error))}): it is not sent again`, {
    cause: error,
  });
}
