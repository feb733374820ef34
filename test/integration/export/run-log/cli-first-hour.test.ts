/**
 * The first hour of a new user (issue 15): every configuration mistake — a mistyped URL, a
 * destination or state folder that cannot be used, no AWS region, no AWS credentials, a
 * destination that never answers — is one line naming the fix, exit 2, and costs no request;
 * `plan` and `status` create nothing.
 *
 * The mistakes the CLI finds from its own environment run in process (`main`, in a fresh working
 * folder, with that environment as the whole of it); the real CLI (the bin) runs as a child
 * process where the process itself is what is tested: the AWS SDK's region and credentials,
 * which it finds in the process's environment (no AWS files, no instance metadata, every
 * endpoint on 127.0.0.1), Ctrl-C, `--no-wait` with the embedded sandbox and `npm start`'s flags. The probe's time
 * limit is tested in process, where a test may shorten it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../../sandbox/index.js';
import { TEST_REGION } from '../../../../scripts/lib/s3-sqs.js';
import { makeTempDir, removeTempDirs } from '../../../helpers/files.js';
import { runCliInProcess, spawnCli } from '../../../helpers/cli.js';
import { cliEnv, hostEnv, noAwsSetup, SANDBOX_POLLS } from '../../../helpers/env.js';
import type { CliIo } from '../../../../functions/cli/io.js';
import { runStart } from '../../../../scripts/first-look.js';

const PROJECT = 'proj_small';
const DAY = '2026-11-01';

let sandbox: Sandbox;
/** A TCP server that accepts connections and never answers. */
let silent: Server;
let silentUrl: string;
const sockets: Socket[] = [];

beforeAll(async () => {
  sandbox = await startSandbox();
  silent = createServer((socket) => sockets.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const address = silent.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  silentUrl = `http://127.0.0.1:${address.port}`;
});

/** The worker's working folder, which the in-process runs change while they run (the files after this one share the process). */
const WORKING_FOLDER = process.cwd();

afterAll(async () => {
  const left = process.cwd();
  process.chdir(WORKING_FOLDER);
  expect(left, 'the in-process runs gave the working folder back').toBe(WORKING_FOLDER);
  for (const socket of sockets) socket.destroy();
  await Promise.all([sandbox?.close(), new Promise((resolve) => silent?.close(resolve))]);
  await removeTempDirs();
});

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** stderr without the AWS SDK's Node version notice (not ours, printed when a client is built). */
  readonly errorLines: string[];
}

/** Runs the bin in `cwd` with `env` as its whole environment (PATH and AWS isolation added). */
async function cli(
  args: readonly string[],
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly onSpawn?: (child: ChildProcess) => void },
): Promise<Run> {
  const cli = spawnCli(
    args,
    {
      ...hostEnv(),
      HOME: options.cwd,
      ...noAwsSetup(path.join(options.cwd, '..')),
      // Nothing may leave the machine: S3 calls, if any, go to a closed port.
      AWS_ENDPOINT_URL_S3: 'http://127.0.0.1:1',
      MINTLIFY_API_URL: sandbox.url,
      MINTLIFY_API_KEY: sandbox.apiKey,
      ...options.env,
    },
    { entry: 'bin', cwd: options.cwd },
  );
  options.onSpawn?.(cli.child);
  const { code } = await cli.exited;
  const stdout = cli.stdout();
  const stderr = cli.stderr();
  const errorLines = stderr.split('\n').filter((line) => line.trim() !== '');
  return { code, stdout, stderr, errorLines };
}

/**
 * Runs each of `argvs` in this process at once, in `cwd` (made the working folder meanwhile: never
 * two calls at once, or the second would restore the first's folder, removed after the file), with
 * the environment the bin would have (but the AWS setup, which only the spawned runs need) as the whole of it.
 */
async function inProcess<const Argvs extends readonly (readonly string[])[]>(
  cwd: string,
  argvs: Argvs,
  env: Record<string, string> = {},
): Promise<{ -readonly [K in keyof Argvs]: Run }> {
  const before = process.cwd();
  process.chdir(cwd);
  try {
    const runs = await Promise.all(
      argvs.map((argv) =>
        runCliInProcess(argv, { env: { HOME: cwd, MINTLIFY_API_URL: sandbox.url, MINTLIFY_API_KEY: sandbox.apiKey, ...env }, now: Date.now }),
      ),
    );
    return runs.map((run) => ({ ...run, errorLines: run.stderr.split('\n').filter((line) => line.trim() !== '') })) as { -readonly [K in keyof Argvs]: Run };
  } finally {
    process.chdir(before);
  }
}

