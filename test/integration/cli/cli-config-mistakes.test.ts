/**
 * The first ordinary mistakes of a new user (issue 25) cost nothing and are said once: the CLI
 * runs in this process (the first test as a real child process, the smoke test of the bin's
 * wiring), and each test checks its exit code, its one line on stderr and the requests the
 * stand-in API received (a loopback server that counts them, or the sandbox's request log).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess, runSpawnedCli } from '../../helpers/cli.js';
import { hostEnv, noAwsSetup } from '../../helpers/env.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { analyticsRequests } from '../../helpers/request-log.js';
import { TEST_PERSONAL_DATA_KEY } from '../../helpers/run-deps.js';

const DAY = '2026-11-01';

/** A loopback server that counts what it receives and answers every request 500. */
let counting: Server;
let countingUrl: string;
let received = 0;
let sandbox: Sandbox;

beforeAll(async () => {
  counting = createServer((req, res) => {
    received += 1;
    req.resume();
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"stand-in"}');
  });
  await new Promise<void>((resolve) => counting.listen(0, '127.0.0.1', resolve));
  countingUrl = `http://127.0.0.1:${(counting.address() as AddressInfo).port}`;
  sandbox = await startSandbox();
});

afterAll(async () => {
  await Promise.all([new Promise((resolve) => counting.close(resolve)), sandbox.close()]);
  await removeTempDirs();
});

/**
 * The CLI in this process (with `spawned`, the published bin in a child process) with `env`
 * (plus a fresh state folder and destination, and no AWS setup) and the real clock.
 */
async function cli(args: readonly string[], env: Record<string, string>, options: { readonly spawned?: boolean } = {}) {
  const scratch = await makeTempDir('mistakes');
  const whole = {
    ...hostEnv(),
    ...noAwsSetup(scratch),
    EXPORT_STATE_DIR: `${scratch}/state`,
    EXPORT_DESTINATION: `${scratch}/data`,
    // A key of its own: a first run in a fresh state folder would otherwise generate one and say so.
    PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY,
    ...env,
  };
  const run = options.spawned ? await runSpawnedCli(args, whole) : await runCliInProcess(args, { env: whole, now: () => Date.now() });
  const lines = run.stderr.split('\n').filter((line) => line.trim() !== '');
  return { ...run, lines };
}

describe('no MINTLIFY_API_KEY while something points at the real API', () => {
  it('MINTLIFY_PROJECT_IDS naming a project the embedded sandbox does not serve: exit 2, one line naming MINTLIFY_API_KEY, no sandbox started', async () => {
    const run = await cli(['export', '--date', DAY], { MINTLIFY_PROJECT_IDS: 'docs_acme' }, { spawned: true });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.lines).toEqual([
      expect.stringMatching(/^error: MINTLIFY_API_KEY is not set.*MINTLIFY_PROJECT_IDS names docs_acme.*set MINTLIFY_API_KEY.*unset MINTLIFY_PROJECT_IDS/),
    ]);
    expect(run.stderr).not.toContain('embedded sandbox API at');
  });

  it('MINTLIFY_API_URL set: exit 2, one line naming MINTLIFY_API_KEY, and no request reaches that URL', async () => {
    received = 0;

    const run = await cli(['export', '--date', DAY, '--project', 'proj_small'], { MINTLIFY_API_URL: countingUrl });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.lines).toEqual([expect.stringMatching(/^error: MINTLIFY_API_KEY is not set.*MINTLIFY_API_URL.*set MINTLIFY_API_KEY.*unset MINTLIFY_API_URL/)]);
    expect(received).toBe(0);
  });

  it('--project naming a project the embedded sandbox does not serve: exit 2, one line naming MINTLIFY_API_KEY and --project', async () => {
    const run = await cli(['export', '--date', DAY, '--project', 'docs_acme'], {});

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.lines).toEqual([expect.stringMatching(/^error: MINTLIFY_API_KEY is not set, and --project names docs_acme.*set MINTLIFY_API_KEY/)]);
  });

  it('the sandbox projects (or none named) still use the embedded sandbox without a key', async () => {
    const run = await cli(['export', '--date', DAY, '--dataset', 'visitors'], { MINTLIFY_PROJECT_IDS: 'proj_small,proj_synth_5' });

    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('using the embedded sandbox API at');
  });
});

/** The lines that are the export's progress (non-terminal), not what it reports. */
const PROGRESS = /^(Plan: |\[\d+\/\d+\] exporting )/;

