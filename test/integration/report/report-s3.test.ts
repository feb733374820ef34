/**
 * `report` on an `s3://` warehouse (fauxqs on loopback): the files are read with the AWS SDK —
 * no DuckDB extension downloaded — and the report is the same as the one of the same export
 * to a local folder. Without `--file` it lands in the current folder.
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { CopyObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport } from '../../../functions/report/report.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';
import { parseLakeTarget } from '../../../functions/warehouse/lake/target.js';

const PROJECT = 'proj_docs';
const NOW = Date.parse('2026-10-20T06:00:00.000Z');
const FROM = '2026-10-16';
const TO = '2026-10-20';
const period = { from: FROM, to: TO, days: ['2026-10-16', '2026-10-17', '2026-10-18', '2026-10-19'] };

let sandbox: Sandbox;
let aws: S3Sqs;
let env: Record<string, string>;
let local: string;
let lakeBucket: string;
let lake: string;

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([startSandbox({ projects: [{ id: PROJECT, paths: 120 }] }), startS3Sqs()]);
  env = await cliEnv(sandbox, { ANALYTICS_BUDGET: '100000/1h' });
  local = await makeTempDir('report-s3-local');
  lakeBucket = await aws.createBucket();
  lake = `s3://${lakeBucket}/lake`;
  for (const out of [local, lake]) {
    const result = await runCliInProcess(['export', '--from', FROM, '--to', TO, '--project', PROJECT, '--out', out], {
      env,
      now: () => NOW,
      extra: { clients: { s3: aws.s3 } },
    });
    expect(result.code, result.stderr).toBe(0);
  }
  sandbox.clearRequests();
});

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
  await removeTempDirs();
});

describe('report on S3', () => {
  it('reads the S3 lake with the SDK and gives the same figures as the same export in a folder', async () => {
    const fromS3 = await buildReport({ target: parseLakeTarget(lake, '--out'), period, projects: [] }, { now: () => NOW, s3Client: aws.s3 });
    const fromFolder = await buildReport({ target: parseLakeTarget(local, '--out'), period, projects: [] }, { now: () => NOW });
    expect(fromS3.figures.projects).toEqual([PROJECT]);
    expect(fromS3.figures.headline.current.human).toBeGreaterThan(0);
    expect(fromS3.figures).toEqual(fromFolder.figures);
    expect(fromS3.destination).toBe(lake);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('the CLI writes ./report.html in the current folder when the destination is s3:// and no --file is given', async () => {
    const cwd = await makeTempDir('report-s3-cwd');
    const result = await runCliInProcess(['report', '--from', FROM, '--to', TO, '--out', lake], {
      env,
      now: () => NOW,
      extra: { clients: { s3: aws.s3 }, cwd },
    });
    expect(result.code, result.stderr).toBe(0);
    const file = path.join(cwd, 'report.html');
    expect(result.stdout).toContain(`Report of ${lake}, ${FROM} to 2026-10-19 (1 project(s)), written to ${file}`);
    expect(await readFile(file, 'utf8')).toContain(`<code>${lake}</code>`);
  });

  it('a bucket key with "..", "." or empty segments or a backslash is skipped with a warning, and nothing is written outside the mirror', async () => {
    const bucket = await aws.createBucket();
    const evil = `s3://${bucket}/u`;
    // The same export as the lake's: its objects copied under u/ (exporting it again took seconds).
    const keys: string[] = [];
    let token: string | undefined;
    do {
      const page = await aws.s3.send(new ListObjectsV2Command({ Bucket: lakeBucket, Prefix: 'lake/', ContinuationToken: token }));
      keys.push(...(page.Contents ?? []).map((object) => object.Key as string));
      token = page.NextContinuationToken;
    } while (token !== undefined);
    expect(keys.length).toBeGreaterThan(0);
    await Promise.all(
      keys.map((key) => aws.s3.send(new CopyObjectCommand({ Bucket: bucket, Key: `u/${key.slice('lake/'.length)}`, CopySource: `${lakeBucket}/${key}` }))),
    );
    const marker = `PWNED-${process.pid}-${Date.now()}.txt`;
    const hostile = [
      `u/visitors_totals/dt=2026-10-17/../../../${marker}`,
      `u/visitors_totals/dt=2026-10-17/../../../../../../../../../../../../../../../../${marker}`,
      `u/visitors_totals/dt=2026-10-17/./${marker}`,
      `u/visitors_totals/dt=2026-10-17//${marker}`,
      `u/visitors_totals/dt=2026-10-17/..\\..\\..\\${marker}`,
    ];
    for (const Key of hostile) await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key, Body: 'echo pwned' }));
    // A console's "folder" marker is no file and no threat: skipped without a word.
    await aws.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'u/visitors_totals/dt=2026-10-18/', Body: '' }));
    const listed = await aws.s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: 'u/visitors_totals/dt=2026-10-17/' }));
    expect(listed.Contents?.map((o) => o.Key)).toEqual(expect.arrayContaining(hostile));

    const cwd = await makeTempDir('report-s3-hostile');
    const result = await runCliInProcess(['report', '--from', FROM, '--to', TO, '--out', evil], {
      env,
      now: () => NOW,
      extra: { clients: { s3: aws.s3 }, cwd },
    });
    const escaped = [tmpdir(), path.dirname(tmpdir()), path.parse(tmpdir()).root, cwd, path.dirname(cwd)].map((folder) => path.join(folder, marker));
    const written = escaped.filter((file) => existsSync(file));
    await Promise.all(written.map((file) => rm(file, { force: true }))); // a regression cleans up before it fails
    expect(written).toEqual([]);
    expect(result.code, result.stderr).toBe(0);
    const warnings = result.stderr.trim().split('\n');
    expect(warnings).toHaveLength(hostile.length);
    for (const key of hostile) expect(result.stderr).toContain(`Warning: skipped s3://${bucket}/${key}: `);
    expect(await readFile(path.join(cwd, 'report.html'), 'utf8')).toContain(`<code>${evil}</code>`);
  });

  it('an empty prefix gives one line and exit code 1, and writes nothing', async () => {
    const cwd = await makeTempDir('report-s3-empty');
    const result = await runCliInProcess(['report', '--out', `${lake}-nothing-here`], { env, now: () => NOW, extra: { clients: { s3: aws.s3 }, cwd } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^No report: nothing exported in s3:\/\/.+-nothing-here from /);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(path.join(cwd, 'report.html'))).toBe(false);
  });
});
