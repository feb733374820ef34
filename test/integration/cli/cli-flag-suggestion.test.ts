/**
 * A mistyped flag (issue 41) names the flag meant: the real CLI in a child process says
 * `unknown option '--dayz'` and "(Did you mean --days?)" on its one error line, exits 2 and
 * sends nothing.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runSpawnedCli } from '../../helpers/cli.js';
import { hostEnv, noAwsSetup } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

afterAll(async () => {
  await removeTempDirs();
});

async function cli(args: readonly string[]) {
  const scratch = await makeTempDir('flag-suggestion');
  return runSpawnedCli(args, { ...hostEnv(), ...noAwsSetup(scratch), EXPORT_STATE_DIR: `${scratch}/state`, EXPORT_DESTINATION: `${scratch}/data` });
}

describe('an unknown flag suggests the nearest one', () => {
  it.each([
    [['export', '--dayz', '3'], "error: unknown option '--dayz' (Did you mean --days?)"],
    [['gaps', '--frm', '2026-11-01'], "error: unknown option '--frm' (Did you mean --from?)"],
    [['status', '--projekt', 'proj_a'], "error: unknown option '--projekt' (Did you mean --project?)"],
  ])('%j: one line with the suggestion, exit 2', async (args, line) => {
    const { code, stdout, stderr } = await cli(args);

    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toBe(`${line}\n`);
  });

  it('a flag nothing is near stays one line without a suggestion', async () => {
    const { code, stderr } = await cli(['export', '--zzzzzzzz']);

    expect(code).toBe(2);
    expect(stderr).toBe("error: unknown option '--zzzzzzzz'\n");
  });
});
