/**
 * How the CLI runs a lake command once per organisation (functions/cli/organisations.ts), with the
 * program replaced by a recorder: the arguments and environment each organisation's run gets,
 * and the exit code of the whole.
 */
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runForOrganisations, takeFlag, type RunProgram } from '../../../functions/cli/organisations.js';
import { exportCommandOf, rootOf } from '../../../functions/cli/fill-command.js';
import type { CliIo } from '../../../functions/cli/io.js';
import { makeTempDir, removeTempDirs } from '../../helpers/files.js';

const KEYS = { ACME: 'mint_acme_0123456789', BETA: 'mint_beta_0123456789' };
let file: string;

beforeAll(async () => {
  file = path.join(await makeTempDir('orgs-cli'), 'orgs.json');
  await writeFile(
    file,
    JSON.stringify({
      organisations: [
        { id: 'acme', apiKeyEnv: 'ACME', projectIds: ['proj_a', 'proj_b'] },
        { id: 'beta', apiKeyEnv: 'BETA', projectIds: ['proj_c'] },
      ],
    }),
  );
  await chmod(file, 0o600);
});
afterAll(removeTempDirs);

function ioWith(env: Record<string, string | undefined>) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (t: string) => (stdout += t) },
    stderr: { write: (t: string) => (stderr += t) },
    env,
    now: () => 0,
    stopSignal: new Promise(() => undefined),
  };
  return { io, out: () => stdout, err: () => stderr };
}

/** A program that records each run and answers with `codes` in turn. */
function recorder(codes: readonly number[], usage = false) {
  const runs: { argv: readonly string[]; env: CliIo['env'] }[] = [];
  const run: RunProgram = async (argv, io) => {
    runs.push({ argv, env: io.env });
    io.stdout.write(JSON.stringify({ n: runs.length }));
    return { code: codes[runs.length - 1] ?? 0, usage };
  };
  return { runs, run };
}

describe('runForOrganisations', () => {
  it('runs a lake command once per organisation, in its lake, with its key, projects and part of the state', async () => {
    const { io, err } = ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS, MINTLIFY_API_KEY_SECRET_ARN: 'arn:x', EXPORT_DESTINATION: 's3://b/p' });
    const { runs, run } = recorder([0, 0]);
    expect(await runForOrganisations(['status', '--days', '2'], io, run)).toBe(0);
    expect(runs.map((r) => r.argv)).toEqual([
      ['status', '--days', '2'],
      ['status', '--days', '2'],
    ]);
    expect(runs[0]?.env).toMatchObject({
      EXPORT_DESTINATION: 's3://b/p/orgs/acme',
      MINTLIFY_API_KEY: KEYS.ACME,
      MINTLIFY_PROJECT_IDS: 'proj_a,proj_b',
      EXPORT_ORG: 'acme',
    });
    expect(runs[1]?.env).toMatchObject({ EXPORT_DESTINATION: 's3://b/p/orgs/beta', MINTLIFY_API_KEY: KEYS.BETA, EXPORT_ORG: 'beta' });
    for (const r of runs) {
      expect(r.env['MINTLIFY_ORGS_FILE']).toBeUndefined();
      expect(r.env['MINTLIFY_API_KEY_SECRET_ARN']).toBeUndefined();
    }
    expect(err()).toContain('Organisation acme (s3://b/p/orgs/acme):');
  });

  it('moves --out into each organisation and keeps of --project the ones each organisation has', async () => {
    const { io } = ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS });
    const { runs, run } = recorder([0]);
    await runForOrganisations(['export', '--out=./lake', '--project', 'proj_b', '--org', 'acme', '--org=beta'], io, run);
    expect(runs.map((r) => r.argv)).toEqual([['export', '--project', 'proj_b', '--out', './lake/orgs/acme']]);
  });

  it('exits 1 naming the organisations that failed, 2 when every one failed on its configuration', async () => {
    const mixed = ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS });
    expect(await runForOrganisations(['export'], mixed.io, recorder([0, 2]).run)).toBe(1);
    expect(mixed.err().trim().split('\n').at(-1)).toBe('error: export did not complete for 1 of 2 organisation(s): beta (exit 2); see the lines above each');
    expect(await runForOrganisations(['export'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, recorder([2, 2]).run)).toBe(2);
    expect(await runForOrganisations(['export'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, recorder([130]).run)).toBe(130);
  });

  it('says a usage error once', async () => {
    const { runs, run } = recorder([2], true);
    expect(await runForOrganisations(['export', '--bogus'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, run)).toBe(2);
    expect(runs).toHaveLength(1);
  });

  it('prints one JSON object with each organisation', async () => {
    const { io, out } = ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS });
    await runForOrganisations(['plan', '--json'], io, recorder([0, 1]).run);
    expect(JSON.parse(out())).toEqual({
      command: 'plan',
      organisations: [
        { id: 'acme', exitCode: 0, result: { n: 1 } },
        { id: 'beta', exitCode: 1, result: { n: 2 } },
      ],
    });
  });

  it('refuses --org without MINTLIFY_ORGS_FILE, and a --project no organisation has', async () => {
    const none = ioWith({});
    expect(await runForOrganisations(['status', '--org', 'acme'], none.io, recorder([]).run)).toBe(2);
    expect(none.err()).toMatch(/^error: --org chooses an organisation of MINTLIFY_ORGS_FILE, which is not set/);
    const stray = ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS });
    expect(await runForOrganisations(['status', '--project', 'proj_zz'], stray.io, recorder([]).run)).toBe(2);
    expect(stray.err()).toMatch(/--project "proj_zz" is not a project of any organisation of acme, beta/);
  });

  it('leaves every other command, and every command without the file, as it was', async () => {
    const { runs, run } = recorder([0, 0]);
    await runForOrganisations(['dead-letters', 'list'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, run);
    await runForOrganisations(['export', '--date', '2026-01-01'], ioWith({}).io, run);
    expect(runs.map((r) => r.argv)).toEqual([
      ['dead-letters', 'list'],
      ['export', '--date', '2026-01-01'],
    ]);
  });
});

