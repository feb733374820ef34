/**
 * Every analytics dataset exported through the real engine (`runUnits` over a budget gate on
 * an in-memory ledger) over real HTTP against the sandbox on 127.0.0.1 into a local
 * directory, every Parquet file read back with DuckDB and compared value for value with
 * `sandbox.data` (issue 9). Also: the fewest requests paging allows, empty days, the summary
 * tables, feedback's `contact` rule, `feedback_by_page` truncation, and what may appear in
 * logs. S3 is in datasets-s3.test.ts, cursor faults and malformed answers in
 * datasets-faults.test.ts.
 *
 * One run in `beforeAll` exports every dataset of a rich project and of a quiet one (a day
 * with no views, searches, feedback or assistant turns); most tests assess one behaviour of
 * that run.
 */
import { createHmac } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUnits, type RunSummary } from '../../../../functions/export/run-units.js';
import type { DatasetName } from '../../../../functions/warehouse/catalog.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { startSandbox, type ProjectSeed, type RequestLogEntry, type Sandbox } from '../../../../sandbox/index.js';
import { runCliAt } from '../../../helpers/cli.js';
import { startEmptyVisitorsApi } from '../../../helpers/emulators.js';
import { CONTRACT_COLUMNS, expectedTables, expectUnitMatches } from '../../../helpers/expected-rows.js';
import { listFiles, makeTempDir, removeTempDirs } from '../../../helpers/files.js';
import { ALL_DATASETS, tableKey, tableNames, TABLES_OF, unitKeys } from '../../../helpers/layout.js';
import { queryDuckDb, readManifest, readTable } from '../../../helpers/read-back.js';
import { MAX_LIMIT, minimumRequests, pagePosition, ROUTE_OF, unitRequests } from '../../../helpers/request-log.js';
import {
  DATASET_CLIENT,
  exportDeps,
  manifestOf,
  plannedUnits,
  recordingLogger,
  TEST_PERSONAL_DATA_KEY,
  testSettings,
  type RecordingLogger,
} from '../../../helpers/run-deps.js';
import { resolvePolicy } from '../../../../functions/warehouse/column-policy.js';

const API_KEY = 'mint_datasets_test_0123456789abcdef';
const DAY = '2026-02-10';
/** The run starts (and stamps `exported_at`) here; the CLI's clock too. */
const START = Date.parse('2026-02-11T04:00:00.000Z');
const EXPORTED_AT = new Date(START).toISOString();

/** Every dataset has rows; sizes chosen so some are exact multiples of the limit and some not. */
const RICH = 'proj_rich';
/** One visitor path, and nothing else: no views, searches, feedback or assistant turns. */
const QUIET = 'proj_quiet';
/** Feedback on 16 pages: `feedback_by_page` fits in one answer. */
const FEW = 'proj_few';
/** 2,000 assistant turns: exactly two pages of 1,000. */
const SYNTH = 'proj_synth_2000';
const PROJECTS: ProjectSeed[] = [
  { id: RICH, paths: 510, exact: true, rows: { views: 500, searches: 230, feedback: 300, assistant: 1_100 } },
  { id: QUIET, paths: 1, exact: true, rows: { views: 0, searches: 0, feedback: 0, assistant: 0 } },
  { id: FEW, paths: 40, exact: true, rows: { feedback: 25 } },
];

const UNITS = [
  ...plannedUnits(ALL_DATASETS, [RICH, QUIET], DAY),
  ...plannedUnits(['feedback_by_page'], [FEW], DAY),
  ...plannedUnits(['assistant'], [SYNTH], DAY),
];

let sandbox: Sandbox;
let dir: string;
let destination: Destination;
let logger: RecordingLogger;
let summary: RunSummary;
/** The sandbox's request log of the shared run. */
let log: RequestLogEntry[];

beforeAll(async () => {
  sandbox = await startSandbox({ apiKey: API_KEY, projects: PROJECTS });
  dir = await makeTempDir('datasets');
  destination = createLocalDestination(dir);
  logger = recordingLogger();
  const deps = exportDeps({ sandbox, destination, start: START, logger, client: { ...DATASET_CLIENT, logger } });
  summary = await runUnits({ units: UNITS, policy: testSettings({ datasets: ALL_DATASETS }), deps });
  log = [...sandbox.requests];
  sandbox.clearRequests();
});

