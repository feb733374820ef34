/**
 * Issue 33, erasure: `forget --email` removes exactly one person's rows from every table, day
 * and project of a local and an S3 (fauxqs) destination, is idempotent, finishes what a run
 * cut short left, keeps the person out of a later `export --force`, and refuses a malformed
 * address with exit 2. Row counts are read back with DuckDB.
 */
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetPerson } from '../../../functions/export/forget/index.js';
import { runExport } from '../../../functions/export/run.js';
import type { Destination, PendingWrite } from '../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { createS3Destination } from '../../../functions/shared/storage/destination-s3.js';
import { keyIdOf } from '../../../functions/shared/personal-data/index.js';
import { resolvePolicy } from '../../../functions/warehouse/column-policy.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { startS3Sqs, type S3Sqs } from '../../../scripts/lib/s3-sqs.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { queryDuckDb, readManifest } from '../../helpers/read-back.js';
import { DATASET_CLIENT, exportDeps, TEST_PERSONAL_DATA_KEY, testSettings } from '../../helpers/run-deps.js';

const API_KEY = 'mint_forget_test_0123456789abcdef';
const PROJECTS = ['proj_one', 'proj_two'];
const DAYS = ['2026-02-09', '2026-02-10'];
const START = Date.parse('2026-02-11T04:00:00.000Z');
const PERSON = 'ana.silva@example.com';
const hmac = (address: string) => createHmac('sha256', TEST_PERSONAL_DATA_KEY).update(address.trim().toLowerCase()).digest('hex');

let sandbox: Sandbox;
let aws: S3Sqs;

