import { describe, expect, it } from 'vitest';
import { checkSqsSettings } from '../../../functions/cli/aws-settings.js';
import { ConfigError } from '../../../functions/shared/errors.js';

const EMULATOR_QUEUE = 'http://sqs.us-east-1.localhost:4566/000000000000/prompts.fifo';
const withRegion = { config: { region: async () => 'us-east-1' } };
const withoutRegion = {
  config: {
    region: async (): Promise<string> => {
      throw new Error('Region is missing');
    },
  },
};
const unresolvable = async (hostname: string) => {
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

describe('the AWS settings of a queue command', () => {
  it("without a region names AWS_REGION (the queue URL's region) and the emulator's endpoint", async () => {
    const check = checkSqsSettings(withoutRegion, EMULATOR_QUEUE, { sqsEndpointOverridden: false }, unresolvable);

    await expect(check).rejects.toThrow(ConfigError);
    await expect(check).rejects.toThrow(
      "no AWS region: set AWS_REGION=us-east-1 (the queue URL's region), and for an emulator AWS_ENDPOINT_URL_SQS=http://127.0.0.1:4566",
    );
  });

  it('with a region but a queue host that does not resolve names AWS_ENDPOINT_URL_SQS instead of getaddrinfo ENOTFOUND', async () => {
    const check = checkSqsSettings(withRegion, EMULATOR_QUEUE, { sqsEndpointOverridden: false }, unresolvable);

    await expect(check).rejects.toThrow(
      "the queue URL's host sqs.us-east-1.localhost does not resolve (ENOTFOUND): for an emulator set AWS_ENDPOINT_URL_SQS=http://127.0.0.1:4566",
    );
  });

  it('looks nothing up when AWS_ENDPOINT_URL_SQS sends every call elsewhere', async () => {
    let looked = 0;

    await checkSqsSettings(withRegion, EMULATOR_QUEUE, { sqsEndpointOverridden: true }, async () => looked++);

    expect(looked).toBe(0);
  });
});
