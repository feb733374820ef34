/**
 * Issue 33, "nothing raw anywhere": a sandbox export whose free texts and contacts carry
 * e-mail addresses, phone numbers and keys, over two days, with one unit stopped half-way
 * (its staged pages and checkpoint left behind) and one unit failed on a malformed answer (its
 * failure record): no file under the destination — every Parquet column read back by DuckDB
 * as text, every JSON file, the run log — and no log line holds any of them. The personal
 * values are listed here by hand, not taken from the masker.
 */
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runExport } from '../../../functions/export/run.js';
import { runUnits } from '../../../functions/export/run-units.js';
import { resolvePolicy } from '../../../functions/warehouse/column-policy.js';
import { createLocalDestination } from '../../../functions/shared/storage/destination-local.js';
import { startSandbox, type Sandbox } from '../../../sandbox/index.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../helpers/files.js';
import { ALL_DATASETS } from '../../helpers/layout.js';
import { queryDuckDb, readTable } from '../../helpers/read-back.js';
import {
  DATASET_CLIENT,
  exportDeps,
  plannedUnits,
  recordingLogger,
  TEST_PERSONAL_DATA_KEY,
  testSettings,
  type RecordingLogger,
} from '../../helpers/run-deps.js';

const API_KEY = 'mint_privacy_test_0123456789abcdef';
const PROJECT = 'proj_private';
const DAYS = ['2026-02-09', '2026-02-10'] as const;
const STOPPED_DAY = '2026-02-08';
const FAILED_DAY = '2026-02-07';
const START = Date.parse('2026-02-11T04:00:00.000Z');

/** What readers put in the sandbox's texts (sandbox/generators/text.ts), as it must never be stored. */
const PERSONAL = [
  'renée.dupont@example.fr',
  'ana.silva@example.com',
  'dev+docs@example.org',
  'k.tanaka@example.jp',
  "j.o'brien@example.ie",
  'ops-team@example.io',
  'support@example.com',
  '+44 20 7946 0958',
  '+1 555 010 9999',
  '(555) 010-4477',
  '555 010 2323',
  'mint_8f3kQ9zX2pL7vN4m',
  'sk_test_4eC39HqLyjWDarjtT1zdp7dc',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0',
];

const hmac = (address: string) => createHmac('sha256', TEST_PERSONAL_DATA_KEY).update(address.trim().toLowerCase()).digest('hex');

let sandbox: Sandbox;
let dir: string;
let logger: RecordingLogger;

/** Every text under `root`: Parquet files as DuckDB reads every column as text, the rest as UTF-8. */
async function everythingStored(root: string): Promise<Map<string, string>> {
  const texts = new Map<string, string>();
  for (const key of await listFiles(root)) {
    const file = path.join(root, key);
    if (key.endsWith('.parquet')) {
      const columns = await queryDuckDb(`SELECT column_name FROM (DESCRIBE SELECT * FROM read_parquet('${file}'))`);
      // Each column on its own: one null must not blank the row (`a || NULL` is NULL).
      const casts = columns.map((column) => `coalesce(CAST("${String(column['column_name'])}" AS VARCHAR), '')`).join(" || '\u0001' || ");
      const rows = await queryDuckDb(`SELECT string_agg(${casts}, '\u0002') AS text FROM read_parquet('${file}')`);
      texts.set(key, String(rows[0]?.['text'] ?? ''));
    } else {
      texts.set(key, await readFile(file, 'utf8'));
    }
  }
  return texts;
}

/** `needle` (case-insensitive, also as JSON escapes it) in each text: `file: needle`. */
function leaks(texts: Map<string, string>, needles: readonly string[]): string[] {
  const found: string[] = [];
  for (const [key, text] of texts) {
    const lower = text.toLowerCase();
    for (const needle of needles) {
      const forms = [needle, JSON.stringify(needle).slice(1, -1)].map((form) => form.toLowerCase());
      if (forms.some((form) => lower.includes(form))) found.push(`${key}: ${needle}`);
    }
  }
  return found;
}

beforeAll(async () => {
  sandbox = await startSandbox({
    apiKey: API_KEY,
    projects: [{ id: PROJECT, paths: 60, exact: true, rows: { views: 50, searches: 1_300, feedback: 400, assistant: 900 } }],
  });
  dir = await makeTempDir('privacy');
  logger = recordingLogger();
  const destination = createLocalDestination(dir);
  const settings = testSettings({ datasets: ALL_DATASETS, pageLimit: 100 });
  const deps = exportDeps({ sandbox, destination, start: START, logger, client: { ...DATASET_CLIENT, logger } });
  // Two complete days, through runExport: the run log is written too.
  for (const day of DAYS) await runExport({ kind: 'days', days: [day], projects: [PROJECT], datasets: ALL_DATASETS }, settings, {}, deps);
  // A unit stopped half-way: its pages stay staged, with its checkpoint.
  const stop = new AbortController();
  const stopped = await runUnits({
    units: plannedUnits(['feedback'], [PROJECT], STOPPED_DAY),
    policy: settings,
    control: { stop: stop.signal },
    deps: {
      ...deps,
      onEvent: (event) => {
        if (event.kind === 'page' && event.pages >= 2) stop.abort(new Error('stopped by the test'));
      },
    },
  });
  expect(stopped.units[0]).toMatchObject({ status: 'partial' });
  // A unit failed on answers of the wrong types: its failure record.
  sandbox.addFault({ route: 'assistant', projectId: PROJECT, kind: 'wrong-types', times: Number.POSITIVE_INFINITY });
  const failed = await runUnits({ units: plannedUnits(['assistant'], [PROJECT], FAILED_DAY), policy: settings, deps });
  sandbox.clearFaults();
  expect(failed.units[0]).toMatchObject({ status: 'failed' });
}, 120_000);

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

