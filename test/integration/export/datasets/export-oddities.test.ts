/**
 * Answers that are odd but may be legitimate are kept, with a warning someone can look at:
 * the API's counts are approximate, so a page's `total` above the site's is not proof of an
 * error, and failing the day over it would help nobody.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runUnits } from '../../../../functions/export/run-units.js';
import { createLocalDestination } from '../../../../functions/shared/storage/destination-local.js';
import type { AppLogger } from '../../../../functions/shared/logger.js';
import { makeTempDir, removeTempDirs } from '../../../helpers/files.js';
import { exportDeps, manifestOf, plannedUnit, testSettings } from '../../../helpers/run-deps.js';

const API_KEY = 'mint_oddities_0000000000000000';
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${API_KEY}`) return res.writeHead(401).end('{"error":"no"}');
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        totals: { human: 10, ai: 2, total: 11 },
        visitors: [
          { path: '/a', human: 9, ai: 4, total: 12 },
          { path: '/b', human: 1, ai: 0, total: 1 },
        ],
        hasMore: false,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await removeTempDirs();
});

/** A logger that keeps only the warnings, each as its message and extra arguments. */
function warningsLogger(): AppLogger & { warnings: { message: string; extra: unknown[] }[] } {
  const warnings: { message: string; extra: unknown[] }[] = [];
  const noop = () => undefined;
  return { warnings, debug: noop, info: noop, error: noop, warn: (message: string, ...extra: unknown[]) => warnings.push({ message, extra }) } as never;
}

describe('odd answers', () => {
  it('keeps a page whose row total exceeds the site total and warns once, without row data', async () => {
    const logger = warningsLogger();
    const dir = await makeTempDir();
    const deps = exportDeps({ sandbox: { url, apiKey: API_KEY }, destination: createLocalDestination(dir), logger });

    const summary = await runUnits({ units: [plannedUnit({ dataset: 'visitors', projectId: 'proj_odd', day: '2026-01-10' })], policy: testSettings(), deps });

    expect(manifestOf(summary.units[0]).rows).toMatchObject({ visitors_pages: 2 });
    expect(logger.warnings).toHaveLength(1);
    expect(logger.warnings[0]?.message).toBe('odd answer from the API (kept)');
    expect(JSON.stringify(logger.warnings[0]?.extra)).toContain('1 row(s) have a total above the site total (11)');
    expect(JSON.stringify(logger.warnings[0]?.extra)).not.toContain('/a');
  });
});