/** A fresh working folder (inside a scratch folder, so siblings stay out of its listing). */
async function freshFolder(): Promise<string> {
  const dir = path.join(await makeTempDir('first-hour'), 'cwd');
  await mkdir(dir);
  return dir;
}

function expectOneLine(run: Run, message: RegExp): void {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  expect(run.errorLines).toEqual([expect.stringMatching(message)]);
  expect(run.errorLines[0]).not.toMatch(/^error: [A-Za-z]*Error: /);
}

describe('a destination that looks like a mistyped URL is refused with the correct form, exit 2', () => {
  it('--out s3:/bucket (one slash): plan, status and export refuse it and create no folder', async () => {
    const cwd = await freshFolder();
    sandbox.clearRequests();

    const runs = await inProcess(cwd, [
      ['plan', '--date', DAY, '--project', PROJECT, '--out', 's3:/bucket/exports'],
      ['status', '--project', PROJECT, '--out', 's3:/bucket/exports'],
      ['export', '--date', DAY, '--project', PROJECT, '--out', 's3:/bucket/exports'],
    ]);

    for (const run of runs) {
      expectOneLine(run, /^error: --out "s3:\/bucket\/exports" is not an S3 URL: write s3:\/\/bucket\/exports \(two slashes\)/);
    }
    expect(await readdir(cwd)).toEqual([]);
    expect(sandbox.requests).toEqual([]);
  });

  it('EXPORT_DESTINATION=S3://… or an https address of a bucket: named, with the s3:// form', async () => {
    const cwd = await freshFolder();
    sandbox.clearRequests();

    // One after the other: each makes `cwd` the working folder while it runs.
    const [upper] = await inProcess(cwd, [['export', '--date', DAY, '--project', PROJECT]], { EXPORT_DESTINATION: 'S3://bucket/exports' });
    const [https] = await inProcess(cwd, [['plan', '--date', DAY, '--project', PROJECT]], { EXPORT_DESTINATION: 'https://my-bucket.s3.amazonaws.com/exports' });

    expectOneLine(upper, /^error: EXPORT_DESTINATION "S3:\/\/bucket\/exports" is not an S3 URL: write s3:\/\/bucket\/exports \(lowercase s3\)/);
    expectOneLine(
      https,
      /^error: EXPORT_DESTINATION "https:\/\/my-bucket\.s3\.amazonaws\.com\/exports" is a web address, not a destination: write s3:\/\/my-bucket\/exports$/,
    );
    expect(await readdir(cwd)).toEqual([]);
    expect(sandbox.requests).toEqual([]);
  });
});

describe('plan and status create nothing', () => {
  it('on a destination and state folder that do not exist yet, they answer and leave no file or folder', async () => {
    const cwd = await freshFolder();

    const [plan, status] = await inProcess(cwd, [
      ['plan', '--date', DAY, '--project', PROJECT, '--out', './data'],
      ['status', '--project', PROJECT, '--out', './data'],
    ]);

    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/^Plan for .*data: 7 unit\(s\)/);
    expect(status.code, status.stderr).toBe(0);
    expect(await readdir(cwd)).toEqual([]);
  });
});