afterAll(async () => {
  await sandbox?.close();
  await removeTempDirs();
});

const resultOf = (dataset: DatasetName, projectId: string) =>
  summary.units.find((unit) => unit.dataset === dataset && unit.projectId === projectId && unit.day === DAY);

const expected = { exportedAt: EXPORTED_AT };

/** The summary row's figures and the manifest's totals the sandbox's first page carries. */
function expectedSummary(dataset: 'visitors' | 'views' | 'searches') {
  if (dataset === 'searches') {
    const day = sandbox.data.day('searches', RICH, DAY);
    return { row: { total_searches: day.totalSearches, terms: day.rows.length }, totals: { totalSearches: day.totalSearches } };
  }
  const day = sandbox.data.day(dataset, RICH, DAY);
  return { row: { ...day.totals, pages: day.rows.length }, totals: day.totals };
}

/** Where `text` shows in a JSON log line: the whole of it, or its first 16 characters when longer. */
function leaksOf(lines: readonly { message: string; text: string }[], texts: readonly string[]): string[] {
  const needles = texts.flatMap((text) => {
    const head = Array.from(text).slice(0, 16).join('');
    return [...new Set([text, head])].map((needle) => ({ text, needle: JSON.stringify(needle).slice(1, -1) }));
  });
  return lines.flatMap((line) => needles.filter(({ needle }) => line.text.includes(needle)).map(({ text }) => `${line.message}: ${text}`));
}

describe('every dataset exported over HTTP into a local directory', () => {
  it('completes every unit of the run', () => {
    expect(summary.units.map((unit) => `${unit.dataset} ${unit.projectId} ${unit.status}`)).toEqual(
      UNITS.map((unit) => `${unit.dataset} ${unit.projectId} complete`),
    );
  });

  it('writes exactly the files of the layout (every table of every unit and its manifest, its month’s index of units) and leaves no staging', async () => {
    const indexes = [...new Set(UNITS.map((unit) => `_index/${unit.dataset}/month=${DAY.slice(0, 7)}.json`))];
    const keys = [...UNITS.flatMap((unit) => unitKeys(unit.dataset, DAY, unit.projectId)), ...indexes].sort();

    expect(await listFiles(dir)).toEqual(keys);
  });

  it.each(ALL_DATASETS)(
    '%s: every table reads back equal to the sandbox rows, value for value, with the contract column order and DuckDB types',
    async (dataset) => {
      const tables = expectedTables(sandbox.data, { dataset, projectId: RICH, day: DAY }, expected);
      for (const table of tableNames(dataset)) expect(tables[table]?.length, `${table} has rows to compare`).toBeGreaterThan(0);

      await expectUnitMatches(destination, sandbox.data, { dataset, projectId: RICH, day: DAY }, expected);
    },
  );

  it.each(['visitors', 'views', 'searches'] as const)('%s: the summary table holds the first page totals and the number of rows written', async (dataset) => {
    const { row, totals } = expectedSummary(dataset);

    const { rows } = await readTable(destination, TABLES_OF[dataset].summary as string, DAY, RICH);

    expect(rows).toEqual([{ project_id: RICH, date: DAY, ...row, exported_at: EXPORTED_AT, unknown_fields: null }]);
    expect(manifestOf(resultOf(dataset, RICH)).totals).toEqual(totals);
  });

  it.each(ALL_DATASETS)('%s: the manifest records the window, exported_at, the files and the rows of each table', async (dataset) => {
    const tables = expectedTables(sandbox.data, { dataset, projectId: RICH, day: DAY }, expected);

    const manifest = await readManifest(destination, dataset, DAY, RICH);

    expect(manifest).toMatchObject({
      version: 2,
      dataset,
      projectId: RICH,
      date: DAY,
      window: { dateFrom: DAY, dateTo: '2026-02-11' },
      exportedAt: EXPORTED_AT,
      runs: 1,
      files: Object.fromEntries(tableNames(dataset).map((table) => [table, tableKey(table, DAY, RICH)])),
      rows: Object.fromEntries(tableNames(dataset).map((table) => [table, tables[table]?.length])),
    });
    expect(manifest).toEqual(manifestOf(resultOf(dataset, RICH)));
  });
});

