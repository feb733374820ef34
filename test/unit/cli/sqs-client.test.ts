import { describe, expect, it } from 'vitest';
import { awsQueueRegion, sqsClientFor } from '../../../functions/cli/sqs-client.js';

describe('the SQS client of a queue URL', () => {
  it('reads the region from an AWS queue URL, in both forms', () => {
    expect(awsQueueRegion('sqs.eu-west-1.amazonaws.com')).toBe('eu-west-1');
    expect(awsQueueRegion('ap-southeast-2.queue.amazonaws.com')).toBe('ap-southeast-2');
    expect(awsQueueRegion('sqs.cn-north-1.amazonaws.com.cn')).toBe('cn-north-1');
    expect(awsQueueRegion('sqs.us-east-1.localhost')).toBeUndefined();
  });

  it("talks to the region of an AWS queue's URL even without AWS_REGION", async () => {
    const sqs = sqsClientFor('https://sqs.eu-central-1.amazonaws.com/123456789012/prompts.fifo', { sqsEndpointOverridden: false });

    expect(await sqs.config.region()).toBe('eu-central-1');
  });
});