describe('every configuration mistake is found by the probe before any request: named, one line, exit 2', () => {
  it('--out on a pseudo-file system (/proc) ends at once instead of hanging', async () => {
    const cwd = await freshFolder();
    sandbox.clearRequests();

    const started = Date.now();
    const [run] = await inProcess(cwd, [['export', '--date', DAY, '--project', PROJECT, '--out', '/proc/self/mintlify-data']]);

    expectOneLine(run, /^error: --out: Could not create .*\/proc\/self\/mintlify-data.*\(ENOENT\): no folder can be created there/);
    expect(Date.now() - started).toBeLessThan(15_000);
    expect(sandbox.requests).toEqual([]);
  });

  it('--out naming a file', async () => {
    const cwd = await freshFolder();
    await writeFile(path.join(cwd, 'exports'), 'a file\n');
    sandbox.clearRequests();

    const [run] = await inProcess(cwd, [['export', '--date', DAY, '--project', PROJECT, '--out', 'exports']]);

    expectOneLine(run, /^error: --out: Could not .*exports.*\(ENOTDIR\): a file and a folder have the same name there/);
    expect(sandbox.requests).toEqual([]);
  });

  it('EXPORT_STATE_DIR naming a file: export, plan and status name the variable', async () => {
    const cwd = await freshFolder();
    await writeFile(path.join(cwd, 'state'), 'a file\n');
    sandbox.clearRequests();
    const env = { EXPORT_STATE_DIR: path.join(cwd, 'state', 'ledger') };

    const runs = await inProcess(
      cwd,
      [
        ['export', '--date', DAY, '--project', PROJECT, '--out', 'data'],
        ['plan', '--date', DAY, '--project', PROJECT, '--out', 'data'],
        ['status', '--project', PROJECT, '--out', 'data'],
      ],
      env,
    );

    for (const run of runs) {
      expectOneLine(
        run,
        /^error: EXPORT_STATE_DIR .*state\/ledger cannot hold the budget ledger and leases \(ENOTDIR: a file is where the folder should be\): choose a writable folder$/,
      );
    }
    expect(sandbox.requests).toEqual([]);
  });

  it('an S3 destination without a region names AWS_REGION', async () => {
    const cwd = await freshFolder();
    sandbox.clearRequests();

    const run = await cli(['export', '--date', DAY, '--project', PROJECT, '--out', 's3://my-bucket/exports'], {
      cwd,
      env: { AWS_ACCESS_KEY_ID: 'test', AWS_SECRET_ACCESS_KEY: 'test' },
    });

    expectOneLine(
      run,
      /^error: --out: S3 PutObject of s3:\/\/my-bucket\/exports\/_staging\/\.probe-\S+ failed \(Region is missing\); no AWS region is set: set AWS_REGION/,
    );
    expect(sandbox.requests).toEqual([]);
  });

  it('an S3 destination without credentials names the variables that give them', async () => {
    const cwd = await freshFolder();
    sandbox.clearRequests();

    const run = await cli(['export', '--date', DAY, '--project', PROJECT, '--out', 's3://my-bucket/exports'], { cwd, env: { AWS_REGION: TEST_REGION } });

    expectOneLine(run, /no AWS credentials were found: set AWS_PROFILE, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY/);
    expect(sandbox.requests).toEqual([]);
  });

  it('an S3 endpoint that never answers ends the probe at its time limit', async () => {
    sandbox.clearRequests();
    const s3 = new S3Client({ endpoint: silentUrl, region: TEST_REGION, forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
    try {
      const run = await runCliInProcess(['export', '--date', DAY, '--project', PROJECT, '--out', 's3://my-bucket/exports'], {
        env: await cliEnv(sandbox),
        now: Date.now,
        extra: { clients: { s3 }, probeTimeoutMs: 300 },
      });

      expect(run.code).toBe(2);
      expect(run.stderr).toBe(
        'error: --out s3://my-bucket/exports did not answer within 0.3 s: choose a directory on a disk (not a pseudo-file system such as /proc) or check the S3 endpoint, region and network\n',
      );
      expect(sandbox.requests).toEqual([]);
    } finally {
      s3.destroy();
    }
  });
});

describe('Ctrl-C never pays for a page twice', () => {
  /** Sends `count` SIGINTs once the sandbox has seen the (slow) request for offset 250. */
  function interruptAtOffset250(count: number) {
    return (child: ChildProcess) => {
      const timer = setInterval(() => {
        if (!sandbox.requests.some((r) => r.route === 'visitors' && r.query['offset'] === '250')) return;
        clearInterval(timer);
        for (let i = 0; i < count; i++) setTimeout(() => child.kill('SIGINT'), 50 * i);
      }, 5);
      child.once('close', () => clearInterval(timer));
    };
  }

  it('the first Ctrl-C lets the page on its way arrive and keeps it; exit 130', async () => {
    const cwd = await freshFolder();
    sandbox.clearRequests();
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, kind: 'slow', delayMs: 1_500, offset: 250 });
    try {
      const run = await cli(['export', '--date', DAY, '--project', PROJECT, '--project', 'proj_medium', '--dataset', 'visitors', '--out', 'data'], {
        cwd,
        onSpawn: interruptAtOffset250(1),
      });

      expect(run.code, run.stderr).toBe(130);
      expect(run.stderr).toContain('Stopping: the request in flight finishes (at most 30 s) and its page is kept.');
      expect(run.stdout).toMatch(new RegExp(`ok +visitors ${PROJECT} ${DAY}: \\d+ row\\(s\\), 2 page\\(s\\)`));
      expect(run.stdout).toMatch(/pending +visitors proj_medium/);
    } finally {
      sandbox.clearFaults();
    }
  });

  it('a second Ctrl-C stops at once and says the dropped page is fetched again', async () => {
    const cwd = await freshFolder();
    sandbox.clearRequests();
    // The page is held 20 s: a run that waited for it could not end sooner (a bound that holds under load).
    sandbox.addFault({ route: 'visitors', projectId: PROJECT, kind: 'slow', delayMs: 20_000, offset: 250 });
    try {
      const started = Date.now();
      const run = await cli(['export', '--date', DAY, '--project', PROJECT, '--dataset', 'visitors', '--out', 'data'], {
        cwd,
        onSpawn: interruptAtOffset250(2),
      });

      expect(run.code, run.stderr).toBe(130);
      expect(Date.now() - started).toBeLessThan(20_000);
      expect(run.stderr).toContain('Stopping now: a page on its way is dropped; the next run fetches it again (one more request).');
      expect(run.stdout).toMatch(new RegExp(`partial +visitors ${PROJECT} ${DAY}: 1 page\\(s\\) staged \\(stopped\\)`));
    } finally {
      sandbox.clearFaults();
    }
  });
});