describe('the values that break naive pipelines survive the round trip', () => {
  it('feedback keeps every source with its own fields, and each nullable column both null and set', async () => {
    const { rows } = await readTable(destination, 'feedback', DAY, RICH);

    const bySource = (source: string) => rows.filter((row) => row['source'] === source);
    expect(new Set(rows.map((row) => row['source']))).toEqual(new Set(['code_snippet', 'contextual', 'agent', 'thumbs_only']));
    expect(new Set(bySource('contextual').map((row) => row['helpful']))).toEqual(new Set([true, false]));
    expect(rows.filter((row) => row['source'] !== 'contextual').every((row) => row['helpful'] === null)).toBe(true);
    expect(bySource('code_snippet').every((row) => typeof row['code'] === 'string')).toBe(true);
    expect(
      rows.filter((row) => row['source'] !== 'code_snippet').every((row) => row['code'] === null && row['filename'] === null && row['lang'] === null),
    ).toBe(true);
    for (const column of ['comment', 'created_at']) {
      expect(new Set(rows.map((row) => (row[column] === null ? 'null' : typeof row[column]))), column).toEqual(new Set(['null', 'string']));
    }
    for (const column of ['filename', 'lang']) {
      expect(new Set(bySource('code_snippet').map((row) => (row[column] === null ? 'null' : typeof row[column]))), column).toEqual(new Set(['null', 'string']));
    }
  });

  it('searches and assistant keep their nullable columns both null and set, and response_type answer where the API left it out', async () => {
    expect(sandbox.data.rows('assistant', RICH, DAY).some((row) => row.responseType === undefined)).toBe(true);
    const kinds = (rows: readonly Record<string, unknown>[], column: string) =>
      new Set(rows.map((row) => (row[column] === null ? 'null' : typeof row[column])));

    const searches = (await readTable(destination, 'searches', DAY, RICH)).rows;
    const turns = (await readTable(destination, 'assistant_conversations', DAY, RICH)).rows;

    expect(kinds(searches, 'top_clicked_page')).toEqual(new Set(['null', 'string']));
    expect(kinds(turns, 'query_category')).toEqual(new Set(['null', 'string']));
    expect(kinds(turns, 'page_url')).toEqual(new Set(['null', 'string']));
    expect(new Set(turns.map((row) => row['response_type']))).toEqual(new Set(['answer', 'clarifying_question']));
  });

  it('assistant turns of one conversation are separate rows sharing one conversation_id', async () => {
    const turns = new Map<string, number>();
    for (const row of sandbox.data.rows('assistant', RICH, DAY)) turns.set(row.id, (turns.get(row.id) ?? 0) + 1);
    const multiTurn = [...turns].filter(([, count]) => count > 1).sort(([a], [b]) => (a < b ? -1 : 1));
    expect(multiTurn.length).toBeGreaterThan(0);

    const file = path.join(dir, ...tableKey('assistant_conversations', DAY, RICH).split('/'));
    const grouped = await queryDuckDb(
      `SELECT conversation_id, count(*) AS turns, count(DISTINCT asked_at) AS times
       FROM read_parquet('${file.replaceAll("'", "''")}', hive_partitioning = false)
       GROUP BY conversation_id HAVING count(*) > 1 ORDER BY conversation_id`,
    );

    expect(grouped).toEqual(multiTurn.map(([id, count]) => ({ conversation_id: id, turns: count, times: count })));
  });

  it('sources_json is a JSON array of {title, url} as the API sent them, [] for a turn without sources, its length source_count', async () => {
    const sent = sandbox.data.rows('assistant', RICH, DAY);
    expect(sent.some((row) => row.sources.length === 0)).toBe(true);
    expect(sent.some((row) => row.sources.length > 1)).toBe(true);

    const { rows } = await readTable(destination, 'assistant_conversations', DAY, RICH);

    const parsed = rows.map((row) => JSON.parse(String(row['sources_json'])) as unknown[]);
    expect(parsed).toEqual(sent.map((row) => row.sources.map(({ title, url }) => ({ title, url }))));
    expect(rows.map((row) => row['source_count'])).toEqual(parsed.map((sources) => sources.length));
  });

  it.each([
    ['combining accents', /\u0301/u],
    ['emoji with zero-width joiners', /\u200d/u],
    ['right-to-left scripts', /[\u0590-\u06ff]/u],
    ['CJK', /[\u3040-\u30ff\u4e00-\u9fff]/u],
    ['tabs', /\t/u],
    ['newlines', /\n/u],
    ['backslashes and quotes', /\\.*"|".*\\/u],
  ])('text with %s reads back byte for byte', async (_name, pattern) => {
    const texts = (rows: readonly Record<string, unknown>[], columns: readonly string[]) =>
      rows.flatMap((row) => columns.map((column) => row[column])).filter((value): value is string => typeof value === 'string' && pattern.test(value));
    const sent = [
      ...texts(expectedTables(sandbox.data, { dataset: 'searches', projectId: RICH, day: DAY }, expected)['searches'] ?? [], ['search_query']),
      ...texts(expectedTables(sandbox.data, { dataset: 'feedback', projectId: RICH, day: DAY }, expected)['feedback'] ?? [], ['comment', 'code']),
      ...texts(expectedTables(sandbox.data, { dataset: 'assistant', projectId: RICH, day: DAY }, expected)['assistant_conversations'] ?? [], [
        'query',
        'response',
      ]),
    ];
    expect(sent.length).toBeGreaterThan(0);

    const read = [
      ...texts((await readTable(destination, 'searches', DAY, RICH)).rows, ['search_query']),
      ...texts((await readTable(destination, 'feedback', DAY, RICH)).rows, ['comment', 'code']),
      ...texts((await readTable(destination, 'assistant_conversations', DAY, RICH)).rows, ['query', 'response']),
    ];

    expect(read).toEqual(sent);
  });
});

