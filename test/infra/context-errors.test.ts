/**
 * A bad CDK context value as `cdk synth -c key=value` meets it: the app (infra/app.ts under tsx,
 * as cdk.json runs it, with the context the CDK CLI passes in CDK_CONTEXT_JSON) says one line
 * naming the option, the value and what is accepted — no stack trace — and exits 2. Offline:
 * the app stops before anything is synthesized or bundled.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/cli.js';
import { hostEnv } from '../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';

afterAll(removeTempDirs);

async function synthApp(context: Record<string, unknown>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const outdir = await makeTempDir('cdk-out');
  const child = spawn(process.execPath, ['--import', 'tsx', 'infra/app.ts'], {
    cwd: REPO_ROOT,
    env: { ...hostEnv(), CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  return { code, stdout, stderr };
}

describe('a bad context value', () => {
  it.each([
    [{ projectIds: 'proj_a,proj b' }, 'Invalid CDK context "projectIds": "proj b" is not accepted (expected project ids are letters, digits, _ and -).'],
    [{ projectIds: 'p', budget: 'lots' }, 'Invalid CDK context "budget": "lots" is not accepted (expected a budget such as 90/1h or 30/30m).'],
    [{ projectIds: 'p', settleHours: '100' }, 'Invalid CDK context "settleHours": 100 is not accepted (expected between 0 and 72).'],
    [
      { projectIds: 'p', partitionProjectionStart: '01/02/2020' },
      'Invalid CDK context "partitionProjectionStart": "01/02/2020" is not accepted (expected a day as YYYY-MM-DD, such as 2020-01-01).',
    ],
  ])(
    '%j is one line naming the option, the value and what is accepted, exit 2',
    async (context, line) => {
      const run = await synthApp(context);

      expect(run.code).toBe(2);
      expect(run.stderr).toBe(`${line}\n`);
      expect(run.stdout).toBe('');
    },
    30_000,
  );
});
