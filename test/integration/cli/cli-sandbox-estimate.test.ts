/**
 * Honest plans (issue 56 item 5): against the embedded sandbox (no key) `plan` — and `npm start`'s
 * export, which plans the same way — estimates within 10 % of the requests the export then uses.
 * Before, every unit was counted at its dataset's typical day (25 requests a project-day): one day
 * of the three default projects was planned at 75 requests and took about 270, since proj_large
 * has 20,000 paths a day. The sandbox's sizes are known before any page (cli/sandbox-sizes.ts).
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../../helpers/cli.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { noAwsSetup } from '../../helpers/env.js';

const NOW = Date.parse('2026-03-10T06:00:00Z');
const DAY = '2026-03-08';

afterAll(async () => {
  await removeTempDirs();
});

describe('a plan of the embedded sandbox', () => {
  it('estimates one day of the default projects within 10 % of the requests the export uses, and calls it no guess', async () => {
    const folder = await makeTempDir('sandbox-estimate');
    const env = { ...noAwsSetup(folder), EXPORT_STATE_DIR: path.join(folder, 'state'), PERSONAL_DATA_KEY: 'k'.repeat(64) };
    const run = (argv: readonly string[]) => runCliInProcess(argv, { env, now: () => NOW, sleep: async () => undefined });

    const plan = await run(['plan', '--date', DAY, '--out', path.join(folder, 'data'), '--json']);
    const exported = await run(['export', '--date', DAY, '--out', path.join(folder, 'data'), '--json']);

    expect(plan.code, plan.stderr).toBe(0);
    expect(exported.code, exported.stderr).toBe(0);
    const planned = JSON.parse(plan.stdout) as { requests: number; units: { guess?: boolean; typical?: boolean }[] };
    const used = (JSON.parse(exported.stdout) as { requests: number }).requests;
    expect(planned.units).toHaveLength(21);
    expect(planned.units.filter((u) => u.guess || u.typical)).toEqual([]);
    expect(Math.abs(planned.requests - used) / used).toBeLessThanOrEqual(0.1);
    expect(used).toBeGreaterThan(200);
  }, 180_000);
});