describe('organisations at once', () => {
  /** A program whose run of each organisation ends when the test releases it. */
  function held() {
    const started: string[] = [];
    const ended: string[] = [];
    const release = new Map<string, () => void>();
    const run: RunProgram = async (_argv, io, hooks) => {
      const id = io.env['EXPORT_ORG'] as string;
      started.push(id);
      hooks?.onAction?.();
      io.stderr.write(`working for ${id}\n`);
      await new Promise<void>((resolve) => release.set(id, resolve));
      ended.push(id);
      return { code: 0, usage: false };
    };
    return { run, started, ended, release: (id: string) => release.get(id)?.() };
  }
  const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

  it('runs up to --concurrency organisations at once: one that waits holds no other', async () => {
    const { io, err } = ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS });
    const program = held();
    const whole = runForOrganisations(['export'], io, program.run);
    await tick();
    expect(program.started).toEqual(['acme', 'beta']);
    program.release('beta');
    await tick();
    // beta is done while acme still waits.
    expect(program.ended).toEqual(['beta']);
    program.release('acme');
    expect(await whole).toBe(0);
    expect(err()).toMatch(/\[acme\] working for acme\n/);
    expect(err()).toMatch(/export per organisation:\n {2}acme {2}done\n {2}beta {2}done\n$/);
  });

  it('runs them one after another with --concurrency 1, and refuses a bad --concurrency', async () => {
    const program = held();
    const whole = runForOrganisations(['export', '--concurrency', '1'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, program.run);
    await tick();
    expect(program.started).toEqual(['acme']);
    program.release('acme');
    await tick();
    expect(program.started).toEqual(['acme', 'beta']);
    program.release('beta');
    expect(await whole).toBe(0);
    const bad = ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS });
    expect(await runForOrganisations(['export', '--concurrency=0'], bad.io, held().run)).toBe(2);
    expect(bad.err()).toMatch(/^error: --concurrency "0" is not a number of organisations to run at once: use a whole number from 1 to 64\n$/);
    const none = ioWith({});
    expect(await runForOrganisations(['export', '--concurrency', '2'], none.io, held().run)).toBe(2);
    expect(none.err()).toMatch(/--concurrency runs organisations of MINTLIFY_ORGS_FILE at once, which is not set/);
  });

  it('a stop reaches the runs at work, starts no other, and names each in the summary', async () => {
    let stop = (): void => undefined;
    const { io, err } = ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS });
    const stopping: CliIo = { ...io, stopSignal: new Promise<void>((resolve) => (stop = resolve)) };
    const started: string[] = [];
    const run: RunProgram = async (_argv, orgIo, hooks) => {
      started.push(orgIo.env['EXPORT_ORG'] as string);
      hooks?.onAction?.();
      await orgIo.stopSignal;
      return { code: 130, usage: false };
    };
    const whole = runForOrganisations(['export', '--concurrency', '1'], stopping, run);
    await tick();
    stop();
    expect(await whole).toBe(130);
    expect(started).toEqual(['acme']);
    expect(err()).toMatch(/ {2}acme {2}stopped\n {2}beta {2}not started \(stopped before its turn\)\n/);
    expect(err().trim().split('\n').at(-1)).toBe('stopped: export did not finish for organisation(s) acme, beta');
  });
});

