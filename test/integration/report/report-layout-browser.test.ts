/**
 * The report's layout between phone and desktop (issue 41), in headless Chromium: from 641 to
 * 820 px — a tablet, where tables stack as on a phone — the page is no longer than on a 390 px
 * phone (the phone's "Show all" applies up to the tablet width); and a chart's legend at 390 px
 * names only series that are drawn and overlaps nothing.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COLORS, lineChart, loadCharts } from '../../../functions/report/charts.js';
import { chart } from '../../../functions/report/page/parts.js';
import { STYLE } from '../../../functions/report/page/style.js';
import { removeTempDirs } from '../../helpers/files.js';
import { openReportPage, type ReportPage } from '../../helpers/report-page.js';

let report: ReportPage;
let page: Page;

beforeAll(async () => {
  report = await openReportPage();
  page = report.page;
}, 180_000);

afterAll(async () => {
  await report?.close();
  await removeTempDirs();
});

async function heightAt(width: number): Promise<number> {
  await page.setViewportSize({ width, height: 900 });
  return page.evaluate<number>('document.documentElement.scrollHeight');
}

describe('a tablet', () => {
  it.each([641, 700, 768, 820])('at %i px the page is no longer than at 390 px', async (width) => {
    const phone = await heightAt(390);
    expect(await heightAt(width)).toBeLessThanOrEqual(phone);
  });

  it('at 700 px a long table shows its top rows and "Show all", as on a phone', async () => {
    await page.setViewportSize({ width: 700, height: 900 });
    const shown = await page.evaluate<{ rows: number; visible: number; label: boolean }>(`(() => {
      const rows = [...document.querySelectorAll('#unclicked tbody tr')];
      const label = document.querySelector('label[for="more-unclicked"]');
      return { rows: rows.length, visible: rows.filter((r) => r.getBoundingClientRect().height > 0).length, label: !!label && label.getBoundingClientRect().height > 0 };
    })()`);
    expect(shown.rows).toBeGreaterThan(5);
    expect(shown).toMatchObject({ visible: 5, label: true });
  });
});

interface Box {
  readonly text: string;
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

describe('a chart legend on a 390 px phone', () => {
  /** The legend entries of the visitors chart shown at this width, and every other text of the chart, as boxes on the screen. */
  async function legendAndText(on: Page = page): Promise<{
    legend: (Box & { color: string; dashed: boolean })[];
    others: Box[];
    drawn: { color: string; dashed: boolean }[];
  }> {
    await on.setViewportSize({ width: 390, height: 844 });
    return on.evaluate(`(() => {
      const figure = document.querySelector('#visitors figure.chart');
      const box = (el, text) => { const r = el.getBoundingClientRect(); return { text, left: r.left, right: r.right, top: r.top, bottom: r.bottom }; };
      const svg = [...figure.querySelectorAll('svg')].find((s) => s.getBoundingClientRect().width > 0);
      const names = ['Human visitors', 'AI visitors', 'Human, previous period', 'AI, previous period'];
      const texts = [...svg.querySelectorAll('text')].filter((t) => (t.textContent || '').trim() !== '');
      // The legend as the page draws it: its own list, else the entries ECharts drew inside the SVG.
      const items = [...figure.querySelectorAll('.chart-legend li')];
      const legend = items.length > 0
        ? items.map((li) => ({ ...box(li, li.textContent.trim()), color: li.dataset.color, dashed: li.dataset.dashed === 'true' }))
        : texts.filter((t) => names.includes(t.textContent.trim())).map((t) => ({ ...box(t, t.textContent.trim()), color: '', dashed: false }));
      const others = texts.filter((t) => !names.includes(t.textContent.trim())).map((t) => box(t, t.textContent.trim()));
      // A series is drawn when a path of its colour and dash has a line segment.
      const drawn = [...svg.querySelectorAll('path')]
        .filter((p) => p.getAttribute('fill') === 'none' && /L/.test(p.getAttribute('d') || ''))
        .map((p) => ({ color: (p.getAttribute('stroke') || '').toLowerCase(), dashed: p.hasAttribute('stroke-dasharray') }));
      return { legend, others, drawn };
    })()`);
  }

  const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

  /** No legend entry overlaps another or a text of the chart, and each is on the screen. */
  function expectNoOverlap(legend: readonly Box[], others: readonly Box[]): void {
    expect(legend.length).toBeGreaterThan(0);
    for (const [i, a] of legend.entries()) {
      for (const b of legend.slice(i + 1)) expect(overlap(a, b), `${a.text} / ${b.text}`).toBe(false);
      for (const b of others) expect(overlap(a, b), `${a.text} / ${b.text}`).toBe(false);
      expect(a.right).toBeLessThanOrEqual(390);
    }
  }

  it('names only series that are drawn', async () => {
    const { legend, drawn } = await legendAndText();
    expect(legend.map((l) => l.text)).toEqual(['Human visitors', 'AI visitors', 'Human, previous period', 'AI, previous period']);
    for (const entry of legend) expect(drawn, entry.text).toContainEqual({ color: entry.color, dashed: entry.dashed });
  });

  it('overlaps nothing: no entry another, nor any text of the chart', async () => {
    const { legend, others } = await legendAndText();
    expectNoOverlap(legend, others);
  });

  it('overlaps nothing over a month of a large site (six-figure axis labels), and leaves out a previous period of one lone day', async () => {
    await loadCharts();
    const days = Array.from({ length: 30 }, (_, i) => `05-${String(i + 1).padStart(2, '0')}`);
    const wave = (base: number) => days.map((_, i) => base + ((i * 7919) % 13) * 1_000);
    const lone = days.map((_, i) => (i === 29 ? 190_000 : null));
    const svg = lineChart(days, [
      { name: 'Human visitors', color: COLORS.human, values: wave(180_000) },
      { name: 'AI visitors', color: COLORS.ai, values: wave(90_000) },
      { name: 'Human, previous period', color: COLORS.human, values: lone, faint: true },
      { name: 'AI, previous period', color: COLORS.ai, values: lone.map((v) => (v === null ? null : v / 2)), faint: true },
    ]);
    const phone = await report.browser.newPage({ viewport: { width: 390, height: 844 } });
    await phone.setContent(
      `<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head><body><main><section id="visitors">${chart(svg, 'chart').html}</section></main></body></html>`,
    );
    const { legend, others, drawn } = await legendAndText(phone);
    await phone.close();
    expect(legend.map((l) => l.text)).toEqual(['Human visitors', 'AI visitors']);
    for (const entry of legend) expect(drawn, entry.text).toContainEqual({ color: entry.color, dashed: entry.dashed });
    expect(others.some((t) => /^\d{3},\d{3}$/.test(t.text))).toBe(true);
    expectNoOverlap(legend, others);
  });
});
