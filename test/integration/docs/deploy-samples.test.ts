/**
 * The samples of docs/deploy.md stay true: the `out.json` that `cdk deploy --outputs-file
 * out.json` writes names exactly the stack's outputs, and the first `status` a laptop runs
 * against the deployment (its bucket and state table: fauxqs and dynalite here, with the names
 * of the sample) prints what the page shows, on the day the page implies.
 */
import { readFile } from 'node:fs/promises';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STACK_OUTPUTS } from '../../../infra/stack.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { createStateTable, startDynamo, type Dynamo } from '../../helpers/emulators.js';
import { startS3Sqs, TEST_REGION, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { removeTempDirs } from '../../helpers/files.js';

let aws: S3Sqs;
let dynamo: Dynamo;

beforeAll(async () => {
  [aws, dynamo] = await Promise.all([startS3Sqs(), startDynamo()]);
});

afterAll(async () => {
  await Promise.all([aws?.close(), dynamo?.close()]);
  await removeTempDirs();
});

const deployDoc = () => readFile(new URL('../../../docs/deploy.md', import.meta.url), 'utf8');

/** The fenced block of `language` that follows `after` in `doc`. */
function blockAfter(doc: string, after: string, language: string): string {
  const start = doc.indexOf(after);
  expect(start, `docs/deploy.md has "${after}"`).toBeGreaterThanOrEqual(0);
  const fence = '```';
  const match = new RegExp(`${fence}${language}\\n([\\s\\S]*?)${fence}`).exec(doc.slice(start));
  expect(match, `a ${language} block after "${after}"`).not.toBeNull();
  return (match as RegExpExecArray)[1] as string;
}

describe('docs/deploy.md', () => {
  it("shows an out.json with exactly the stack's outputs", async () => {
    const sample = JSON.parse(blockAfter(await deployDoc(), 'A good first `out.json`', 'json')) as Record<string, Record<string, unknown>>;

    expect(Object.keys(sample)).toEqual(['MintlifyExporter']);
    const outputs = sample['MintlifyExporter'] as Record<string, unknown>;
    expect(Object.keys(outputs).sort()).toEqual(Object.keys(STACK_OUTPUTS).sort());
    for (const [name, value] of Object.entries(outputs)) expect(typeof value === 'string' && value !== '', name).toBe(true);
  });

  it('shows the first status as the CLI prints it against the deployment it names', async () => {
    // Prepare: the sample's command, its bucket (empty, as right after a deploy) and its state table
    const doc = await deployDoc();
    const commands = blockAfter(doc, 'A good first `status`', 'sh');
    const shown = blockAfter(doc, 'A good first `status`', 'text');
    const outputs = (JSON.parse(blockAfter(doc, 'A good first `out.json`', 'json')) as Record<string, Record<string, string>>)['MintlifyExporter'] ?? {};
    const exported = Object.fromEntries(
      [.../(\w+)=(\S+)/g[Symbol.matchAll](/^export (.*)$/m.exec(commands)?.[1] ?? '')].map((match) => [match[1] as string, match[2] as string]),
    );
    const argv = (/^npx mintlify-exporter (.*)$/m.exec(commands)?.[1] ?? '').split(/\s+/);
    expect(exported['EXPORT_STATE_TABLE']).toBe(outputs['StateTableName']);
    expect(argv).toContain(outputs['ExportDestination']);
    const bucket = /^s3:\/\/([^/]+)/.exec(outputs['ExportDestination'] ?? '')?.[1] as string;
    await aws.s3.send(new CreateBucketCommand({ Bucket: bucket }));
    await createStateTable(dynamo.client, exported['EXPORT_STATE_TABLE']);
    const lastDay = [...shown.matchAll(/\d{4}-\d{2}-\d{2}/g)]
      .map((match) => match[0])
      .sort()
      .at(-1) as string;
    const now = Date.parse(`${lastDay}T00:00:00Z`) + 34 * 3_600_000; // the next day, 10:00 UTC

    // Act
    const run = await runCliInProcess(argv, {
      env: { ...exported, AWS_REGION: TEST_REGION },
      now: () => now,
      extra: { clients: { s3: aws.s3, dynamo: dynamo.client } },
    });

    // Assess
    expect(run.code, run.stderr).toBe(0);
    // The page keeps no trailing blanks of the table's padding.
    const printed = `${run.stdout}${run.stderr}`.replace(/ +$/gm, '');
    expect(printed).toBe(shown);
  });
});
