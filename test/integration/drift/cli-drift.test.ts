/**
 * What a user sees when the API changed: `mintlify-exporter sandbox --drift` (the real
 * process), then `export` against it (the real process): every unit completes, exit 0, one
 * warning per dataset on stderr naming the new fields and values; then `status` marks those
 * units (`complete~`) and `--json` carries each manifest's drift. Also the run log record.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { runCliInProcess, spawnCli, waitUntil, type CliChild } from '../../helpers/cli.js';

const PROJECT = 'proj_synth_120';
const DAY = '2026-10-08';
const NOW = Date.parse('2026-10-09T06:00:00.000Z');

let sandbox: CliChild;
let url: string;
let out: string;
let env: Record<string, string>;
let exported: { code: number | null; stdout: string; stderr: string };

beforeAll(async () => {
  sandbox = spawnCli(['sandbox', '--drift', '--port', '0'], {});
  await waitUntil(() => /listening on (http:\/\/127\.0\.0\.1:\d+)/.test(sandbox.stdout()), 'the sandbox to listen');
  url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(sandbox.stdout())?.[1] as string;
  const key = /MINTLIFY_API_KEY=(\S+)/.exec(sandbox.stdout())?.[1] as string;
  out = await makeTempDir('cli-drift');
  env = { MINTLIFY_API_URL: url, MINTLIFY_API_KEY: key, EXPORT_STATE_DIR: await makeTempDir('cli-drift-state'), ANALYTICS_BUDGET: '1000/1h' };
  const child = spawnCli(['export', '--date', DAY, '--project', PROJECT, '--out', out], env);
  const { code } = await child.exited;
  exported = { code, stdout: child.stdout(), stderr: child.stderr() };
}, 60_000);

afterAll(async () => {
  sandbox?.child.kill('SIGINT');
  await sandbox?.exited;
  await removeTempDirs();
});

describe('export against an API that changed (sandbox --drift)', () => {
  it('says drift mode is on when the sandbox starts', () => {
    expect(sandbox.stdout()).toContain('Drift mode');
  });

  it('completes every unit and exits 0', () => {
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stdout).toContain('7 of 7 unit(s) exported');
  });

  it('prints one warning per dataset naming the new fields and values', () => {
    const warnings = exported.stderr.split('\n').filter((line) => line.startsWith('warning: '));

    expect(warnings).toHaveLength(7);
    expect(warnings.find((line) => line.includes("API's assistant answers"))).toBe(
      'warning: the API\'s assistant answers changed in 1 unit(s): new field(s) assistant_conversations.searches, assistant_conversations.sources[].score (kept in unknown_fields; nested ones as sent in their column); new value(s) assistant_conversations.response_type "tool_call" (kept as sent); nothing was lost (see SchemaDrift in docs/operations.md)',
    );
    expect(warnings.find((line) => line.includes("API's caller_stats answers"))).toContain('new field(s) assistant_caller_stats.mcp');
  });

  it("status marks the units with drift and --json carries each manifest's drift", async () => {
    const argv = ['status', '--days', '1', '--project', PROJECT, '--dataset', 'feedback', '--dataset', 'views', '--out', out];

    const text = await runCliInProcess(argv, { env, now: () => NOW });
    const json = await runCliInProcess([...argv, '--json'], { env, now: () => NOW });

    expect(
      text.stdout
        .split('\n')
        .find((line) => line.startsWith(DAY))
        ?.trim()
        .split(/\s+/),
    ).toEqual([DAY, PROJECT, 'complete~', 'complete~']);
    expect(text.stdout).toContain('~ 2 unit(s) had fields or values this version does not know');
    const units = (JSON.parse(json.stdout) as { units: { dataset: string; drift?: unknown }[] }).units;
    expect(units.find((unit) => unit.dataset === 'feedback')?.drift).toEqual({
      tables: { feedback: { fields: ['sentiment'], values: { source: ['widget'], status: ['archived'] } } },
      topLevelFields: [],
    });
  });

  it('the run log record counts the units with drift', async () => {
    // The spawned export ran on the real clock: its record is in the one dt= folder there is.
    const [day] = await readdir(path.join(out, 'export_runs'));
    const folder = path.join(out, 'export_runs', day as string);
    const [file] = await readdir(folder);
    const record = JSON.parse(await readFile(path.join(folder, file as string), 'utf8')) as Record<string, unknown>;

    expect(record).toMatchObject({ units_done: 7, units_failed: 0, units_drift: 7 });
  });
});