describe('requests: the fewest the paging allows, each at the endpoint largest limit', () => {
  /** [dataset, project, rows that day, requests]: see `minimumRequests` for the rule. */
  const CASES: [DatasetName, string, number, number][] = [
    ['visitors', RICH, 510, 3],
    ['views', RICH, 500, 2], // an exact multiple of 250: the second page already says hasMore: false
    ['searches', RICH, 230, 3],
    ['feedback', RICH, 300, 3], // an exact multiple of 100: the third page carries no cursor
    ['feedback_by_page', RICH, 100, 1],
    ['assistant', RICH, 1_100, 2],
    ['assistant', SYNTH, 2_000, 2], // an exact multiple of 1,000
    ['caller_stats', RICH, 1, 1],
    ['visitors', QUIET, 1, 1],
    ['views', QUIET, 0, 1],
    ['searches', QUIET, 0, 1],
    ['feedback', QUIET, 0, 1],
    ['feedback_by_page', QUIET, 0, 1],
    ['assistant', QUIET, 0, 1],
    ['caller_stats', QUIET, 1, 1],
    ['feedback_by_page', FEW, 16, 1],
  ];

  it.each(CASES)('%s %s (%i rows): %i request(s), every one answered 200 and none for a page already fetched', (dataset, projectId, rows, requests) => {
    expect(sandbox.data.rowCount(dataset, projectId, DAY)).toBe(rows);
    expect(minimumRequests(dataset, rows)).toBe(requests);

    const sent = unitRequests(log, dataset, projectId, DAY);

    expect(sent.map((entry) => entry.status)).toEqual(Array(requests).fill(200));
    expect(new Set(sent.map(pagePosition)).size).toBe(requests);
    const manifest = manifestOf(resultOf(dataset, projectId));
    expect(manifest.requests).toEqual({ successful: requests, sent: requests, retried: 0 });
    expect(manifest.pages).toBe(requests);
  });

  it.each(ALL_DATASETS)('%s: every request asks for the endpoint largest limit (none for caller stats) and the exact one-day window', (dataset) => {
    const sent = [RICH, QUIET].flatMap((projectId) => unitRequests(log, dataset, projectId, DAY));
    expect(sent.length).toBeGreaterThan(0);

    const limit = MAX_LIMIT[dataset];
    for (const entry of sent) {
      expect(entry.query['limit']).toBe(limit === undefined ? undefined : String(limit));
      expect(entry.query['dateTo']).toBe('2026-02-11');
    }
  });

  it('offset pages are fetched at offsets 0, 250, 500 in order', () => {
    expect(unitRequests(log, 'visitors', RICH, DAY).map((entry) => entry.query['offset'])).toEqual(['0', '250', '500']);
  });

  it('cursor pages: the first without a cursor, each later one with the cursor the page before returned', () => {
    const sent = unitRequests(log, 'searches', RICH, DAY);

    expect(sent[0]?.query['cursor']).toBeUndefined();
    expect(sent.slice(1).every((entry) => typeof entry.query['cursor'] === 'string' && entry.query['cursor'] !== '')).toBe(true);
  });
});