describe('a project the key cannot see (404)', () => {
  it('--project with a typo over three days: one request, exit 2, one line naming --project and no "re-run"', async () => {
    sandbox.clearRequests();
    const env = { MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: sandbox.apiKey };

    const run = await cli(['export', '--from', '2026-10-05', '--to', '2026-10-08', '--project', 'docs_acme', '--json'], env);

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.lines).toEqual([expect.stringMatching(/^error: project "docs_acme" not found \(404\): the key cannot see it; check the id in --project /)]);
    expect(run.stderr).not.toMatch(/re-run|MINTLIFY_PROJECT_IDS/);
    expect(analyticsRequests(sandbox.requests)).toHaveLength(1);
  });

  it('MINTLIFY_PROJECT_IDS with one unknown project beside a good one: the good one is exported, one request for the unknown one, exit 2', async () => {
    sandbox.clearRequests();
    const env = {
      MINTLIFY_API_URL: sandbox.url,
      MINTLIFY_API_KEY: sandbox.apiKey,
      MINTLIFY_PROJECT_IDS: 'docs_acme,proj_small',
      EXPORT_DATASETS: 'visitors,searches',
    };

    const run = await cli(['export', '--from', '2026-10-05', '--to', '2026-10-07'], env);

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout.split('\n').filter((line) => line.startsWith('ok '))).toHaveLength(4);
    expect(run.stdout.split('\n').filter((line) => line.startsWith('FAILED'))).toHaveLength(1);
    const reports = run.lines.filter((line) => !PROGRESS.test(line));
    expect(reports[0]).toMatch(
      /^Stopped early: project "docs_acme" not found \(404\): .*check the id in MINTLIFY_PROJECT_IDS .*\(3 more unit\(s\) not tried\)$/,
    );
    expect(run.stderr).not.toContain('a re-run retries them');
    const requests = analyticsRequests(sandbox.requests);
    expect(requests.filter((r) => r.projectId === 'docs_acme')).toHaveLength(1);
  });
});

describe('a key the API refuses (401)', () => {
  it('exit 2, one line naming MINTLIFY_API_KEY, one request', async () => {
    sandbox.clearRequests();
    sandbox.addFault({ kind: 'status', status: 401, error: 'Invalid API key', times: Infinity });
    try {
      const run = await cli(['export', '--from', '2026-10-05', '--to', '2026-10-08', '--project', 'proj_small', '--json'], {
        MINTLIFY_API_URL: sandbox.url,
        MINTLIFY_API_KEY: sandbox.apiKey,
      });

      expect(run.code, run.stderr).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.lines).toEqual([expect.stringMatching(/^error: API key rejected \(401\): .*MINTLIFY_API_KEY/)]);
      expect(analyticsRequests(sandbox.requests)).toHaveLength(1);
    } finally {
      sandbox.clearFaults();
    }
  });
});

describe('plan and status with a project never exported where others were', { timeout: 120_000 }, () => {
  it('warn in one line naming the project and --project, send no request, and exit 0', async () => {
    const scratch = await makeTempDir('mistakes-plan');
    const env = {
      MINTLIFY_API_URL: sandbox.url,
      MINTLIFY_API_KEY: sandbox.apiKey,
      EXPORT_DESTINATION: `${scratch}/data`,
      EXPORT_STATE_DIR: `${scratch}/state`,
      EXPORT_DATASETS: 'visitors',
    };
    const exported = await cli(['export', '--date', DAY, '--project', 'proj_small'], env);
    expect(exported.code, exported.stderr).toBe(0);
    sandbox.clearRequests();

    const [plan, status, known] = await Promise.all([
      cli(['plan', '--date', DAY, '--project', 'proj_smal'], env),
      cli(['status', '--date', DAY, '--project', 'proj_smal'], env),
      cli(['status', '--date', DAY, '--project', 'proj_small'], env),
    ]);

    for (const run of [plan, status]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.lines).toEqual([
        expect.stringMatching(/^warning: nothing of project "proj_smal" was ever exported to .* check --project; this command sends no request/),
      ]);
    }
    expect(known.lines).toEqual([]);
    expect(sandbox.requests).toEqual([]);
  });
});

describe('an API nobody listens on', () => {
  it('a closed port: exit 2 within seconds, one line naming ECONNREFUSED, the URL and MINTLIFY_API_URL, no budget spent', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const started = Date.now();

    const run = await cli(['export', '--from', '2026-10-05', '--to', '2026-10-08', '--project', 'proj_small', '--json'], {
      MINTLIFY_API_URL: url,
      MINTLIFY_API_KEY: sandbox.apiKey,
    });

    expect(run.code, run.stderr).toBe(2);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(run.stdout).toBe('');
    expect(run.lines).toEqual([
      expect.stringMatching(
        new RegExp(`^error: the API at ${url} could not be reached \\(ECONNREFUSED: nothing listens there\\): .*no budget was spent; check MINTLIFY_API_URL`),
      ),
    ]);
  });

  it('without --json: the progress lines, then the cause said once', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));

    const run = await cli(['export', '--date', DAY, '--project', 'proj_small', '--dataset', 'visitors'], {
      MINTLIFY_API_URL: url,
      MINTLIFY_API_KEY: sandbox.apiKey,
    });

    expect(run.code, run.stderr).toBe(2);
    const reports = run.lines.filter((line) => !PROGRESS.test(line));
    expect(reports).toEqual([expect.stringMatching(/^error: the API at \S+ could not be reached \(ECONNREFUSED/)]);
    expect(run.stderr.match(/ECONNREFUSED/g)).toHaveLength(1);
  });

  it('a port fetch refuses (9): exit 2 at once, the cause named, not "(TypeError)"', async () => {
    const run = await cli(['export', '--date', DAY, '--project', 'proj_small', '--json'], {
      MINTLIFY_API_URL: 'http://127.0.0.1:9',
      MINTLIFY_API_KEY: sandbox.apiKey,
    });

    expect(run.code, run.stderr).toBe(2);
    expect(run.lines).toEqual([
      expect.stringMatching(
        /^error: the API at http:\/\/127\.0\.0\.1:9 could not be reached \(bad port: fetch refuses to connect to this port.*MINTLIFY_API_URL/,
      ),
    ]);
    expect(run.stderr).not.toContain('TypeError');
  });
});
