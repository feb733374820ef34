/**
 * Role: a follow-up test file's set-up, once for all of them (`useFollowUpFixture`): the sandbox
 * API, fauxqs (SQS, SNS, S3), dynalite and a fresh state table, and a bucket for the outcome
 * records, started before the file's tests and closed after; the settings of short intervals
 * for one project; and a message's dependencies wired to those servers.
 *
 * ```ts
 * const fixture = useFollowUpFixture({ agent: { activeMs: 300 } });
 * const { project: PROJECT, settings: SETTINGS } = fixture;
 * it('…', async () => {
 *   const dlq = await fixture.aws.createQueue();
 *   await processMessage({ messageId: 'm', body }, fixture.deps(dlq), SETTINGS);
 * });
 * ```
 */
import { afterAll, beforeAll } from 'vitest';
import { followUpTableStore } from '../../functions/follow-up/open-state-store.js';
import type { FollowUpSettings } from '../../functions/follow-up/settings.js';
import { createStateStore, type StateStore } from '../../functions/follow-up/state.js';
import type { FollowUpDeps } from '../../functions/follow-up/types.js';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/index.js';
import { startS3Sqs, type S3Sqs } from '../../scripts/lib/s3-sqs.js';
import { createStateTable, startDynamo, type Dynamo } from './emulators.js';
import { fastFollowUpSettings, followUpDeps, type FollowUpDepsOptions } from './run-deps.js';

/** What a follow-up test file runs against, and what it builds a message's processing from. */
export interface FollowUpFixture {
  /** The sandbox project the messages name. */
  readonly project: string;
  /** Short intervals (50 ms polls, a 3 s budget) for {@link project}: a file runs in seconds. */
  readonly settings: FollowUpSettings;
  readonly sandbox: Sandbox;
  readonly aws: S3Sqs;
  readonly dynamo: Dynamo;
  /** The follow-up state, in a fresh DynamoDB table. */
  readonly store: StateStore;
  /** Outcome records go under `s3://<bucket>/warehouse`. */
  readonly bucket: string;
  /** A message's dependencies on these servers, dead letters to `deadLetterUrl`; `extra` replaces parts (the owner, a notifier). */
  deps(deadLetterUrl: string, extra?: Partial<FollowUpDeps>, options?: Pick<FollowUpDepsOptions, 'logger' | 'client'>): FollowUpDeps;
}

/** The servers of a {@link FollowUpFixture}, started in `beforeAll` with the sandbox's `options` and closed in `afterAll`. */
export function useFollowUpFixture(options: SandboxOptions, project = 'proj_small'): FollowUpFixture {
  let servers: Pick<FollowUpFixture, 'sandbox' | 'aws' | 'dynamo' | 'store' | 'bucket'> | undefined;
  beforeAll(async () => {
    const [sandbox, aws, dynamo] = await Promise.all([startSandbox(options), startS3Sqs(), startDynamo()]);
    const store = createStateStore(followUpTableStore(await createStateTable(dynamo.client, 'followup-state'), dynamo.client));
    servers = { sandbox, aws, dynamo, store, bucket: await aws.createBucket() };
  });
  afterAll(async () => {
    await Promise.all([servers?.sandbox.close(), servers?.aws.close(), servers?.dynamo.close()]);
  });
  const started = () => {
    if (servers === undefined) throw new Error('the follow-up servers start in beforeAll: use them in a test or a hook');
    return servers;
  };
  return {
    project,
    settings: fastFollowUpSettings([project]),
    get sandbox() {
      return started().sandbox;
    },
    get aws() {
      return started().aws;
    },
    get dynamo() {
      return started().dynamo;
    },
    get store() {
      return started().store;
    },
    get bucket() {
      return started().bucket;
    },
    deps(deadLetterUrl, extra = {}, depsOptions = {}) {
      const { sandbox, aws, store, bucket } = started();
      return followUpDeps({ sandbox, aws, store, bucket, deadLetterUrl, ...depsOptions }, extra);
    },
  };
}
