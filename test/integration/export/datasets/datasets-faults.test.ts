/**
 * The sandbox's cursor faults and malformed answers against every dataset, through the real
 * engine (`runUnits` over a budget gate on an in-memory ledger) and over real HTTP on
 * 127.0.0.1 (issue 9). A unit either comes out exact — an empty page with a cursor is
 * followed, one bad answer is retried — or fails with a clear error and writes no table file
 * and no manifest: a repeated cursor, an invalid cursor, a cursor that never ends (at the
 * page cap), an answer that stays malformed. Never a silent cut.
 */
import { describe, expect, it } from 'vitest';
import type { ExportPolicy } from '../../../../functions/export/policy.js';
import { runUnits, type UnitResult } from '../../../../functions/export/run-units.js';
import type { DatasetName } from '../../../../functions/warehouse/catalog.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import type { FaultRule, ProjectSeed, RequestLogEntry, Sandbox } from '../../../../sandbox/index.js';
import { runCliAt } from '../../../helpers/cli.js';
import { expectUnitMatches } from '../../../helpers/expected-rows.js';
import { listFiles, makeTempDir, tableFiles } from '../../../helpers/files.js';
import { ALL_DATASETS } from '../../../helpers/layout.js';
import { minimumRequests, pagePosition, PAGING_OF, ROUTE_OF, unitRequests } from '../../../helpers/request-log.js';
import { DATASET_CLIENT, exportDeps, failureOf, manifestOf, plannedUnits, testSettings } from '../../../helpers/run-deps.js';
import { useSandbox } from '../../../helpers/emulators.js';

const API_KEY = 'mint_datasets_faults_0123456789ab';
const DAY = '2026-02-10';
const START = Date.parse('2026-02-11T04:00:00.000Z');
const EXPORTED_AT = new Date(START).toISOString();
/** Several pages in every paged dataset: visitors 3, views 2, searches 3, feedback 3, assistant 2. */
const PROJECT = 'proj_faults';
const PROJECTS: ProjectSeed[] = [{ id: PROJECT, paths: 510, exact: true, rows: { views: 500, searches: 230, feedback: 300, assistant: 1_100 } }];
/** Client retries after the first attempt in this file. */
const MAX_RETRIES = 2;
/** A malformed answer is tried twice whatever MAX_RETRIES says (retry-policy.ts). */
const MALFORMED_ATTEMPTS = 2;

const CURSOR_DATASETS = ALL_DATASETS.filter((dataset) => PAGING_OF[dataset] === 'cursor');

let sandbox: Sandbox;

useSandbox({ apiKey: API_KEY, projects: PROJECTS }, (started) => (sandbox = started), { clearAfterEach: true, removeTempDirsAfterEach: true });

interface Exported {
  readonly result: UnitResult | undefined;
  readonly dir: string;
  readonly destination: Destination;
  /** The sandbox's log of the unit's requests. */
  readonly requests: RequestLogEntry[];
}

/** Exports one unit of PROJECT for DAY into a fresh directory (or `dir`), after arming `faults`. */
async function exportUnit(
  dataset: DatasetName,
  faults: readonly Omit<FaultRule, 'route' | 'projectId'>[] = [],
  options: { readonly settings?: Partial<ExportPolicy>; readonly dir?: string } = {},
): Promise<Exported> {
  for (const fault of faults) sandbox.addFault({ ...fault, route: ROUTE_OF[dataset], projectId: PROJECT } as FaultRule);
  const dir = options.dir ?? (await makeTempDir('datasets-faults'));
  const destination = createLocalDestination(dir);
  sandbox.clearRequests();
  const summary = await runUnits({
    units: plannedUnits([dataset], [PROJECT], DAY),
    policy: testSettings({ datasets: ALL_DATASETS, ...options.settings }),
    deps: exportDeps({ sandbox, destination, start: START, client: { ...DATASET_CLIENT, maxRetries: MAX_RETRIES } }),
  });
  return { result: summary.units[0], dir, destination, requests: unitRequests(sandbox.requests, dataset, PROJECT, DAY) };
}

const rowsOf = (dataset: DatasetName) => sandbox.data.rowCount(dataset, PROJECT, DAY);
const expected = { exportedAt: EXPORTED_AT };