describe('an empty day still gets its files', () => {
  it.each(ALL_DATASETS.filter((dataset) => dataset !== 'visitors'))(
    '%s: every table file exists with the full column set and no API row, and the manifest is written',
    async (dataset) => {
      const tables = expectedTables(sandbox.data, { dataset, projectId: QUIET, day: DAY }, expected);
      expect(tables[TABLES_OF[dataset].rows]?.filter((row) => dataset !== 'caller_stats' || row['total'] !== 0)).toEqual([]);

      await expectUnitMatches(destination, sandbox.data, { dataset, projectId: QUIET, day: DAY }, expected);

      const manifest = await readManifest(destination, dataset, DAY, QUIET);
      expect(manifest?.rows).toEqual(Object.fromEntries(tableNames(dataset).map((table) => [table, tables[table]?.length])));
    },
  );

  it('visitors: a day the API answers empty gets both files (totals 0, no page rows) and a manifest', async () => {
    const empty = await startEmptyVisitorsApi(API_KEY);
    try {
      const out = await makeTempDir('datasets-empty');
      const target = createLocalDestination(out);

      const run = await runUnits({
        units: plannedUnits(['visitors'], [QUIET], DAY),
        policy: testSettings({ datasets: ALL_DATASETS }),
        deps: exportDeps({ sandbox: empty, destination: target, start: START, client: DATASET_CLIENT }),
      });

      expect(manifestOf(run.units[0]).rows).toEqual({ visitors_totals: 1, visitors_pages: 0 });
      const pages = await readTable(target, 'visitors_pages', DAY, QUIET);
      expect(pages).toEqual({ columns: CONTRACT_COLUMNS['visitors_pages'], rows: [] });
      const totals = await readTable(target, 'visitors_totals', DAY, QUIET);
      expect(totals).toEqual({
        columns: CONTRACT_COLUMNS['visitors_totals'],
        rows: [{ project_id: QUIET, date: DAY, human: 0, ai: 0, total: 0, pages: 0, exported_at: EXPORTED_AT, unknown_fields: null }],
      });
      expect(await listFiles(out)).toEqual([...unitKeys('visitors', DAY, QUIET), `_index/visitors/month=${DAY.slice(0, 7)}.json`].sort());
      expect(empty.requests.map((request) => request.query['limit'])).toEqual(['250']);
    } finally {
      await empty.close();
    }
  });
});

