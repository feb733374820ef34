/**
 * A bad CDK context value as `cdk synth -c key=value` meets it: the app (infra/app.ts under tsx,
 * as cdk.json runs it, with the context the CDK CLI passes in CDK_CONTEXT_JSON) says one line
 * naming the option, the value and what is accepted — no stack trace — and exits 2. Offline:
 * the app stops before anything is synthesized or bundled. One value goes through the app in a
 * process of its own (the line on stderr, the exit code); the others are read in process by
 * `configFromContext`, the call the app makes, whose message is that line.
 */
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { ContextConfigError, configFromContext } from '../../infra/stack.js';
import { REPO_ROOT } from '../helpers/cli.js';
import { hostEnv } from '../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../helpers/files.js';
import { withApp } from '../helpers/synth.js';

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

/** What `configFromContext` threw on `context`, the call infra/app.ts makes first. */
function refusal(context: Record<string, unknown>): unknown {
  try {
    withApp(context, (app) => configFromContext(app));
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('a bad context value', () => {
  it('is one line on stderr naming the option, the value and what is accepted, exit 2, from the app as the CDK CLI runs it', async () => {
    const run = await synthApp({ projectIds: 'proj_a,proj b' });

    expect(run.code).toBe(2);
    expect(run.stderr).toBe('Invalid CDK context "projectIds": "proj b" is not accepted (expected project ids are letters, digits, _ and -).\n');
    expect(run.stdout).toBe('');
  }, 60_000);

  it.each([
    [{ projectIds: 'p', budget: 'lots' }, 'Invalid CDK context "budget": "lots" is not accepted (expected a budget such as 90/1h or 30/30m).'],
    [{ projectIds: 'p', settleHours: '100' }, 'Invalid CDK context "settleHours": 100 is not accepted (expected between 0 and 72).'],
    [
      { projectIds: 'p', partitionProjectionStart: '01/02/2020' },
      'Invalid CDK context "partitionProjectionStart": "01/02/2020" is not accepted (expected a day as YYYY-MM-DD, such as 2020-01-01).',
    ],
  ])('%j is the one line the app prints, naming the option, the value and what is accepted', (context, line) => {
    const error = refusal(context);

    expect(error).toBeInstanceOf(ContextConfigError);
    expect((error as Error).message).toBe(line);
    expect(line).not.toContain('\n');
  });
});
