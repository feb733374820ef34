/**
 * The SQS client of a command that names its queue by URL (`enqueue`, `consume`).
 *
 * With `AWS_ENDPOINT_URL_SQS` (an emulator) every request goes there. Without it, a request goes
 * to the host of the queue URL it names, as the AWS CLI does; a URL outside AWS (an emulator
 * named by its URL alone) is then made the client's endpoint, so the SDK does not print its
 * several-line warning that the URL "differs from the resolved endpoint" before our one line.
 */
import { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../settings/config.js';
import { sqsClientConfig } from '../shared/aws-clients.js';

/** Hosts of AWS's own queue URLs (`sqs.<region>.amazonaws.com`, China's `.amazonaws.com.cn`). */
const AWS_HOST = /(^|\.)amazonaws\.com(\.cn)?$/;

export function sqsClientFor(queueUrl: string, config: Pick<Config, 'sqsEndpointOverridden'>): SQSClient {
  if (config.sqsEndpointOverridden) return new SQSClient(sqsClientConfig({ useQueueUrlAsEndpoint: false }));
  const url = new URL(queueUrl);
  if (!AWS_HOST.test(url.hostname)) return new SQSClient(sqsClientConfig({ endpoint: url.origin }));
  // The queue lives in the region its URL names, whatever AWS_REGION says (as the AWS CLI does).
  const region = awsQueueRegion(url.hostname);
  return new SQSClient(sqsClientConfig({ useQueueUrlAsEndpoint: true, ...(region ? { region } : {}) }));
}

/** The region of an AWS queue URL's host: `sqs.<region>.amazonaws.com`, or the older `<region>.queue.amazonaws.com`. */
export function awsQueueRegion(hostname: string): string | undefined {
  return AWS_HOST.test(hostname) ? /^(?:sqs\.)?([a-z]{2}(?:-[a-z]+)+-\d+)\./.exec(hostname)?.[1] : undefined;
}
