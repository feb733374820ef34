/**
 * The report in a real browser: headless Chromium from npm (`@sparticuz/chromium`, driven by
 * `playwright-core`) opens the file the CLI wrote and proves it shows the data's own numbers
 * with nothing fetched: no request but the file itself, no console error, every chart drawn at
 * a readable size, the headline figures and the top page equal to independent DuckDB queries;
 * every column visible from 1024 px, a phone layout at 390 px (touch, nothing squeezed to
 * letters, charts across the width, definitions a tap away), dark mode and print.
 *
 * It also saves the README's screenshot, `docs/report.png`. The page is deterministic (seeded
 * sandbox, fixed clock, the destination shown as `./data`), so the file is rewritten only when
 * its bytes change; a checkout that cannot be written (read-only) keeps its copy.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatCount, formatShare } from '../../../functions/shared/format.js';
import { queryDuckDb } from '../../helpers/read-back.js';
import { removeTempDirs } from '../../helpers/files.js';
import { PERIOD, sumOf, type ReportLake } from '../../helpers/report-fixture.js';
import { openReportPage, type ReportPage } from '../../helpers/report-page.js';

const SCREENSHOT = fileURLToPath(new URL('../../../docs/report.png', import.meta.url));

let report: ReportPage;
let lake: ReportLake;
let browser: Browser;
let page: Page;
let fileUrl: string;

beforeAll(async () => {
  report = await openReportPage();
  ({ lake, browser, page, fileUrl } = report);
}, 120_000);

afterAll(async () => {
  await report?.close();
  await removeTempDirs();
});

describe('the report in a real browser', () => {
  it('fetches nothing but the file itself and logs no error', () => {
    expect(report.requests).toEqual([fileUrl]);
    expect(report.problems).toEqual([]);
  });

  it('runs no script: the markup in user text stays text', async () => {
    expect(await page.evaluate('document.scripts.length')).toBe(0);
    expect(await page.locator('img').count()).toBe(0);
    await expect(page.locator('#unclicked tbody tr').first().locator('td').first().textContent()).resolves.toContain('<script>alert("x")</script>');
  });

  it('draws every chart visible, across its section, at a readable size', async () => {
    const charts = page.locator('figure.chart svg').locator('visible=true');
    const count = await charts.count();
    expect(count).toBeGreaterThanOrEqual(1);
    for (let i = 0; i < count; i++) {
      const chart = charts.nth(i);
      await chart.scrollIntoViewIfNeeded();
      expect(await chart.isVisible()).toBe(true);
      const box = await chart.boundingBox();
      const section = await chart.evaluate((svg) => (svg.closest('section') as unknown as { clientWidth: number }).clientWidth);
      expect(box?.width, `chart ${i} width`).toBeGreaterThanOrEqual(section - 48);
      expect(box?.height, `chart ${i} height`).toBeGreaterThanOrEqual(100);
      const label = chart.locator('text').first();
      expect((await label.boundingBox())?.height ?? 0, `chart ${i} text`).toBeGreaterThanOrEqual(9);
    }
  });

  it('draws each bar list as bars on a plain background, every label visible', async () => {
    const lists = (await page.evaluate(`[...document.querySelectorAll('ol.bars')].map((ol) => ({
      background: getComputedStyle(ol).backgroundColor,
      bars: [...ol.querySelectorAll('.bar')].map((b) => b.getBoundingClientRect().width),
      labels: [...ol.querySelectorAll('.bar-label')].map((l) => l.getBoundingClientRect().height),
    }))`)) as { background: string; bars: number[]; labels: number[] }[];
    expect(lists.length).toBeGreaterThanOrEqual(3);
    for (const list of lists) {
      expect(list.background).toBe('rgba(0, 0, 0, 0)');
      expect(Math.max(...list.bars)).toBeGreaterThan(100);
      expect(Math.min(...list.labels)).toBeGreaterThanOrEqual(12);
    }
  });

  it.each([1024, 1280, 1920])('at %i px every column of every table is visible, with no sideways scroll', async (width) => {
    await page.setViewportSize({ width, height: 900 });
    const clipped = await page.evaluate(`(() => {
      const out = [];
      if (document.documentElement.scrollWidth > window.innerWidth) out.push('page ' + document.documentElement.scrollWidth);
      for (const t of document.querySelectorAll('table')) {
        const wrap = t.parentElement;
        if (t.getBoundingClientRect().right > wrap.getBoundingClientRect().right + 1) out.push((t.id || t.className) + ' ' + t.scrollWidth + ' > ' + wrap.clientWidth);
      }
      return out;
    })()`);
    expect(clipped).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 900 });
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
    expect(await page.locator('#pages .bars li').first().locator('.bar-label').textContent()).toContain(String(top?.['path']));
  });

  it('on a 390 px phone (touch, no hover): no sideways scroll, no text squeezed to letters, charts across the width', async () => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    try {
      await phone.goto(fileUrl, { waitUntil: 'load' });
      const found = (await phone.evaluate(`(() => {
        const out = { scroll: document.documentElement.scrollWidth - window.innerWidth, squeezed: [], charts: [], hidden: [] };
        for (const el of document.querySelectorAll('td, tbody th, .bar-label, .movers li, .card, p, li')) {
          const text = (el.textContent || '').trim();
          const box = el.getBoundingClientRect();
          if (text.length >= 4 && box.width > 0 && box.width < 60) out.squeezed.push(el.tagName + ' ' + Math.round(box.width) + ' ' + text.slice(0, 20));
        }
        for (const svg of document.querySelectorAll('figure.chart svg')) {
          // Each chart has a wide and a phone drawing; the one not shown at this width has no box.
          if (svg.getBoundingClientRect().width === 0) continue;
          const section = svg.closest('section');
          out.charts.push(svg.getBoundingClientRect().width / section.clientWidth);
        }
        for (const el of document.querySelectorAll('table.data td')) {
          if (getComputedStyle(el).display === 'none') out.hidden.push(el.textContent);
        }
        return out;
      })()`)) as { scroll: number; squeezed: string[]; charts: number[]; hidden: string[] };
      expect(found.scroll).toBeLessThanOrEqual(0);
      expect(found.squeezed).toEqual([]);
      expect(found.hidden).toEqual([]);
      for (const ratio of found.charts) expect(ratio).toBeGreaterThan(0.85);
      // Definitions are footnotes, reached by a tap: no hover needed.
      await phone.locator('#headline .def').first().tap();
      expect(await phone.evaluate('location.hash')).toBe('#def-human');
    } finally {
      await phone.close();
    }
  });

  it('follows prefers-color-scheme: dark backgrounds and light text in dark mode', async () => {
    const dark = await browser.newPage({ viewport: { width: 1280, height: 900 }, colorScheme: 'dark' });
    try {
      await dark.goto(fileUrl, { waitUntil: 'load' });
      const luminance = (color: string) => {
        const [r, g, b] = (color.match(/\d+/g) ?? []).map(Number);
        return (0.2126 * (r ?? 0) + 0.7152 * (g ?? 0) + 0.0722 * (b ?? 0)) / 255;
      };
      const body = (await dark.evaluate('[getComputedStyle(document.body).backgroundColor, getComputedStyle(document.body).color]')) as string[];
      const section = (await dark.evaluate("getComputedStyle(document.querySelector('section')).backgroundColor")) as string;
      expect(luminance(body[0] ?? '')).toBeLessThan(0.2);
      expect(luminance(section)).toBeLessThan(0.25);
      expect(luminance(body[1] ?? '')).toBeGreaterThan(0.7);
    } finally {
      await dark.close();
    }
  });

  it('prints without sideways overflow', async () => {
    await page.emulateMedia({ media: 'print' });
    const overflow = await page.evaluate('document.documentElement.scrollWidth - window.innerWidth');
    await page.emulateMedia({ media: 'screen' });
    expect(overflow).toBeLessThanOrEqual(0);
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
