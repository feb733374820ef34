/**
 * A first report that says how to fill itself (issue 37): after the first export (one day of the
 * report's seven), the page — near the top — and `report`'s stderr name the exact `export`
 * command that fills the period and what it costs, with `status`'s own estimate; once that
 * command has run, neither says anything. The CLI runs in process against the sandbox on
 * 127.0.0.1, on a fixed clock.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { cliEnv } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

/** 10:00 UTC: with the default 2 settle hours the latest due day is 2026-11-22. */
const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const LATEST = '2026-11-22';
const FIRST = '2026-11-16';
const PROJECT = 'proj_small';

let sandbox: Sandbox;
let env: Record<string, string>;
let out: string;

beforeAll(async () => {
  sandbox = await startSandbox();
  env = await cliEnv(sandbox, { ANALYTICS_BUDGET: '10/1h' });
  out = await makeTempDir('report-fill');
  // The first export: the latest due day only, as `npm start` with a key does.
  const first = await cli(['export', '--date', LATEST, '--project', PROJECT], { ANALYTICS_BUDGET: '100000/1h' });
  expect(first.code, first.stderr).toBe(0);
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

function cli(argv: readonly string[], extra: Record<string, string> = {}) {
  return runCliInProcess([...argv, '--out', out], { env: { ...env, ...extra }, now: () => NOW, sleep: async () => undefined });
}

async function report() {
  const run = await cli(['report', '--days', '7']);
  expect(run.code, run.stderr).toBe(0);
  return { ...run, html: await readFile(path.join(out, 'report.html'), 'utf8') };
}

describe('a report of a period with days missing', () => {
  it('names the export that fills it, on the page before the figures and on stderr, with the estimate status gives', async () => {
    const status = await cli(['status', '--from', FIRST, '--to', LATEST, '--project', PROJECT, '--json']);
    const todo = (JSON.parse(status.stdout) as { todo: { units: number; requests: number } }).todo;

    const { stderr, html } = await report();

    const command = `mintlify-exporter export --from ${FIRST} --to ${LATEST} --project ${PROJECT} --out ${out}`;
    expect(todo.units).toBe(6 * 7);
    expect(stderr).toContain(`6 of the 7 due day(s) of this period are not fully exported; fill them with: ${command} (about ${todo.requests} request(s)`);
    // 10 requests an hour: the budget's time, as status words it for firm estimates.
    expect(stderr).toMatch(/the request budget \(10\/1h\) needs up to \d+ h \d+ min\), then run report again\./);
    expect(html).toContain(`<pre><code>${command}</code></pre>`);
    expect(html).toContain(`Expected: about ${todo.requests} request(s)`);
    expect(html.indexOf('id="fill"')).toBeGreaterThan(-1);
    expect(html.indexOf('id="fill"')).toBeLessThan(html.indexOf('id="headline"'));
  });

  it('the command it names fills the period: run as printed, the next report says nothing of it', async () => {
    const { stderr } = await report();
    const argv = /fill them with: mintlify-exporter (.+?) \(about/.exec(stderr)?.[1]?.split(' ') ?? [];
    expect(argv.slice(0, 5)).toEqual(['export', '--from', FIRST, '--to', LATEST]);

    const fill = await runCliInProcess(argv, { env: { ...env, ANALYTICS_BUDGET: '100000/1h' }, now: () => NOW, sleep: async () => undefined });
    expect(fill.code, fill.stderr).toBe(0);
    const after = await report();

    expect(after.stderr).not.toContain('not fully exported');
    expect(after.html).not.toContain('id="fill"');
  }, 60_000);
});
