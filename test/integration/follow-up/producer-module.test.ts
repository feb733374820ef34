import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, enqueuePrompts, InvalidPromptsError, type EnqueueReport, type FollowUpPrompt } from 'mintlify-exporter/producer';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';

let aws: S3Sqs;

beforeAll(async () => {
  aws = await startS3Sqs();
});

afterAll(async () => {
  await aws?.close();
});

/** Visible messages in a queue. */
async function countIn(queueUrl: string): Promise<number> {
  return (await aws.queueCounts(queueUrl)).visible;
}

describe('mintlify-exporter/producer', () => {
  it('enqueues prompts in order with the same ids as the command, and a made request id for a prompt without one', async () => {
    const queueUrl = await aws.createQueue('producer-ok', { FifoQueue: 'true' });
    const prompts: FollowUpPrompt[] = [
      { projectId: 'proj_a', jobId: 'job_1', prompt: 'Add a FAQ page for SSO', requestId: 'faq-sso-1' },
      { jobId: 'job_1', prompt: 'Link it from the quickstart' },
    ];

    const report: EnqueueReport = await enqueuePrompts(prompts, { queueUrl, sqs: aws.sqs, projectIds: ['proj_a'] });

    expect(report.notSent).toEqual([]);
    const made = report.enqueued[1]?.requestId;
    expect(report.enqueued).toEqual([
      { line: 1, requestId: 'faq-sso-1', requestIdMade: false, projectId: 'proj_a', jobId: 'job_1', messageId: expect.any(String) },
      { line: 2, requestId: made, requestIdMade: true, projectId: 'proj_a', jobId: 'job_1', messageId: expect.any(String) },
    ]);
    const messages = await aws.takeAll(queueUrl);
    expect(messages.map((m) => [m.Attributes?.['MessageGroupId'], m.Attributes?.['MessageDeduplicationId'], JSON.parse(m.Body ?? '')])).toEqual([
      ['job_1', 'faq-sso-1', { projectId: 'proj_a', jobId: 'job_1', prompt: 'Add a FAQ page for SSO', requestId: 'faq-sso-1' }],
      ['job_1', made, { projectId: 'proj_a', jobId: 'job_1', prompt: 'Link it from the quickstart', requestId: made }],
    ]);
  });

  it('throws InvalidPromptsError, a ConfigError naming the bad prompt, and sends nothing', async () => {
    const queueUrl = await aws.createQueue('producer-bad', { FifoQueue: 'true' });
    const attempt = enqueuePrompts(
      [
        { projectId: 'proj_a', jobId: 'job_1', prompt: 'fine' },
        { projectId: 'proj_a', jobId: 'job 2', prompt: 'bad id' },
      ],
      { queueUrl, sqs: aws.sqs },
    );

    await expect(attempt).rejects.toBeInstanceOf(InvalidPromptsError);
    await expect(attempt).rejects.toBeInstanceOf(ConfigError);
    await expect(attempt).rejects.toThrow(/^prompts refused, nothing was sent: line 2: jobId must match/);
    expect(await countIn(queueUrl)).toBe(0);
  });
});
