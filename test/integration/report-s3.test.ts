/**
 * `report` on an `s3://` warehouse (fauxqs on loopback): the files are read with the AWS SDK —
 * no DuckDB extension downloaded — and the report is the same as the one of the same export
 * to a local folder. Without `--file` it lands in the current folder.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport } from '../../functions/report/report.js';
import { startSandbox, type Sandbox } from '../../sandbox/index.js';
import { startS3Sqs, type S3Sqs } from '../helpers/emulators.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';
import { runCliInProcess } from '../helpers/cli.js';
import { cliEnv } from '../helpers/env.js';

const PROJECT = 'proj_docs';
const NOW = Date.parse('2026-10-20T06:00:00.000Z');
const FROM = '2026-10-16';
const TO = '2026-10-20';
const period = { from: FROM, to: TO, days: ['2026-10-16', '2026-10-17', '2026-10-18', '2026-10-19'] };

let sandbox: Sandbox;
let aws: S3Sqs;
let env: Record<string, string>;
let local: string;
let lake: string;

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([startSandbox({ projects: [{ id: PROJECT, paths: 120 }] }), startS3Sqs()]);
  env = await cliEnv(sandbox, { ANALYTICS_BUDGET: '100000/1h' });
  local = await makeTempDir('report-s3-local');
  lake = `s3://${await aws.createBucket()}/lake`;
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
    const fromS3 = await buildReport({ destination: lake, period, projects: [] }, { now: () => NOW, s3Client: aws.s3 });
    const fromFolder = await buildReport({ destination: local, period, projects: [] }, { now: () => NOW });
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

  it('an empty prefix gives one line and exit code 1, and writes nothing', async () => {
    const cwd = await makeTempDir('report-s3-empty');
    const result = await runCliInProcess(['report', '--out', `${lake}-nothing-here`], { env, now: () => NOW, extra: { clients: { s3: aws.s3 }, cwd } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^No report: nothing exported in s3:\/\/.+-nothing-here from /);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(path.join(cwd, 'report.html'))).toBe(false);
  });
});
