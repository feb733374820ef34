/**
 * Role: the report fixture's page in a real headless Chromium — the lake built once
 * (report-fixture.ts), `report --days 6` run by the CLI in process, the page opened at 1280 px
 * with every request, console warning or error and page error it causes kept. Used by the
 * browser tests of the report (its content, its colours and layout).
 */
import sparticuz from '@sparticuz/chromium';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { runCliInProcess } from './cli.js';
import { buildReportLake, NOW, type ReportLake } from './report-fixture.js';

export interface ReportPage {
  readonly lake: ReportLake;
  readonly browser: Browser;
  readonly page: Page;
  /** The report file's URL, the one thing the page may fetch. */
  readonly fileUrl: string;
  /** Every URL the page requested. */
  readonly requests: string[];
  /** Console errors and warnings, and page errors. */
  readonly problems: string[];
  /** Closes the browser and the lake's sandbox. */
  close(): Promise<void>;
}

/** The report of the fixture's last six days, open in Chromium at 1280 × 900. */
export async function openReportPage(): Promise<ReportPage> {
  const lake = await buildReportLake();
  const result = await runCliInProcess(['report', '--days', '6', '--out', './data'], { env: lake.env, now: () => NOW, extra: { cwd: lake.root } });
  expect(result.code, result.stderr).toBe(0);
  const fileUrl = pathToFileURL(path.join(lake.out, 'report.html')).href;
  // No launch arguments of its own: @sparticuz/chromium's defaults are made for Lambda.
  const browser = await chromium.launch({ executablePath: await sparticuz.executablePath(), headless: true });
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('console', (message) => {
    if (message.type() === 'error' || message.type() === 'warning') problems.push(`${message.type()}: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.goto(fileUrl, { waitUntil: 'load' });
  return {
    lake,
    browser,
    page,
    fileUrl,
    requests,
    problems,
    close: async () => {
      await browser.close();
      await lake.sandbox.close();
    },
  };
}