describe('feedback contact (personal data)', () => {
  const contacts = () => sandbox.data.rows('feedback', RICH, DAY).flatMap((row) => (row.source === 'contextual' && row.contact !== null ? [row.contact] : []));
  const hmac = (key: string, address: string) => createHmac('sha256', key).update(address.trim().toLowerCase()).digest('hex');

  it('is the HMAC of the address by default, never the address the API sent', async () => {
    expect(contacts().length).toBeGreaterThan(0);

    const { rows } = await readTable(destination, 'feedback', DAY, RICH);
    expect(rows.length).toBe(300);
    expect(rows.flatMap((row) => (row['contact'] === null ? [] : [row['contact']]))).toEqual(contacts().map((c) => hmac(TEST_PERSONAL_DATA_KEY, c)));
  });

  it('holds the e-mail the API sent, in its row, when the run keeps it (feedback.contact=keep)', async () => {
    const out = createLocalDestination(await makeTempDir('datasets-contact'));

    const run = await runUnits({
      units: plannedUnits(['feedback'], [RICH], DAY),
      policy: testSettings({ datasets: ALL_DATASETS, personalData: resolvePolicy({ 'feedback.contact': 'keep' }) }),
      deps: exportDeps({ sandbox, destination: out, start: START, client: DATASET_CLIENT }),
    });

    manifestOf(run.units[0]);
    const read = await expectUnitMatches(out, sandbox.data, { dataset: 'feedback', projectId: RICH, day: DAY }, { exportedAt: EXPORTED_AT, contact: 'keep' });
    expect(read['feedback']?.rows.flatMap((row) => (row['contact'] === null ? [] : [row['contact']]))).toEqual(contacts());
  });

  it('is written as sent by the CLI with PERSONAL_DATA_POLICY=feedback.contact=keep', async () => {
    const out = await makeTempDir('datasets-cli');

    const cli = await runCli(['export', '--date', DAY, '--project', RICH, '--dataset', 'feedback', '--out', out, '--json'], {
      PERSONAL_DATA_POLICY: 'feedback.contact=keep',
    });

    expect(cli.code).toBe(0);
    const { rows } = await readTable(createLocalDestination(out), 'feedback', DAY, RICH);
    expect(rows.flatMap((row) => (row['contact'] === null ? [] : [row['contact']]))).toEqual(contacts());
  });

  it('is hashed by the CLI with the key it generated once into the state folder (0600), and said so once', async () => {
    const out = await makeTempDir('datasets-cli');
    const state = await makeTempDir('datasets-cli-state');
    const args = ['export', '--date', DAY, '--project', RICH, '--dataset', 'feedback', '--out', out, '--json'];

    const first = await runCli(args, { EXPORT_STATE_DIR: state, PERSONAL_DATA_KEY: '' });
    const second = await runCli([...args, '--force'], { EXPORT_STATE_DIR: state, PERSONAL_DATA_KEY: '' });

    expect(first.code).toBe(0);
    expect(second.code).toBe(0);
    const file = path.join(state, 'personal-data.key');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const key = (await readFile(file, 'utf8')).trim();
    expect(first.stderr).toContain(file);
    expect(second.stderr).not.toContain('personal-data key');
    const { rows } = await readTable(createLocalDestination(out), 'feedback', DAY, RICH);
    expect(rows.flatMap((row) => (row['contact'] === null ? [] : [row['contact']]))).toEqual(contacts().map((c) => hmac(key, c)));
  });

  it('stops the CLI with the migration line when the retired EXPORT_FEEDBACK_CONTACT is set', async () => {
    const out = await makeTempDir('datasets-cli');

    const cli = await runCli(['export', '--date', DAY, '--project', RICH, '--dataset', 'feedback', '--out', out], { EXPORT_FEEDBACK_CONTACT: 'true' });

    expect(cli.code).toBe(2);
    expect(cli.stderr).toMatch(/EXPORT_FEEDBACK_CONTACT is retired: .*PERSONAL_DATA_POLICY=feedback\.contact=keep/);
  });
});

