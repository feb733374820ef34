/**
 * `mintlify-exporter/producer`: enqueue follow-up prompts from code, with the same checks,
 * ids and batching as `mintlify-exporter enqueue` (docs/follow-ups.md). Every prompt is
 * checked with the consumer's own rules before anything is sent; a bad one throws
 * InvalidPromptsError (a ConfigError) naming it, and nothing is sent.
 *
 * ```ts
 * import { enqueuePrompts } from 'mintlify-exporter/producer';
 * const { enqueued, notSent } = await enqueuePrompts(
 *   [{ projectId: 'proj_a', jobId: 'job_123', prompt: 'Add a FAQ page for SSO', requestId: 'faq-sso-1' }],
 *   { queueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/MintlifyExporter-FollowUpsQueue.fifo' },
 * );
 * ```
 *
 * `MessageGroupId` is the job id, `MessageDeduplicationId` the request id (a random UUID when a
 * prompt has none: give your own to make a retry of your code safe). Enqueueing the same
 * request id again never sends the prompt twice.
 */
export {
  enqueuePrompts,
  sendPrompts,
  MAX_BATCH_ENTRIES,
  type EnqueueOptions,
  type EnqueueReport,
  type EnqueuedPrompt,
  type NotSentPrompt,
} from './enqueue.js';
export {
  checkPrompt,
  checkPrompts,
  promptLines,
  InvalidPromptsError,
  type CheckedPrompt,
  type CheckOptions,
  type FollowUpPrompt,
} from './prompts.js';
export { MAX_PROMPT_LENGTH } from '../follow-up/message.js';
export { ID_PATTERN } from '../shared/validators.js';
export { ConfigError } from '../shared/errors.js';