describe('a repeated cursor', () => {
  it.each(CURSOR_DATASETS)('%s: the unit fails with a PaginationError saying the API is looping', async (dataset) => {
    const { result } = await exportUnit(dataset, [{ kind: 'repeat-cursor' }]);

    expect(failureOf(result)).toMatch(
      new RegExp(`^PaginationError: ${dataset} ${PROJECT} ${DAY}: page 2 returned a cursor that was already followed; the API is looping`),
    );
  });

  it.each(CURSOR_DATASETS)('%s: no table file, no manifest and no staged page is left, only the failure record', async (dataset) => {
    const { dir } = await exportUnit(dataset, [{ kind: 'repeat-cursor' }]);

    expect(await listFiles(dir)).toEqual([`_staging/${dataset}/dt=${DAY}/${PROJECT}/failure.json`]);
  });

  it.each(CURSOR_DATASETS)('%s: paging stops at the repeated cursor: two requests, nothing more', async (dataset) => {
    const { requests } = await exportUnit(dataset, [{ kind: 'repeat-cursor' }]);

    expect(requests.map((entry) => entry.fault ?? 'normal')).toEqual(['normal', 'repeat-cursor']);
  });
});

describe('an invalid cursor (400)', () => {
  it.each(CURSOR_DATASETS)('%s: the unit fails at once with the API error naming the invalid cursor, not retried', async (dataset) => {
    const { result, requests } = await exportUnit(dataset, [{ kind: 'invalid-cursor' }]);

    expect(failureOf(result)).toMatch(/^ApiError: request refused as invalid \(400\): Invalid cursor; cursor is not valid/);
    expect(requests.map((entry) => entry.status)).toEqual([200, 400]);
  });

  it.each(CURSOR_DATASETS)('%s: no table file and no manifest is written', async (dataset) => {
    const { dir } = await exportUnit(dataset, [{ kind: 'invalid-cursor' }]);

    expect(await tableFiles(dir)).toEqual([]);
  });

  it('a re-run finishes the unit exactly from its checkpoint, without fetching the first page again', async () => {
    const first = await exportUnit('searches', [{ kind: 'invalid-cursor' }]);
    failureOf(first.result);

    const second = await exportUnit('searches', [], { dir: first.dir });

    const manifest = manifestOf(second.result);
    expect(second.requests.map((entry) => entry.query['cursor'] === undefined)).toEqual([false, false]);
    expect(manifest).toMatchObject({ runs: 2, pages: 3, requests: { successful: 3, sent: 4, retried: 0 } });
    await expectUnitMatches(second.destination, sandbox.data, { dataset: 'searches', projectId: PROJECT, day: DAY }, expected);
  });
});

describe('an empty page that still carries a cursor', () => {
  it.each(CURSOR_DATASETS)('%s: is followed, and the export is complete and exact', async (dataset) => {
    const { result, destination } = await exportUnit(dataset, [{ kind: 'empty-page-cursor', hasCursor: true }]);

    manifestOf(result);
    await expectUnitMatches(destination, sandbox.data, { dataset, projectId: PROJECT, day: DAY }, expected);
  });

  it.each(CURSOR_DATASETS)('%s: costs exactly one request more than the minimum, and no page is fetched twice', async (dataset) => {
    const { result, requests } = await exportUnit(dataset, [{ kind: 'empty-page-cursor', hasCursor: true }]);

    const needed = minimumRequests(dataset, rowsOf(dataset)) + 1;
    expect(requests.map((entry) => entry.fault ?? 'normal')).toEqual(['normal', 'empty-page-cursor', ...Array(needed - 2).fill('normal')]);
    expect(new Set(requests.map(pagePosition)).size).toBe(needed);
    expect(manifestOf(result)).toMatchObject({ pages: needed, requests: { successful: needed, sent: needed, retried: 0 } });
  });
});

