/**
 * Days that could never be exported: an answer larger than the client reads is asked again in
 * smaller pages (half the limit, down to 1) before the unit gives up with a message that can
 * help; invalid UTF-8 becomes U+FFFD, counted in the manifest and warned about. And an answer
 * that arrives after its unit failed is dropped unseen, whatever it is.
 */
import { describe, expect, it } from 'vitest';
import type { Sandbox } from '../../../../sandbox/index.js';
import type { Manifest } from '../../../../functions/export/manifest.js';
import { exportUnit } from '../../../../functions/export/unit.js';
import { retryLinePrinter } from '../../../../functions/cli/retry-lines.js';
import { createApiClient } from '../../../../functions/shared/api/index.js';
import { createBudgetGate, createBudgetLedger } from '../../../../functions/shared/pacing/budget.js';
import { parseBudget } from '../../../../functions/shared/pacing/budget-spec.js';
import type { Destination } from '../../../../functions/shared/storage/destination.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import { DestinationError } from '../../../../functions/shared/errors.js';
import type { AppLogger } from '../../../../functions/shared/logger.js';
import { sleep as realSleep } from '../../../../functions/shared/time.js';
import { createMemoryStore } from '../../../../functions/shared/storage/shared-store.js';
import { queryDuckDb } from '../../../helpers/read-back.js';
import { makeTempDir } from '../../../helpers/files.js';
import { analyticsRequests } from '../../../helpers/request-log.js';
import { useSandbox } from '../../../helpers/emulators.js';
import { recordingLogger, testPrivacy } from '../../../helpers/run-deps.js';

const PROJECT = 'proj_synth_600';
const UNIT = { dataset: 'visitors', projectId: PROJECT, day: '2026-10-08' } as const;
let sandbox: Sandbox;

useSandbox({}, (started) => (sandbox = started));

/** What the unit writes to and logs to, when a test needs more than a local folder and silence. */
interface UnitSide {
  readonly destination?: (local: Destination) => Destination;
  readonly logger?: AppLogger;
}

async function exportWith(options: { readonly maxResponseBytes?: number; readonly fetch?: typeof fetch }, side: UnitSide = {}) {
  const dir = await makeTempDir('oversized');
  const warnings: string[] = [];
  const gate = createBudgetGate(createBudgetLedger(createMemoryStore(), parseBudget('10000/1h')), { now: Date.now, sleep: realSleep });
  const api = createApiClient({
    baseUrl: sandbox.url,
    apiKey: sandbox.apiKey,
    budget: gate,
    sleep: async () => undefined,
    events: retryLinePrinter((line) => warnings.push(line)),
    ...options,
  });
  sandbox.clearRequests();
  const run = exportUnit(
    { unit: UNIT, exportedAt: Date.now(), policy: { maxPages: 10_000, checkpointMaxAgeMs: 86_400_000 }, control: {}, privacy: testPrivacy() },
    {
      api,
      destination: (side.destination ?? ((local) => local))(createLocalDestination(dir)),
      now: Date.now,
      ...(side.logger ? { logger: side.logger } : {}),
    },
  );
  return { dir, run, warnings };
}

describe('an answer larger than the client reads', () => {
  it('is asked again with half the limit until it fits, and the day is exported whole', async () => {
    const { run } = await exportWith({ maxResponseBytes: 12_000 });

    const outcome = await run;

    expect(outcome.status).toBe('complete');
    const manifest = (outcome as { manifest: Manifest }).manifest;
    expect(manifest.rows['visitors_pages']).toBe(600);
    expect(manifest.pageLimit).toBeLessThan(250);
    const limits = analyticsRequests(sandbox.requests).map((r) => r.query['limit']);
    expect(limits[0]).toBe('250');
    expect(limits).toContain(String(manifest.pageLimit));
  });

  it('fails the unit when even one row is too large, without suggesting EXPORT_PAGE_LIMIT', async () => {
    const { run } = await exportWith({ maxResponseBytes: 40 });

    const error = await run.then(
      () => undefined,
      (e: unknown) => e as Error,
    );

    expect(error?.message).toMatch(/a single row is larger than .* this day cannot be exported as it is — report it to Mintlify/);
    expect(error?.message).not.toContain('EXPORT_PAGE_LIMIT');
    const limits = analyticsRequests(sandbox.requests).map((r) => r.query['limit']);
    expect(limits).toEqual(['250', '125', '63', '32', '16', '8', '4', '2', '1']);
  });
});

describe('invalid UTF-8 in an answer', () => {
  it('becomes U+FFFD, counted in the manifest and warned about, and the day is exported', async () => {
    // A proxy that corrupts one byte of the first page: `"path":"/` gets a stray 0xFF after it.
    let corrupted = false;
    const corrupting = (async (input: string | URL | Request, init?: RequestInit) => {
      const response = await fetch(input, init);
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (corrupted || response.status !== 200) return new Response(bytes, { status: response.status, headers: response.headers });
      corrupted = true;
      const marker = Buffer.from('"path":"/');
      const at = Buffer.from(bytes).indexOf(marker) + marker.length;
      const out = Buffer.concat([bytes.subarray(0, at), Buffer.from([0xff]), bytes.subarray(at)]);
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      return new Response(out, { status: 200, headers });
    }) as typeof fetch;
    const { run, warnings, dir } = await exportWith({ fetch: corrupting });

    const outcome = await run;

    expect(outcome.status).toBe('complete');
    expect((outcome as { manifest: Manifest }).manifest.invalidUtf8).toBe(1);
    expect(warnings.filter((line) => line.startsWith('warning:'))).toEqual([
      expect.stringMatching(/answered with 1 invalid UTF-8 sequence\(s\): kept as U\+FFFD/),
    ]);
    const rows = await queryDuckDb(
      `SELECT count(*) AS n FROM read_parquet('${dir}/visitors_pages/dt=${UNIT.day}/${PROJECT}.parquet') WHERE path LIKE '%\uFFFD%'`,
    );
    expect(Number(rows[0]?.['n'])).toBe(1);
  });
});

/** `inner`, except that every checkpoint write fails. */
function failingCheckpoints(inner: Destination): Destination {
  return {
    ...inner,
    put: (key, body, options) =>
      key.endsWith('/checkpoint.json') ? Promise.reject(new DestinationError(`cannot write ${key}`)) : inner.put(key, body, options),
  };
}

describe('a page on its way when its unit fails', () => {
  it('is dropped unseen: no warning, and no request asks for it again with a smaller limit', async () => {
    const maxResponseBytes = 200_000;
    let sent = 0;
    // The second answer arrives late (after the unit failed) and is too large to read.
    const slowOversized: typeof fetch = async (input, init) => {
      sent += 1;
      if (sent === 1) return fetch(input, init);
      await new Promise((resolve) => setTimeout(resolve, 100));
      return new Response(' '.repeat(maxResponseBytes + 1), { status: 200, headers: { 'content-type': 'application/json' } });
    };
    const logger = recordingLogger();
    const { run } = await exportWith({ fetch: slowOversized, maxResponseBytes }, { destination: failingCheckpoints, logger });

    const error = await run.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));

    expect(error?.message).toMatch(/cannot write .*checkpoint\.json/);
    expect(sent).toBe(2);
    expect(logger.lines.filter((line) => line.level === 'warn')).toEqual([]);
  });
});
