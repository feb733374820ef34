/**
 * The report's "Fixes and their effect" in a real browser (headless Chromium, as
 * report-browser.test.ts): over a lake where a gap's thumbs down stop after its job completed
 * (test/helpers/fix-lake.ts), the page shows that job's exact before and after numbers, its pull
 * request as a link and the words before / after; a job of three days ago says too early to tell.
 */
import sparticuz from '@sparticuz/chromium';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '../../../functions/shared/dates.js';
import { runCliInProcess } from '../../helpers/cli.js';
import { removeTempDirs } from '../../helpers/files.js';
import { buildFixLake, DONE, NOW, PR_LINK, RECENT, type FixLake } from '../../helpers/fix-lake.js';

let lake: FixLake;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  lake = await buildFixLake();
  const file = path.join(lake.root, 'report.html');
  const result = await runCliInProcess(['report', '--from', addDays(DONE, -10), '--to', addDays(DONE, 11), '--out', lake.root, '--file', file], {
    env: { HOME: lake.root },
    now: () => NOW,
  });
  expect(result.code, result.stderr).toBe(0);
  browser = await chromium.launch({ executablePath: await sparticuz.executablePath(), headless: true });
  page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await removeTempDirs();
});

/** The cells of the effect row whose first cell names `pagePath`. */
async function rowOf(pagePath: string): Promise<string[]> {
  const rows = page.locator('#fixes-effect tbody tr', { hasText: pagePath });
  expect(await rows.count()).toBe(1);
  return rows.first().locator('td').allInnerTexts();
}

describe('Fixes and their effect, in a real browser', () => {
  it('shows the fixed gap’s exact thumbs down before and after its job, with the pull request and no claim of cause', async () => {
    const before = await lake.thumbsDown(lake.page, addDays(DONE, -10), addDays(DONE, -1));
    const section = page.locator('#fixes');

    await section.scrollIntoViewIfNeeded();
    expect(await section.isVisible()).toBe(true);
    expect(await section.locator('h2').textContent()).toBe('Fixes and their effect');
    expect(await section.textContent()).toContain('The figures beside a verdict are its own');
    const [gap, completed, pr, beforeCell, afterCell] = await rowOf(lake.page);
    expect(gap).toBe(`Thumbs down on ${lake.page}`);
    expect(completed).toBe(DONE);
    expect(pr).toBe(PR_LINK);
    expect(await page.locator(`#fixes-effect a[href="${PR_LINK}"]`).count()).toBe(1);
    expect(beforeCell).toBe(
      `${(Math.round(before) / 10).toFixed(1)} a day — ${before} thumbs down in 10 day(s) exported (${addDays(DONE, -10)} to ${addDays(DONE, -1)})`,
    );
    expect(afterCell).toBe(`0.0 a day — 0 thumbs down in 10 day(s) exported (${addDays(DONE, 1)} to ${addDays(DONE, 10)})`);
  });

  it('says too early to tell for a job completed three days ago', async () => {
    const [, completed, , , afterCell] = await rowOf(lake.recentPage);

    expect(completed).toBe(RECENT);
    expect(afterCell).toMatch(/^too early to tell \(3 whole day\(s\) since\)/);
  });
});