describe('a cursor that never ends', () => {
  const CAP = 4;

  it.each(CURSOR_DATASETS)(`%s: the unit fails at the page cap (EXPORT_MAX_PAGES=${CAP}) with a PaginationError`, async (dataset) => {
    expect(minimumRequests(dataset, rowsOf(dataset))).toBeLessThan(CAP);

    const { result, requests } = await exportUnit(dataset, [{ kind: 'endless-cursor', times: Infinity }], { settings: { maxPages: CAP } });

    expect(failureOf(result)).toMatch(new RegExp(`^PaginationError: ${dataset} ${PROJECT} ${DAY}: still more pages after ${CAP} \\(EXPORT_MAX_PAGES\\)`));
    expect(requests).toHaveLength(CAP);
  });

  it.each(CURSOR_DATASETS)('%s: nothing is written under a table and no manifest: never a silently truncated day', async (dataset) => {
    const { dir } = await exportUnit(dataset, [{ kind: 'endless-cursor', times: Infinity }], { settings: { maxPages: CAP } });

    expect(await tableFiles(dir)).toEqual([]);
  });

  it('the CLI with EXPORT_MAX_PAGES=3 exits 1 and names the unit and the cap', async () => {
    sandbox.addFault({ route: 'feedback', projectId: PROJECT, kind: 'endless-cursor', times: Infinity });
    const out = await makeTempDir('datasets-faults-cli');

    const cli = await runCli(['export', '--date', DAY, '--project', PROJECT, '--dataset', 'feedback', '--out', out], { EXPORT_MAX_PAGES: '3' });

    expect(cli.code).toBe(1);
    expect(cli.stdout).toMatch(new RegExp(`^FAILED +feedback ${PROJECT} ${DAY}: PaginationError: .*still more pages after 3 \\(EXPORT_MAX_PAGES\\)`, 'm'));
    // The CLI also appends its run to the run log (export_runs): only the unit's files matter here.
    expect((await listFiles(out)).filter((file) => file.startsWith('feedback/') || file.startsWith('_manifests/'))).toEqual([]);
  });
});

describe('a malformed answer', () => {
  /** The first field each endpoint's `wrong-types` answer breaks, as the error must name it. */
  const FIELDS: [DatasetName, string][] = [
    ['visitors', 'totals.human'],
    ['views', 'totals.human'],
    ['searches', 'searches[0].hits'],
    ['feedback', 'feedback[0].createdAt'],
    ['feedback_by_page', 'feedback[0].thumbsUp'],
    ['assistant', 'conversations[0].timestamp'],
    ['caller_stats', 'web'],
  ];

  /** Offset and cursor datasets: break a later page, after good pages were taken in. */
  const laterPage = (dataset: DatasetName): Partial<FaultRule> =>
    PAGING_OF[dataset] === 'offset' ? { offset: 250 } : PAGING_OF[dataset] === 'cursor' ? { hasCursor: true } : {};

  it.each(FIELDS)('%s: wrong types are retried once, then the unit fails with a message naming %s', async (dataset, field) => {
    const { result, requests } = await exportUnit(dataset, [{ kind: 'wrong-types', times: Infinity, ...laterPage(dataset) }]);

    const error = failureOf(result);
    expect(error).toMatch(/^MalformedResponseError: /);
    expect(error).toContain(` ${field} `);
    expect(requests.filter((entry) => entry.fault === 'wrong-types')).toHaveLength(MALFORMED_ATTEMPTS);
  });

  it.each(ALL_DATASETS)('%s: an answer that stays malformed leaves no table file and no manifest', async (dataset) => {
    const { dir } = await exportUnit(dataset, [{ kind: 'wrong-types', times: Infinity, ...laterPage(dataset) }]);

    expect(await tableFiles(dir)).toEqual([]);
  });

  it.each(ALL_DATASETS)('%s: a truncated JSON body is retried once, then the unit fails saying the answer is not JSON', async (dataset) => {
    const { result, requests, dir } = await exportUnit(dataset, [{ kind: 'malformed-json', times: Infinity }]);

    expect(failureOf(result)).toMatch(/^MalformedResponseError: getAnalytics got an HTTP 200 response that is not JSON/);
    expect(requests.filter((entry) => entry.fault === 'malformed-json')).toHaveLength(MALFORMED_ATTEMPTS);
    expect(await tableFiles(dir)).toEqual([]);
  });

  it.each(ALL_DATASETS)('%s: one malformed answer is retried and the unit completes exactly, with one request more', async (dataset) => {
    const { result, destination, requests } = await exportUnit(dataset, [{ kind: 'wrong-types', ...laterPage(dataset) }]);

    const minimum = minimumRequests(dataset, rowsOf(dataset));
    expect(manifestOf(result).requests).toEqual({ successful: minimum, sent: minimum + 1, retried: 1 });
    expect(requests).toHaveLength(minimum + 1);
    await expectUnitMatches(destination, sandbox.data, { dataset, projectId: PROJECT, day: DAY }, expected);
  });
});

/** The CLI in process against the sandbox at START. */
function runCli(argv: string[], env: Record<string, string> = {}) {
  return runCliAt(sandbox, argv, { now: START, env });
}