describe('follow-up with the embedded sandbox (no MINTLIFY_API_KEY), which lives one command', () => {
  const noKey = { MINTLIFY_API_KEY: '', MINTLIFY_API_URL: '' };

  it('refuses --no-wait, exit 2, naming the way to a sandbox that outlives the command', async () => {
    const cwd = await freshFolder();

    const run = await cli(['follow-up', '--project', 'proj_small', '--job', 'job_demo_1', '--prompt', 'Add a FAQ page', '--no-wait'], { cwd, env: noKey });

    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/^error: --no-wait cannot be used with the embedded sandbox \(no MINTLIFY_API_KEY\): .*npx mintlify-exporter sandbox/m);
  });

  it('a re-run with the same --request-id reports the job of its own sandbox, not the previous one', async () => {
    const cwd = await freshFolder();
    const args = ['follow-up', '--project', 'proj_small', '--job', 'job_demo_1', '--prompt', 'Add a FAQ page', '--request-id', 'req-first-hour', '--json'];

    const [first] = await inProcess(cwd, [args], { ...noKey, ...SANDBOX_POLLS });
    const [second] = await inProcess(cwd, [args], { ...noKey, ...SANDBOX_POLLS });

    expect(first.code, first.stderr).toBe(0);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ requestId: 'req-first-hour', status: 'completed' });
    // Not "duplicate": that record belonged to a sandbox that is gone.
    expect(JSON.parse(second.stdout)).toMatchObject({ requestId: 'req-first-hour', status: 'completed', polls: expect.any(Number) });
  }, 60_000);
});

describe('npm start', () => {
  const START = fileURLToPath(new URL('../../../../scripts/start.ts', import.meta.url));
  /** tsx's loader by path: `--import tsx` would be looked up from the fresh folder. */
  const TSX = new URL('../../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

  /** `npm start -- ARGS` as npm runs it (`tsx scripts/start.ts ARGS`), in `cwd`, without a key. */
  async function start(args: readonly string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    const child = spawn(process.execPath, ['--import', TSX, START, ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env['PATH'] ?? '', HOME: cwd, ...(process.env['TMPDIR'] ? { TMPDIR: process.env['TMPDIR'] } : {}) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('close', (c) => resolve(c)));
    return { code, stdout, stderr };
  }

  /** `runStart` (what scripts/start.ts runs) in this process, in `cwd`, without a key. */
  async function startInProcess(args: readonly string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text), isTTY: false },
      env: { HOME: cwd },
      now: Date.now,
      stopSignal: new Promise<void>(() => undefined),
    };
    const before = process.cwd();
    process.chdir(cwd);
    try {
      return { code: await runStart(io, args), stdout, stderr };
    } finally {
      process.chdir(before);
    }
  }

  it('passes the export flags on: -- --force exports a complete day again', async () => {
    const cwd = await freshFolder();
    const flags = ['--project', PROJECT, '--dataset', 'visitors'];

    // The first as npm runs it; the two after it in this process (the same `runStart`).
    const first = await start(flags, cwd);
    const again = await startInProcess(flags, cwd);
    const forced = await startInProcess([...flags, '--force'], cwd);

    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^ok +visitors proj_small /m);
    expect(first.stdout).not.toMatch(/proj_medium|views/);
    expect(again.stdout).toContain('Nothing to do: every unit is complete (--force exports them again).');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toMatch(/^ok +visitors proj_small /m);
  }, 90_000);
});
