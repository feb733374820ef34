/**
 * One terminal line (issue 41): under a pseudo-terminal, `export`'s progress frames are never
 * wider than the terminal's columns — so `\r` rewrites the whole frame and no refresh leaves a
 * line behind — and the personal-data key notice, written while a bar is shown, stands on a
 * line of its own. The real bin runs under `script` against the sandbox.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInTerminal } from '../../helpers/cli.js';
import { cliEnv, hostEnv, noAwsSetup } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const API_KEY = 'mint_terminal_line_0123456789abcdef';
const PROJECT = 'proj_terminal_line_with_a_long_identifier';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY, projects: [{ id: PROJECT, paths: 40, exact: true, rows: { views: 1500, feedback: 250 } }] });
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

/** What the terminal shows between line ends and carriage returns, without its escape sequences. */
function segmentsOf(output: string): string[] {
  return output
    .split(/\r\n|\r|\n/)
    .map((segment) => segment.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, ''))
    .filter((segment) => segment !== '');
}

const isFrame = (segment: string) => /\d+\/\d+ units/.test(segment);

describe('export under a terminal', () => {
  it.each([80, 50])(
    'draws no frame wider than %i columns, and the key notice on a line of its own',
    async (columns) => {
      const scratch = await makeTempDir('terminal-line');
      const env = await cliEnv(sandbox, {
        ...hostEnv(),
        ...noAwsSetup(scratch),
        // No key configured: the first feedback unit generates one and says so while the bar is shown.
        PERSONAL_DATA_KEY: '',
        ANALYTICS_BUDGET: '100000/1h',
      });

      const { code, output } = await runCliInTerminal(['export', '--days', '3', '--project', PROJECT, '--out', `${scratch}/data`], env, { columns });

      expect(code, output.slice(-2000)).toBe(0);
      const segments = segmentsOf(output);
      const frames = segments.filter(isFrame);
      expect(frames.length).toBeGreaterThan(10);
      for (const frame of frames) expect([...frame].length, frame).toBeLessThanOrEqual(columns);
      const notice = segments.filter((segment) => segment.includes('Generated the personal-data key'));
      expect(notice).toHaveLength(1);
      expect(notice[0]).toMatch(/^Generated the personal-data key/);
    },
    60_000,
  );
});
