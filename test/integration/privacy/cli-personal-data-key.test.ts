/**
 * Issue 33, the key only when first needed: with no PERSONAL_DATA_KEY, the CLI generates the
 * personal-data key into its state folder (and says so, once) only when a value is first
 * hashed — the first export of a dataset with an `hmac` column (feedback's contact) — or when
 * `forget` needs it. A command that only reads (`status`) and an export of datasets without
 * such a column create no key and print no notice.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { runCliAt } from '../../helpers/cli.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';

const API_KEY = 'mint_key_when_needed_0123456789abcdef';
const DAY = '2026-02-10';
const START = Date.parse('2026-02-11T04:00:00.000Z');
const PROJECT = 'proj_key';
const KEY_FILE = 'personal-data.key';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY, projects: [{ id: PROJECT, paths: 10, exact: true, rows: { feedback: 60 } }] });
}, 60_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

/** The CLI with no personal-data key configured and `state` as its state folder. */
const runCli = (argv: readonly string[], state: string) =>
  runCliAt(sandbox, [...argv], { now: START, env: { EXPORT_STATE_DIR: state, PERSONAL_DATA_KEY: '', MINTLIFY_PROJECT_IDS: PROJECT } });

describe('the personal-data key, generated only when first needed', () => {
  it('status in a fresh state folder creates no key and says nothing of one', async () => {
    const [out, state] = [await makeTempDir('key-out'), await makeTempDir('key-state')];

    const cli = await runCli(['status', '--out', out], state);

    expect(cli.code).toBe(0);
    expect(await listFiles(state)).not.toContain(KEY_FILE);
    expect(cli.stderr).not.toContain('personal-data key');
  });

  it('an export of datasets without an hmac column creates no key and says nothing of one', async () => {
    const [out, state] = [await makeTempDir('key-out'), await makeTempDir('key-state')];

    const cli = await runCli(['export', '--date', DAY, '--project', PROJECT, '--dataset', 'visitors', '--dataset', 'searches', '--out', out], state);

    expect(cli.code, cli.stderr).toBe(0);
    expect(await listFiles(state)).not.toContain(KEY_FILE);
    expect(cli.stderr).not.toContain('personal-data key');
  });

  it('the first export that hashes a contact creates the key (0600) and says so once; the next says nothing', async () => {
    const [out, state] = [await makeTempDir('key-out'), await makeTempDir('key-state')];
    await runCli(['export', '--date', DAY, '--project', PROJECT, '--dataset', 'visitors', '--out', out], state);

    const first = await runCli(['export', '--date', DAY, '--project', PROJECT, '--dataset', 'feedback', '--out', out], state);
    const second = await runCli(['export', '--date', DAY, '--project', PROJECT, '--dataset', 'feedback', '--out', out, '--force'], state);

    expect(first.code, first.stderr).toBe(0);
    const file = path.join(state, KEY_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(first.stderr.split('\n').filter((line) => line.includes('personal-data key'))).toEqual([expect.stringContaining(file)]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).not.toContain('personal-data key');
  });
});
