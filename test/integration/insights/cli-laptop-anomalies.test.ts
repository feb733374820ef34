/**
 * Anomalies on a laptop (issue 37): `export` runs the deployment's anomaly check over the days
 * it completed and writes the same marks, so `status` names the anomaly. Five weeks of one
 * project's visitors, whose last Tuesday the sandbox serves at a tenth of its usual traffic.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const PROJECT = 'proj_quiet';
/** A Tuesday, at a tenth of the four Tuesdays before it. */
const QUIET = '2026-11-17';
const FROM = '2026-10-14';
const TO = '2026-11-18';
/** Wednesday 06:00 UTC: the quiet Tuesday is due. */
const NOW = Date.parse('2026-11-18T06:00:00Z');

let sandbox: Sandbox;
let env: Record<string, string>;
let out: string;

beforeAll(async () => {
  sandbox = await startSandbox({ projects: [{ id: PROJECT, paths: 40, exact: true, quietDays: [QUIET] }] });
  env = await cliEnv(sandbox, { EXPORT_DATASETS: 'visitors', API_TIMEOUT_MS: '5000', ANALYTICS_BUDGET: '100000/1h' });
  out = await makeTempDir('laptop-anomalies');
});

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

const cli = (argv: readonly string[]) => runCliInProcess([...argv, '--project', PROJECT, '--out', out], { env, now: () => NOW, sleep: async () => undefined });

describe('anomalies on a laptop', () => {
  it('an export of five weeks with a quiet day makes status name the anomaly', async () => {
    const exported = await cli(['export', '--from', FROM, '--to', TO]);
    expect(exported.code, exported.stderr).toBe(0);

    const human = await cli(['status', '--days', '7']);
    const json = await cli(['status', '--days', '7', '--json']);

    expect(human.stdout).toMatch(new RegExp(`! anomaly ${QUIET} ${PROJECT}: .*human visitors`));
    expect(JSON.parse(json.stdout).anomalies).toEqual([expect.objectContaining({ day: QUIET, projectId: PROJECT })]);
  }, 120_000);
});
