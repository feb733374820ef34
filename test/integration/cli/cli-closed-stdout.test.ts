/**
 * `status | head`: the reader closes the pipe before the CLI has written everything (issue 28).
 * The real process ends at once, with exit 0 and nothing on stderr — no EPIPE stack trace.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { spawnCli } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox();
});

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('a CLI whose stdout is closed by its reader', () => {
  it('status ends quietly with exit 0', async () => {
    const env = await cliEnv(sandbox, {});
    const cli = spawnCli(['status', '--days', '7', '--project', 'proj_synth_100', '--out', await makeTempDir('epipe')], env);
    // The reader goes away before the first line: every write the CLI makes fails with EPIPE.
    cli.child.stdout?.destroy();

    const { code } = await cli.exited;

    expect(cli.stderr()).toBe('');
    expect(code).toBe(0);
  });
});