beforeAll(async () => {
  [sandbox, aws] = await Promise.all([
    startSandbox({ apiKey: API_KEY, projects: PROJECTS.map((id) => ({ id, paths: 30, exact: true, rows: { feedback: 400 } })) }),
    startS3Sqs(),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([sandbox?.close(), aws?.close()]);
  await removeTempDirs();
});

/** Exports feedback of every project and day into `destination` (the test key); `force` exports complete days again. */
async function exportFeedback(destination: Destination, force = false): Promise<void> {
  const deps = exportDeps({ sandbox, destination, start: START, client: DATASET_CLIENT });
  const result = await runExport(
    { kind: 'days', days: DAYS, projects: PROJECTS, datasets: ['feedback'], force },
    testSettings({ datasets: ['feedback'] }),
    {},
    deps,
  );
  expect(result.units.map((unit) => unit.status)).toEqual(DAYS.flatMap(() => PROJECTS.map(() => 'complete')));
}

/** Rows per contact HMAC (`''` for none) over the local folder's feedback files, and the total. */
async function countRows(root: string): Promise<{ readonly total: number; readonly person: number; readonly others: number }> {
  const rows = await queryDuckDb(
    `SELECT count(*) AS total, count(*) FILTER (WHERE contact = '${hmac(PERSON)}') AS person FROM read_parquet('${path.join(root, 'feedback', '**', '*.parquet')}')`,
  );
  const total = Number(rows[0]?.['total']);
  const person = Number(rows[0]?.['person']);
  return { total, person, others: total - person };
}

/** What the sandbox served for the person, and in all. */
function served(): { readonly total: number; readonly person: number } {
  const rows = DAYS.flatMap((day) => PROJECTS.flatMap((projectId) => sandbox.data.rows('feedback', projectId, day)));
  return { total: rows.length, person: rows.filter((row) => row.source === 'contextual' && row.contact === PERSON).length };
}

const cliEnv = { PERSONAL_DATA_KEY: TEST_PERSONAL_DATA_KEY };
const forgetCli = (args: readonly string[], extra?: object) =>
  runCliInProcess(['forget', ...args], { env: cliEnv, now: () => START + 3_600_000, ...(extra ? { extra } : {}) });

describe('forget on a local destination', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await makeTempDir('forget');
    await exportFeedback(createLocalDestination(dir));
  }, 120_000);

  it('the person was exported on several days and projects before', async () => {
    const before = await countRows(dir);
    expect(before.person).toBe(served().person);
    expect(before.person).toBeGreaterThan(4);
    expect(before.total).toBe(served().total);
  });

  it('a dry run says what would change and changes nothing', async () => {
    const files = await listFiles(dir);

    const cli = await forgetCli(['--email', PERSON, '--out', dir, '--dry-run', '--json']);

    expect(cli.code).toBe(0);
    const result = JSON.parse(cli.stdout);
    expect(result).toMatchObject({ dryRun: true, rows: served().person, hmac: hmac(PERSON) });
    expect(result.files).toHaveLength(DAYS.length * PROJECTS.length);
    expect(await listFiles(dir)).toEqual(files);
    expect((await countRows(dir)).person).toBe(served().person);
  });

  it('removes exactly that person rows from every file, with each manifest, and records the erasure without the address', async () => {
    const before = await countRows(dir);

    const cli = await forgetCli(['--email', ` ${PERSON.toUpperCase()} `, '--out', dir]);

    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(`forgot ${before.person} row(s) in ${DAYS.length * PROJECTS.length} file(s)`);
    // The share of the table's rows in each month it removed: the past figures it changed (issue 56).
    const share = `feedback 2026-02: ${before.person} of ${before.total} row(s) (${((100 * before.person) / before.total).toFixed(1)} %)`;
    expect(cli.stdout).toContain(`past figures this changed (rows removed of each table's rows in the month): ${share}\n`);
    const after = await countRows(dir);
    expect(after).toEqual({ total: before.total - before.person, person: 0, others: before.others });
    for (const day of DAYS) {
      for (const projectId of PROJECTS) {
        const manifest = await readManifest(createLocalDestination(dir), 'feedback', day, projectId);
        const rows = await queryDuckDb(`SELECT count(*) AS n FROM read_parquet('${path.join(dir, 'feedback', `dt=${day}`, `${projectId}.parquet`)}')`);
        expect(manifest?.rows['feedback']).toBe(Number(rows[0]?.['n']));
      }
    }
    const records = (await listFiles(dir)).filter((key) => key.startsWith('_privacy/erasures/'));
    expect(records).toHaveLength(1); // the dry run recorded nothing
    const texts = await Promise.all(records.map((key) => import('node:fs/promises').then((fs) => fs.readFile(path.join(dir, key), 'utf8'))));
    expect(texts.join('\n').toLowerCase()).not.toContain(PERSON);
    expect(JSON.parse(texts.at(-1) as string)).toMatchObject({
      hmac: hmac(PERSON),
      keyId: keyIdOf(TEST_PERSONAL_DATA_KEY),
      status: 'done',
      rows: before.person,
      shares: [{ table: 'feedback', month: '2026-02', removed: before.person, rows: before.total }],
    });
  });

  it("the report's export health names the erasure that changed its figures, with the share of each table's rows it removed (issue 56)", async () => {
    const [record] = (await listFiles(dir)).filter((key) => key.startsWith('_privacy/erasures/'));
    const { shares, at } = JSON.parse(await readFile(path.join(dir, record as string), 'utf8')) as { shares: { removed: number; rows: number }[]; at: string };
    const share = shares[0] as { removed: number; rows: number };

    const report = await runCliInProcess(['report', '--from', DAYS[0] as string, '--to', '2026-02-11', '--out', dir, '--file', path.join(dir, 'r.html')], {
      env: cliEnv,
      now: () => START + 3_600_000,
    });

    expect(report.code, report.stderr).toBe(0);
    const html = await readFile(path.join(dir, 'r.html'), 'utf8');
    expect(html).toContain('Erasures changed past figures');
    expect(html).toContain(
      `<strong>forget of ${at.slice(0, 10)}</strong>: feedback 2026-02: ${share.removed} of ${share.rows} row(s) (${((100 * share.removed) / share.rows).toFixed(1)} %)`,
    );
  });

  it('is idempotent: run again, it changes no file and says 0 rows', async () => {
    const before = await countRows(dir);

    const cli = await forgetCli(['--email', PERSON, '--out', dir]);

    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/^nothing to remove: no row of .* holds this person/m);
    expect(await countRows(dir)).toEqual(before);
  });

  it('a later export --force of the same days does not bring the rows back', async () => {
    const before = await countRows(dir);

    await exportFeedback(createLocalDestination(dir), true);

    expect(await countRows(dir)).toEqual(before);
  });

  it('refuses a malformed address with exit 2 and one line, changing nothing', async () => {
    const files = await listFiles(dir);

    const cli = await forgetCli(['--email', 'ana.silva@', '--out', dir]);

    expect(cli.code).toBe(2);
    expect(cli.stderr.trim().split('\n')).toEqual(['error: --email is not an e-mail address: give one address, such as ana@example.com']);
    expect(await listFiles(dir)).toEqual(files);
  });
});