describe('feedback_by_page: at most 100 rows, never a silent cut', () => {
  it('a day with more than 100 pages: the manifest says "truncated": true', async () => {
    expect(sandbox.data.day('feedback_by_page', RICH, DAY)).toMatchObject({ hasMore: true, pages: 159 });

    const manifest = await readManifest(destination, 'feedback_by_page', DAY, RICH);

    expect(manifest?.truncated).toBe(true);
    expect(manifest?.rows).toEqual({ feedback_by_page: 100 });
  });

  it('a day with more than 100 pages: a warning naming the unit is logged', () => {
    const warnings = logger.lines.filter((line) => line.level === 'warn' && /truncated/i.test(line.message));

    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.text).toContain(`feedback_by_page ${RICH} ${DAY}`);
  });

  it('a day with at most 100 pages: no truncated flag, and every page is written', async () => {
    expect(sandbox.data.day('feedback_by_page', FEW, DAY)).toMatchObject({ hasMore: false, pages: 16 });

    const manifest = await readManifest(destination, 'feedback_by_page', DAY, FEW);

    expect(manifest).not.toHaveProperty('truncated');
    expect(manifest?.rows).toEqual({ feedback_by_page: 16 });
    await expectUnitMatches(destination, sandbox.data, { dataset: 'feedback_by_page', projectId: FEW, day: DAY }, expected);
  });

  it('the CLI marks such a day with * and says once that feedback_by_page keeps 100 pages and feedback holds every item', async () => {
    const out = await makeTempDir('datasets-cli');

    const cli = await runCli(['export', '--date', DAY, '--project', RICH, '--project', FEW, '--dataset', 'feedback_by_page', '--out', out]);

    expect(cli.code).toBe(0);
    const lines = cli.stdout.split('\n');
    expect(lines.filter((line) => line.includes('*'))).toEqual([
      expect.stringMatching(new RegExp(`^ok +feedback_by_page ${RICH} ${DAY}: 100 row\\(s\\), 1 page\\(s\\), 1 request\\(s\\) \\*$`)),
      expect.stringMatching(/^\* 1 feedback_by_page unit\(s\) hit the API's cap of 100 pages a day: .*every feedback item is in the feedback dataset/),
    ]);
    expect(cli.stdout).not.toContain('TRUNCATED');
  });
});

describe('logs never carry what people wrote', () => {
  /** Every free text of the rich project's day: search terms, comments, e-mails, code, questions, answers. */
  function privateTexts(): string[] {
    const texts = new Set<string>();
    for (const row of sandbox.data.rows('searches', RICH, DAY)) texts.add(row.searchQuery);
    for (const row of sandbox.data.rows('feedback', RICH, DAY)) {
      if (row.comment !== null) texts.add(row.comment);
      if (row.source === 'contextual' && row.contact !== null) texts.add(row.contact);
      if (row.source === 'code_snippet') texts.add(row.code);
    }
    for (const row of sandbox.data.rows('assistant', RICH, DAY)) {
      texts.add(row.query);
      texts.add(row.response);
    }
    return [...texts];
  }

  it('no search term, comment, e-mail, code, question or answer appears in any line the run logged', () => {
    const texts = privateTexts();
    expect(texts.length).toBeGreaterThan(500);
    expect(logger.lines.filter((line) => line.level === 'debug').length).toBeGreaterThan(0);

    expect(leaksOf(logger.lines, texts)).toEqual([]);
  });

  it('no such text appears in any line logged while malformed answers are retried', async () => {
    const recorder = recordingLogger();
    for (const dataset of ALL_DATASETS) sandbox.addFault({ route: ROUTE_OF[dataset], projectId: RICH, kind: 'wrong-types' });
    // On a later page: two malformed answers to one request fail it (retried once, retry-policy.ts).
    sandbox.addFault({ route: 'feedback', projectId: RICH, kind: 'malformed-json', hasCursor: true });
    const out = createLocalDestination(await makeTempDir('datasets-logs'));

    const run = await runUnits({
      units: plannedUnits(ALL_DATASETS, [RICH], DAY),
      policy: testSettings({ datasets: ALL_DATASETS, personalData: resolvePolicy({ 'feedback.contact': 'keep' }) }),
      deps: exportDeps({ sandbox, destination: out, start: START, logger: recorder, client: { ...DATASET_CLIENT, maxRetries: 3, logger: recorder } }),
    });

    sandbox.clearFaults();
    sandbox.clearRequests();
    expect(run.completed).toBe(ALL_DATASETS.length);
    expect(recorder.lines.filter((line) => line.level === 'warn' && /retrying/.test(line.message))).toHaveLength(ALL_DATASETS.length + 1);
    const texts = privateTexts();
    expect(leaksOf(recorder.lines, texts)).toEqual([]);
  });
});

/** The CLI in process against the sandbox at START; its requests are not kept in the log. */
async function runCli(argv: string[], env: Record<string, string> = {}) {
  const run = await runCliAt(sandbox, argv, { now: START, env });
  sandbox.clearRequests();
  return run;
}