describe('per organisation', () => {
  it('gives each organisation its own report --file and gaps --prompts when several run, the file as given for one', async () => {
    const { runs, run } = recorder([0, 0, 0, 0, 0]);
    await runForOrganisations(['report', '--file', 'out/report.html'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, run);
    await runForOrganisations(['gaps', '--prompts=prompts.jsonl', '--days', '7'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, run);
    await runForOrganisations(['report', '--file', 'report.html', '--org', 'beta'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, run);
    expect(runs.map((r) => r.argv)).toEqual([
      ['report', '--file', 'out/report.acme.html'],
      ['report', '--file', 'out/report.beta.html'],
      ['gaps', '--days', '7', '--prompts', 'prompts.acme.jsonl'],
      ['gaps', '--days', '7', '--prompts', 'prompts.beta.jsonl'],
      ['report', '--file', 'report.html'],
    ]);
  });

  it("runs follow-up as its project's organisation (its key and lake, no MINTLIFY_API_KEY), and refuses a project of none", async () => {
    const { runs, run } = recorder([0]);
    const env = { MINTLIFY_ORGS_FILE: file, ...KEYS, EXPORT_DESTINATION: 's3://b/p', MINTLIFY_API_URL: 'https://api.example.com' };
    expect(await runForOrganisations(['follow-up', '--project', 'proj_c', '--job', 'job_1', '--prompt', 'p'], ioWith(env).io, run)).toBe(0);
    expect(runs[0]?.env).toMatchObject({ MINTLIFY_API_KEY: KEYS.BETA, EXPORT_DESTINATION: 's3://b/p/orgs/beta', EXPORT_ORG: 'beta' });
    const stray = ioWith(env);
    expect(await runForOrganisations(['follow-up', '--project', 'proj_zz', '--job', 'job_1', '--prompt', 'p'], stray.io, run)).toBe(2);
    expect(runs).toHaveLength(1);
    expect(stray.err()).toBe(
      'error: --project "proj_zz" is in no organisation of MINTLIFY_ORGS_FILE (acme, beta): add it to its organisation\'s projectIds; nothing was sent\n',
    );
  });

  it('hands consume and enqueue the organisations, to route each prompt', async () => {
    const seen: (readonly string[] | undefined)[] = [];
    const run: RunProgram = async (_argv, io) => {
      seen.push(io.organisations?.map((org) => org.id));
      return { code: 0, usage: false };
    };
    await runForOrganisations(['consume', '--queue-url', 'http://127.0.0.1:1/q'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, run);
    await runForOrganisations(['enqueue', '--file', 'x'], ioWith({ MINTLIFY_ORGS_FILE: file, ...KEYS }).io, run);
    expect(seen).toEqual([
      ['acme', 'beta'],
      ['acme', 'beta'],
    ]);
  });
});

describe('takeFlag', () => {
  it('takes both spellings and stops at --', () => {
    expect(takeFlag(['a', '--org', 'x', '--org=y', '--', '--org', 'z'], '--org')).toEqual({ values: ['x', 'y'], rest: ['a', '--', '--org', 'z'] });
  });
});

describe('the fill command of an organisation', () => {
  it('names --org and the root destination, never the organisation folder', () => {
    const config = { projectIds: ['proj_a'], org: 'acme' };
    expect(exportCommandOf({ config, out: 's3://b/p/orgs/acme', from: '2026-10-01', to: '2026-10-03', projects: ['proj_a'] })).toBe(
      'mintlify-exporter export --org acme --from 2026-10-01 --to 2026-10-03 --out s3://b/p',
    );
    expect(exportCommandOf({ config, out: undefined, from: '2026-10-01', to: '2026-10-03', projects: ['proj_b'] })).toBe(
      'mintlify-exporter export --org acme --from 2026-10-01 --to 2026-10-03 --project proj_b',
    );
    expect(exportCommandOf({ config: { projectIds: [] }, out: './lake', from: '2026-10-01', to: '2026-10-02', projects: [] })).toBe(
      'mintlify-exporter export --from 2026-10-01 --to 2026-10-02 --out ./lake',
    );
    expect(rootOf('orgs/acme', 'acme')).toBe('.');
    expect(rootOf('./data/orgs/acme/', 'acme')).toBe('./data');
    expect(rootOf('./data/orgs/beta', 'acme')).toBe('./data/orgs/beta');
  });
});
