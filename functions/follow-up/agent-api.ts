/**
 * The agent calls with one check the client cannot make: that the answer is about the job
 * asked for. A record of another job would otherwise pass for ours — its terminal status for
 * the end of our run, its `active` for a reason to wait. A job creation names its new job
 * itself, so its answer passes as it is.
 */
import type { ApiClient } from '../shared/api-types.js';
import type { AgentJob } from '../shared/api-enums.js';
import { MalformedResponseError } from '../shared/errors.js';

export type AgentApi = Pick<ApiClient, 'getJob' | 'sendMessage' | 'createJob'>;

/** `api`, refusing any job record whose `id` is not the job of the call (MalformedResponseError). */
export function sameJobOnly(api: AgentApi): AgentApi {
  return {
    getJob: async (projectId, jobId, options) => expectJob(jobId, await api.getJob(projectId, jobId, options)),
    sendMessage: async (projectId, jobId, prompt, options) => expectJob(jobId, await api.sendMessage(projectId, jobId, prompt, options)),
    createJob: (projectId, prompt, options) => api.createJob(projectId, prompt, options),
  };
}

function expectJob(jobId: string, job: AgentJob): AgentJob {
  if (job.id === jobId) return job;
  throw new MalformedResponseError(
    `the API answered for job ${JSON.stringify(String(job.id).slice(0, 128))} when asked about job ${JSON.stringify(jobId)}: the response does not belong to this request`,
  );
}
