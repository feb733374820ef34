/**
 * The AWS settings a queue command needs, checked before its first request: a region (the SDK
 * otherwise says `Region is missing`, then `getaddrinfo ENOTFOUND` for an emulator's queue URL)
 * and a queue host that resolves. One line naming what to set: AWS_REGION, or
 * AWS_ENDPOINT_URL_SQS for an emulator; then credentials (aws-access.ts).
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../settings/config.js';
import { ConfigError } from '../shared/errors.js';
import { checkAwsAccess } from './aws-access.js';
import { awsQueueRegion, sqsClientFor } from './sqs-client.js';

/** The SQS client of `queueUrl` (sqsClientFor), once its settings are checked. */
export async function checkedSqsClient(queueUrl: string, config: Pick<Config, 'sqsEndpointOverridden'>): Promise<SQSClient> {
  const sqs = sqsClientFor(queueUrl, config);
  await checkSqsSettings(sqs, queueUrl, config);
  await checkAwsAccess(sqs, `the queue ${queueUrl} is on SQS`);
  return sqs;
}

/** Throws ConfigError (exit 2) naming what to set when `sqs` cannot reach `queueUrl`. */
export async function checkSqsSettings(
  sqs: { readonly config: { region(): Promise<string> } },
  queueUrl: string,
  config: Pick<Config, 'sqsEndpointOverridden'>,
  lookupHost: (hostname: string) => Promise<unknown> = lookup,
): Promise<void> {
  const url = new URL(queueUrl);
  const emulator = config.sqsEndpointOverridden ? '' : `, and for an emulator AWS_ENDPOINT_URL_SQS=${emulatorEndpoint(url)}`;
  try {
    await sqs.config.region();
  } catch {
    const named = regionNamedIn(url.hostname);
    throw new ConfigError(`no AWS region: set AWS_REGION${named ? `=${named} (the queue URL's region)` : " to the queue URL's region"}${emulator}`);
  }
  if (config.sqsEndpointOverridden || isIP(url.hostname) !== 0 || awsQueueRegion(url.hostname) !== undefined) return;
  try {
    await lookupHost(url.hostname);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    throw new ConfigError(
      `the queue URL's host ${url.hostname} does not resolve (${typeof code === 'string' ? code : 'lookup failed'}): for an emulator set AWS_ENDPOINT_URL_SQS=${emulatorEndpoint(url)}`,
    );
  }
}

/** An emulator names its queues `sqs.<region>.localhost:<port>`: its endpoint is that port on 127.0.0.1. */
function emulatorEndpoint(url: URL): string {
  return `http://127.0.0.1:${url.port || '<port>'}`;
}

/** The region a queue URL's host names (`sqs.<region>.amazonaws.com`, an emulator's `sqs.<region>.localhost`). */
function regionNamedIn(hostname: string): string | undefined {
  return awsQueueRegion(hostname) ?? /^sqs\.([a-z]{2}(?:-[a-z]+)+-\d+)\./.exec(hostname)?.[1];
}
