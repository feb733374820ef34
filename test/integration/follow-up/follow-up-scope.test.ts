/**
 * The follow-up function checks each completed job's pull request as the job completes (issue
 * 52), end to end on loopback: the sandbox API, dynalite, fauxqs (S3 outcome records, the
 * insights topic's subscriber) and the GitHub stand-in read by octokit. The outcome record
 * holds scope, scope_reasons and merged_at; a pull request out of scope alerts on the insights
 * topic; nothing configured leaves the record unchecked; a docs repository without a token is
 * unknown, with no request to GitHub.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FollowUpOutcome } from '../../../functions/follow-up/outcome.js';
import { processMessage } from '../../../functions/follow-up/process-message.js';
import type { FollowUpDeps } from '../../../functions/follow-up/types.js';
import { followUpScopeOf } from '../../../functions/scope/follow-up.js';
import { CONFIG_DEFAULTS } from '../../../functions/settings/config.js';
import { useFollowUpFixture } from '../../helpers/follow-up-fixture.js';
import { startGitHubStandIn, type GitHubStandIn } from '../../../scripts/lib/github-stand-in.js';

const fixture = useFollowUpFixture({ agent: { activeMs: 100 } });
const { project: PROJECT, settings: SETTINGS } = fixture;
const TOKEN = 'ghp_follow_up_token_99';

let github: GitHubStandIn;
let jobs = 0;

beforeAll(async () => {
  github = await startGitHubStandIn({ token: TOKEN });
});
afterAll(() => github.close());

const scopeSettings = {
  githubApiUrl: '',
  scopeAllowed: CONFIG_DEFAULTS.scopeAllowed,
  scopeProtected: CONFIG_DEFAULTS.scopeProtected,
  scopeMaxFiles: CONFIG_DEFAULTS.scopeMaxFiles,
  scopeMaxLines: CONFIG_DEFAULTS.scopeMaxLines,
  githubScopeStatus: false,
};

async function complete(prLink: string, extra: Partial<FollowUpDeps>): Promise<FollowUpOutcome> {
  const jobId = `job_scope_${++jobs}`;
  fixture.sandbox.createJob(PROJECT, { id: jobId, status: 'completed', prLink: null });
  fixture.sandbox.scriptNextRun(PROJECT, jobId, { outcome: 'completed', prLink, activeMs: 50 });
  const dlq = await fixture.aws.createQueue(undefined, {});
  const body = JSON.stringify({ projectId: PROJECT, jobId, prompt: 'Document the webhook retries', requestId: `req_${jobId}`, gapId: 'gap_webhooks' });
  const result = await processMessage({ messageId: `m-${jobId}`, body }, fixture.deps(dlq, extra), SETTINGS);
  expect(result).toMatchObject({ action: 'handled', status: 'completed', prLink });
  const listed = await fixture.aws.s3.send(new ListObjectsV2Command({ Bucket: fixture.bucket, Prefix: 'warehouse/followup_outcomes/' }));
  const key = listed.Contents?.find((object) => object.Key?.endsWith(`/req_${jobId}.json`))?.Key;
  const object = await fixture.aws.s3.send(new GetObjectCommand({ Bucket: fixture.bucket, Key: key }));
  return JSON.parse(await object.Body!.transformToString()) as FollowUpOutcome;
}

async function received(queueUrl: string) {
  const answer = await fixture.aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  return (answer.Messages ?? []).map(
    (message) => JSON.parse(message.Body ?? '{}') as { Subject: string; Message: string; MessageAttributes: Record<string, { Value: string }> },
  );
}

describe('the follow-up function checks the pull request as its job completes', () => {
  it('records out_of_scope with its reasons on the outcome, and alerts on the insights topic', async () => {
    const link = github.add({
      owner: 'acme',
      repo: 'docs',
      number: 21,
      files: [{ filename: '.github/workflows/deploy.yml' }, { filename: 'api/webhooks.mdx' }],
    });
    const { topicArn, subscriber } = await fixture.aws.createTopicWithSubscriber();
    const scope = followUpScopeOf(
      { ...scopeSettings, githubApiUrl: github.url, docsRepository: 'acme/docs', githubToken: TOKEN, insightsTopicArn: topicArn },
      { sns: fixture.aws.sns, github: { retryDelayMs: 1 } },
    );

    const outcome = await complete(link, { scope });

    expect(outcome).toMatchObject({ status: 'completed', pr_link: link, scope: 'out_of_scope', merged_at: null });
    expect(JSON.parse(outcome.scope_reasons ?? 'null')).toEqual([{ rule: 'protected', files: ['.github/workflows/deploy.yml'] }]);
    const alerts = await received(subscriber);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]?.MessageAttributes['kind']?.Value).toBe('scope');
    expect(alerts[0]?.MessageAttributes['projectId']?.Value).toBe(PROJECT);
    expect(alerts[0]?.Message).toContain(link);
    expect(alerts[0]?.Message).toContain('.github/workflows/deploy.yml');
  });

  it('records in_scope and the merge, and alerts nobody', async () => {
    const link = github.add({
      owner: 'acme',
      repo: 'docs',
      number: 22,
      files: [{ filename: 'api/webhooks.mdx', additions: 40 }],
      mergedAt: '2026-11-21T09:30:00Z',
    });
    const { topicArn, subscriber } = await fixture.aws.createTopicWithSubscriber();
    const scope = followUpScopeOf(
      { ...scopeSettings, githubApiUrl: github.url, docsRepository: 'acme/docs', githubToken: TOKEN, insightsTopicArn: topicArn },
      { sns: fixture.aws.sns },
    );

    const outcome = await complete(link, { scope });

    expect(outcome).toMatchObject({ scope: 'in_scope', scope_reasons: '[]', merged_at: '2026-11-21T09:30:00.000Z' });
    expect(await received(subscriber)).toEqual([]);
  });

  it('a docs repository but no token: unknown, and no request reaches GitHub', async () => {
    const link = github.add({ owner: 'acme', repo: 'docs', number: 23, files: [{ filename: 'api/webhooks.mdx' }] });
    const before = github.requests.length;
    const scope = followUpScopeOf({ ...scopeSettings, githubApiUrl: github.url, docsRepository: 'acme/docs' });

    const outcome = await complete(link, { scope });

    expect(outcome).toMatchObject({ scope: 'unknown', scope_reasons: JSON.stringify([{ rule: 'no_token', files: [] }]) });
    expect(github.requests.length).toBe(before);
  });

  it('nothing configured: the pull request is not checked (scope null)', async () => {
    const link = github.add({ owner: 'acme', repo: 'docs', number: 24, files: [{ filename: 'package.json' }] });
    expect(followUpScopeOf({ ...scopeSettings, githubApiUrl: github.url })).toBeUndefined();

    const outcome = await complete(link, {});

    expect(outcome).toMatchObject({ scope: null, scope_reasons: null, merged_at: null });
  });
});
