/**
 * The scope check as deployed (issue 52): the synth of `-c docsRepository=acme/docs` (in process,
 * local esbuild bundling, cdk-nag), then the follow-up bundle in its own Node process with the
 * environment the template gives it — the token read from the scope check's secret — against
 * the sandbox, the emulators and the GitHub stand-in, every AWS call put through the IAM guard
 * over the synthesized role (test/helpers/iam.ts). A completed job's pull request that touches a
 * protected file is recorded `out_of_scope` with its reasons on the outcome record
 * (`scope`, `scope_reasons`, `merged_at`) and alerted on the insights topic.
 */
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAST_POLL, followUpQueueId, queueCompletedFollowUp, startBundleStand, type BundleStandWithSandbox } from '../helpers/bundle-fixture.js';
import { functionEnvironment, functionHandler, invokeBundle } from '../../scripts/lib/bundles.js';
import { startGitHubStandIn, type GitHubStandIn } from '../../scripts/lib/github-stand-in.js';
import { startIamGuard, type IamGuard } from '../helpers/iam.js';
import { startFakeSecretsManager, type FakeSecretsManager } from '../helpers/secrets-manager.js';

const PROJECT = 'proj_scope';
const FOLLOW_UP = 'Sends queued follow-up prompts';
const API_KEY_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:mintlify-scope-AbCdEf';
const TOKEN_SECRET_ARN = 'arn:aws:secretsmanager:us-east-1:000000000000:secret:mintlify-github-token-MnOpQr';
const TOKEN = 'ghp_scope_bundle_token_0123456789';

let stand: BundleStandWithSandbox;
let secrets: FakeSecretsManager;
let github: GitHubStandIn;
const guards: IamGuard[] = [];

beforeAll(async () => {
  [stand, github] = await Promise.all([
    startBundleStand({ projectIds: PROJECT, docsRepository: 'acme/docs' }, { sandbox: { projects: [{ id: PROJECT, paths: 10, exact: true }] } }),
    startGitHubStandIn({ token: TOKEN }),
  ]);
  secrets = await startFakeSecretsManager({ [API_KEY_SECRET_ARN]: stand.sandbox.apiKey, [TOKEN_SECRET_ARN]: JSON.stringify({ token: TOKEN }) });
}, 300_000);

afterAll(async () => {
  await Promise.all([stand?.close(), secrets?.close(), github?.close(), ...guards.map((g) => g.close())]);
});

describe('the follow-up bundle with the scope check (-c docsRepository=acme/docs)', { timeout: 180_000 }, () => {
  it('synthesizes with no unacknowledged cdk-nag finding', () => {
    expect(stand.assembly.output).not.toMatch(/AwsSolutions-/);
  });

  it("records a completed job's pull request out of scope on its outcome, with the token of its secret, within its role, and alerts", async () => {
    const prLink = github.add({
      owner: 'acme',
      repo: 'docs',
      number: 31,
      files: [{ filename: '.github/workflows/deploy.yml' }, { filename: 'api/webhooks.mdx', additions: 12 }],
      mergedAt: '2026-11-21T09:30:00Z',
    });
    const { assembly, sandbox, aws, dynamo, bucket, table } = stand;
    const { queueUrl, deadLetterUrl, event } = await queueCompletedFollowUp(aws, sandbox, {
      projectId: PROJECT,
      jobId: 'job_scope',
      prompt: 'Document the webhook retries.',
      requestId: 'req-scope-1',
      prLink,
    });
    const outcomes = await aws.createTopicWithSubscriber();
    const insights = await aws.createTopicWithSubscriber();
    const values = {
      MINTLIFY_API_KEY_SECRET_ARN: API_KEY_SECRET_ARN,
      EXPORT_DESTINATION: `s3://${bucket}/mintlify`,
      FOLLOWUP_STATE_TABLE: table,
      FOLLOWUP_DEAD_LETTER_QUEUE_URL: deadLetterUrl,
      FOLLOWUP_OUTCOMES_TOPIC_ARN: outcomes.topicArn ?? '',
      INSIGHTS_TOPIC_ARN: insights.topicArn ?? '',
      GITHUB_TOKEN_SECRET_ARN: TOKEN_SECRET_ARN,
      EXPORT_GLUE_DATABASE: 'mintlify_analytics',
    };
    // No Glue here (test/infra/synth-bundle.test.ts registers the outcome's day): the database unset.
    const env: Record<string, string> = { ...functionEnvironment(assembly.resources, FOLLOW_UP, values), EXPORT_GLUE_DATABASE: '' };
    // The queue the event source reads is named by no variable: bound by its place in the template.
    const queueId = followUpQueueId(assembly.resources);
    const iam = await startIamGuard({
      resources: assembly.resources,
      description: FOLLOW_UP,
      values,
      upstreams: { S3: aws.endpoint, SQS: aws.endpoint, SNS: aws.endpoint, DYNAMODB: dynamo.endpoint, SECRETS_MANAGER: secrets.endpoint },
      bind: { [queueId]: queueUrl },
    });
    guards.push(iam);

    const { result, error, logs } = await invokeBundle(
      assembly.outDir,
      `${assembly.functionAssetDir(FOLLOW_UP)}/index.js`,
      event,
      { ...env, MINTLIFY_API_URL: sandbox.url, GITHUB_API_URL: github.url, ...FAST_POLL, ...iam.env },
      functionHandler(assembly.resources, FOLLOW_UP),
      120_000,
    );

    expect(iam.denied, 'calls its role may not make').toEqual([]);
    expect(error, logs).toBeUndefined();
    expect(result).toEqual({ batchItemFailures: [] });
    expect(env['DOCS_REPOSITORY']).toBe('acme/docs');
    expect(iam.calls).toContain(`secretsmanager:GetSecretValue on ${TOKEN_SECRET_ARN}`);
    expect(github.requests.filter((r) => r.path.startsWith('/repos/acme/docs/pulls/31')).every((r) => r.authorized)).toBe(true);
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'mintlify/followup_outcomes/' }));
    const key = listed.Contents?.find((object) => object.Key?.endsWith('/req-scope-1.json'))?.Key;
    const object = await aws.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    const outcome = JSON.parse(await object.Body!.transformToString()) as Record<string, unknown>;
    expect(outcome).toMatchObject({ status: 'completed', pr_link: prLink, scope: 'out_of_scope', merged_at: '2026-11-21T09:30:00.000Z' });
    expect(JSON.parse(String(outcome['scope_reasons']))).toEqual([{ rule: 'protected', files: ['.github/workflows/deploy.yml'] }]);
    const alerts = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: insights.subscriber, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));
    expect(
      (alerts.Messages ?? []).map(
        (m) => (JSON.parse(m.Body ?? '{}') as { MessageAttributes?: Record<string, { Value: string }> }).MessageAttributes?.['kind']?.Value,
      ),
    ).toEqual(['scope']);
    expect(logs).not.toContain(TOKEN);
  });
});