describe('forget cut short', () => {
  it('a run that dies after its first rewritten file leaves every file whole, and the next run finishes the job', async () => {
    const dir = await makeTempDir('forget-killed');
    const real = createLocalDestination(dir);
    await exportFeedback(real);
    const before = await countRows(dir);
    const deps = { policy: resolvePolicy({}), key: TEST_PERSONAL_DATA_KEY, keyId: keyIdOf(TEST_PERSONAL_DATA_KEY), now: () => START };
    // A destination whose process "dies" at the second table file it replaces.
    let writes = 0;
    const dying: Destination = {
      ...real,
      list: real.list?.bind(real),
      openWrite: async (key, options) => {
        const pending: PendingWrite = await real.openWrite(key, options);
        if (key.endsWith('.parquet') && ++writes === 2) {
          return { ...pending, commit: async () => Promise.reject(new Error('killed')) };
        }
        return pending;
      },
    } as Destination;

    await expect(forgetPerson({ address: PERSON, dryRun: false }, { ...deps, destination: dying })).rejects.toThrow('killed');
    const midway = await countRows(dir);
    expect(midway.person).toBeGreaterThan(0);
    expect(midway.person).toBeLessThan(before.person);
    // Every file is readable and whole: the interrupted one still holds its old rows.
    expect(midway.total - midway.person).toBe(before.others);

    const finished = await forgetPerson({ address: PERSON, dryRun: false }, { ...deps, destination: real });

    expect(finished.rows).toBe(midway.person);
    expect(await countRows(dir)).toEqual({ total: before.others, person: 0, others: before.others });
  }, 120_000);
});

describe('forget on an S3 destination (fauxqs)', () => {
  it('removes the person from the bucket, and again changes nothing', async () => {
    const bucket = await aws.createBucket();
    const destination = createS3Destination({ bucket, prefix: 'mintlify', client: aws.s3 });
    await exportFeedback(destination);
    const out = `s3://${bucket}/mintlify`;
    const extra = { clients: { s3: aws.s3 } };

    const first = await forgetCli(['--email', PERSON, '--out', out, '--json'], extra);
    const second = await forgetCli(['--email', PERSON, '--out', out, '--json'], extra);

    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ rows: served().person, dryRun: false });
    expect(JSON.parse(second.stdout)).toMatchObject({ rows: 0, files: [] });
    const local = await makeTempDir('forget-s3-copy');
    for (const key of (await destination.list?.('feedback/')) ?? []) {
      const bytes = await destination.get(key);
      const target = path.join(local, key);
      await import('node:fs/promises').then(async (fs) => {
        await fs.mkdir(path.dirname(target), { recursive: true });
        await fs.writeFile(target, bytes as Uint8Array);
      });
    }
    expect(await countRows(local)).toEqual({ total: served().total - served().person, person: 0, others: served().total - served().person });
  }, 120_000);
});
