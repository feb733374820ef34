/**
 * The report in a real browser: headless Chromium from npm (`@sparticuz/chromium`, driven by
 * `playwright-core`) opens the file the CLI wrote and proves it shows the data's own numbers
 * with nothing fetched: no request but the file itself, no console error, every chart drawn at
 * a readable size, the headline figures and the top page equal to independent DuckDB queries.
 *
 * It also saves the README's screenshot, `docs/report.png`. The page is deterministic (seeded
 * sandbox, fixed clock, the destination shown as `./data`), so the file is rewritten only when
 * its bytes change; a checkout that cannot be written (read-only) keeps its copy.
 */
import sparticuz from '@sparticuz/chromium';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCount, formatShare } from '../../functions/report/html.js';
import { queryDuckDb } from '../helpers/read-back.js';
import { removeTempDirs } from '../helpers/files.js';
import { buildReportLake, NOW, PERIOD, sumOf, type ReportLake } from '../helpers/report-fixture.js';
import { runCliInProcess } from '../helpers/cli.js';

const SCREENSHOT = fileURLToPath(new URL('../../docs/report.png', import.meta.url));

let lake: ReportLake;
let browser: Browser;
let page: Page;
const requests: string[] = [];
const problems: string[] = [];
let fileUrl: string;

beforeAll(async () => {
  lake = await buildReportLake();
  const result = await runCliInProcess(['report', '--days', '6', '--out', './data'], { env: lake.env, now: () => NOW, extra: { cwd: lake.root } });
  expect(result.code, result.stderr).toBe(0);
  fileUrl = pathToFileURL(path.join(lake.out, 'report.html')).href;
  // No launch arguments of its own: @sparticuz/chromium's defaults are made for Lambda.
  browser = await chromium.launch({ executablePath: await sparticuz.executablePath(), headless: true });
  page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(fileUrl, { waitUntil: 'load' });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await lake?.sandbox.close();
  await removeTempDirs();
});

describe('the report in a real browser', () => {
  it('fetches nothing but the file itself and logs no error', () => {
    expect(requests).toEqual([fileUrl]);
    expect(problems).toEqual([]);
  });

  it('runs no script: the markup in user text stays text', async () => {
    expect(await page.evaluate('document.scripts.length')).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    await expect(page.locator('#unclicked tbody tr').first().locator('td').first().textContent()).resolves.toContain('<script>alert("x")</script>');
  });

  it('draws every chart visible and at a readable size', async () => {
    const charts = page.locator('figure.chart svg');
    const count = await charts.count();
    expect(count).toBe(5);
    for (let i = 0; i < count; i++) {
      const chart = charts.nth(i);
      await chart.scrollIntoViewIfNeeded();
      expect(await chart.isVisible()).toBe(true);
      const box = await chart.boundingBox();
      expect(box?.width, `chart ${i} width`).toBeGreaterThanOrEqual(600);
      expect(box?.height, `chart ${i} height`).toBeGreaterThanOrEqual(100);
      // Axis and bar labels: at least 10 px high on screen.
      const label = chart.locator('text').first();
      expect((await label.boundingBox())?.height ?? 0, `chart ${i} text`).toBeGreaterThanOrEqual(10);
    }
  });

  it('shows the headline figures of the data itself', async () => {
    const human = await sumOf(lake.out, 'visitors_totals', 'sum(human)', PERIOD);
    const ai = await sumOf(lake.out, 'visitors_totals', 'sum(ai)', PERIOD);
    const views = await sumOf(lake.out, 'views_totals', 'sum(total)', PERIOD);
    const questions = await sumOf(lake.out, 'assistant_conversations', 'count(*)', PERIOD);
    const thumbsDown = await sumOf(lake.out, 'feedback', 'count(*)', PERIOD, 'helpful = false');
    const shown = async (key: string) => (await page.locator(`[data-figure="${key}"]`).textContent())?.trim();
    expect(await shown('human')).toBe(formatCount(human));
    expect(await shown('ai')).toBe(formatCount(ai));
    expect(await shown('aiShare')).toBe(formatShare(ai / (human + ai)));
    expect(await shown('views')).toBe(formatCount(views));
    expect(await shown('questions')).toBe(formatCount(questions));
    expect(await shown('thumbsDown')).toBe(formatCount(thumbsDown));
    expect(human).toBeGreaterThan(1000);
  });

  it('shows the most viewed page of the data itself first', async () => {
    const [top] = await queryDuckDb(
      `SELECT path, sum(total) AS views FROM read_parquet('${lake.out}/views_pages/*/*.parquet', union_by_name = true)
       WHERE date >= DATE '${PERIOD.from}' AND date < DATE '${PERIOD.to}' GROUP BY project_id, path ORDER BY views DESC, project_id, path LIMIT 1`,
    );
    const cells = page.locator('#top-pages tbody tr').first().locator('td');
    expect(await cells.nth(0).textContent()).toBe(top?.['path']);
    expect(await cells.nth(2).textContent()).toBe(formatCount(Number(top?.['views'])));
    expect(await page.locator('#pages svg').textContent()).toContain(String(top?.['path']));
  });

  it('saves the screenshot of the whole page (docs/report.png)', async () => {
    await page.evaluate('window.scrollTo(0, 0)');
    const png = await page.screenshot({ fullPage: true, animations: 'disabled' });
    expect(png.byteLength).toBeGreaterThan(50_000);
    const current = await readFile(SCREENSHOT).catch(() => undefined);
    if (current?.equals(png)) return;
    await writeFile(SCREENSHOT, png).catch((error: NodeJS.ErrnoException) => {
      // A read-only checkout keeps its screenshot; anything else is a failure.
      if (error.code !== 'EACCES' && error.code !== 'EROFS' && error.code !== 'EPERM') throw error;
    });
  });
});