describe('nothing raw anywhere (issue 33)', () => {
  it('the API sent every one of these values in the exported days', () => {
    const served = JSON.stringify(
      DAYS.map((day) => ['searches', 'feedback', 'assistant'].map((dataset) => sandbox.data.rows(dataset as 'feedback', PROJECT, day))),
    );
    expect(PERSONAL.filter((value) => !served.toLowerCase().includes(value.toLowerCase()))).toEqual([]);
  });

  it('no file under the destination holds any of them: Parquet columns as text, JSON files, staging, failure record, run log', async () => {
    const texts = await everythingStored(dir);
    const keys = [...texts.keys()];
    expect(keys.some((key) => key.startsWith('_staging/feedback/') && key.includes('page-'))).toBe(true);
    expect(keys.some((key) => key.startsWith('_staging/feedback/') && key.endsWith('checkpoint.json'))).toBe(true);
    expect(keys.some((key) => key.startsWith('_staging/assistant/') && key.endsWith('failure.json'))).toBe(true);
    expect(keys.some((key) => key.startsWith('export_runs/'))).toBe(true);
    expect(keys.filter((key) => key.endsWith('.parquet')).length).toBeGreaterThanOrEqual(20);

    expect(leaks(texts, PERSONAL)).toEqual([]);
  });

  it('no line the runs logged holds any of them', () => {
    expect(leaks(new Map(logger.lines.map((line, i) => [`line ${i}`, line.text])), PERSONAL)).toEqual([]);
  });

  it('the check finds them when the policy keeps every column (it can fail)', async () => {
    const keepDir = await makeTempDir('privacy-keep');
    const keepAll = resolvePolicy({
      'feedback.contact': 'keep',
      'feedback.comment': 'keep',
      'feedback.code': 'keep',
      'searches.search_query': 'keep',
      'assistant_conversations.query': 'keep',
      'assistant_conversations.response': 'keep',
    });
    const kept = await runUnits({
      units: plannedUnits(['searches', 'feedback', 'assistant'], [PROJECT], DAYS[0]),
      policy: testSettings({ datasets: ALL_DATASETS, personalData: keepAll }),
      deps: exportDeps({ sandbox, destination: createLocalDestination(keepDir), start: START, client: DATASET_CLIENT }),
    });

    expect(kept.units.map((unit) => unit.status)).toEqual(['complete', 'complete', 'complete']);
    expect(leaks(await everythingStored(keepDir), PERSONAL).length).toBeGreaterThanOrEqual(PERSONAL.length - 1);
  });

  it('contact is the HMAC of the trimmed, lower-cased address, the same on both days', async () => {
    const perDay = [];
    for (const day of DAYS) {
      const raw = sandbox.data.rows('feedback', PROJECT, day).flatMap((row) => (row.source === 'contextual' && row.contact !== null ? [row.contact] : []));
      const { rows } = await readTable(createLocalDestination(dir), 'feedback', day, PROJECT);
      const stored = rows.flatMap((row) => (row['contact'] === null ? [] : [row['contact'] as string]));
      expect(stored).toEqual(raw.map(hmac));
      perDay.push(new Map(raw.map((address) => [address.trim().toLowerCase(), hmac(address)])));
    }
    const [first, second] = perDay as [Map<string, string>, Map<string, string>];
    const both = [...first.keys()].filter((address) => second.has(address));
    expect(both.length).toBeGreaterThan(0);
    for (const address of both) expect(second.get(address)).toBe(first.get(address));
    expect(first.get('ops-team@example.io')).toBe(hmac(' Ops-Team@Example.IO '));
  });

  it('masked sentences keep their other words', async () => {
    const destination = createLocalDestination(dir);
    const comments = new Set<string>();
    const queries = new Set<string>();
    const terms = new Set<string>();
    for (const day of DAYS) {
      for (const row of (await readTable(destination, 'feedback', day, PROJECT)).rows) comments.add(String(row['comment']));
      for (const row of (await readTable(destination, 'assistant_conversations', day, PROJECT)).rows) queries.add(String(row['query']));
      for (const row of (await readTable(destination, 'searches', day, PROJECT)).rows) terms.add(String(row['search_query']));
    }
    expect(comments).toContain('This page was exactly what I needed, thanks! Write to me at [email]');
    expect(comments).toContain('👍 great docs, call me on [phone] if you want details');
    expect(comments).toContain('Could you add a curl example?\tMy key [secret] stopped working');
    expect([...queries].some((query) => /^Is there a limit on .+\? Call \[phone\]$/.test(query))).toBe(true);
    expect([...queries].some((query) => /^Give me a curl example for .+ with Bearer \[secret\]$/.test(query))).toBe(true);
    expect([...terms].some((term) => / mail \[email\]$/.test(term))).toBe(true);
    expect([...terms].some((term) => / token \[secret\]$/.test(term))).toBe(true);
  });

  it('each manifest records the policy and the key id, never the key', async () => {
    const texts = await everythingStored(dir);
    const manifest = JSON.parse(texts.get(`_manifests/feedback/dt=${DAYS[0]}/${PROJECT}.json`) ?? '{}');

    expect(manifest.privacy).toMatchObject({ columns: { 'feedback.contact': 'hmac', 'feedback.comment': 'mask', 'feedback.code': 'mask' } });
    expect(manifest.privacy.keyId).toMatch(/^[0-9a-f]{12}$/);
    expect(leaks(texts, [TEST_PERSONAL_DATA_KEY])).toEqual([]);
  });
});
