/**
 * The report read by a lead who skims colours (issue 37), in headless Chromium: every increase
 * of unanswered questions, unclicked searches and thumbs down — a "Change" cell, a "Rising" or
 * "New this period" list — is drawn in the page's "bad" colour, and every decrease in the
 * "good" one; page views keep "more is good". Layout: no width from 360 to 1920 px scrolls
 * sideways, chart text is at least 11 px at 390 px, and the phone page is at most twice the
 * desktop's length.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

/** The computed colour of `var(--name)` on this page. */
async function colourOf(name: string): Promise<string> {
  return page.evaluate(`(() => {
    const probe = document.createElement('span');
    probe.style.color = 'var(${name})';
    document.body.append(probe);
    const colour = getComputedStyle(probe).color;
    probe.remove();
    return colour;
  })()`);
}

interface Seen {
  readonly where: string;
  readonly text: string;
  readonly colour: string;
}

/** Every change a section draws: the "Change" column's cells and the items of the movers' lists, with their direction. */
async function changesIn(section: string): Promise<{ readonly up: Seen[]; readonly down: Seen[] }> {
  return page.evaluate(`(() => {
    const root = document.getElementById(${JSON.stringify(section)});
    const up = [];
    const down = [];
    if (!root) return { up, down };
    for (const cell of root.querySelectorAll('td[data-label="Change"]')) {
      const text = (cell.textContent || '').trim();
      const colour = getComputedStyle(cell.firstElementChild || cell).color;
      if (/^\\+|^new$/.test(text)) up.push({ where: 'change cell', text, colour });
      else if (/^[\u2212-]\\d/.test(text)) down.push({ where: 'change cell', text, colour });
    }
    for (const group of root.querySelectorAll('.mover-group')) {
      const title = ((group.querySelector('h3') || {}).textContent || '').trim();
      for (const item of group.querySelectorAll('li')) {
        const seen = { where: title, text: (item.textContent || '').trim(), colour: getComputedStyle(item).color };
        // "No longer clicked": searches clicked before and unclicked now, an increase of the unclicked list.
        if (/^Rising|^New|^No longer clicked/.test(title)) up.push(seen);
        else if (/^Falling/.test(title)) down.push(seen);
      }
    }
    return { up, down };
  })()`);
}

describe('colours by meaning', () => {
  it.each(['searches', 'assistant', 'thumbs-down'])('in %s every increase is drawn in the bad colour and every decrease in the good one', async (section) => {
    const [bad, good, flat] = [await colourOf('--bad'), await colourOf('--good'), await colourOf('--muted')];
    const { up, down } = await changesIn(section);
    expect(up.length + down.length, `${section} shows changes`).toBeGreaterThan(0);
    // A change within chance at its counts is drawn flat (docs/report.md, "Changes beyond noise"); any other in its meaning's colour.
    for (const seen of up) expect([bad, flat], `${seen.where}: ${seen.text}`).toContain(seen.colour);
    for (const seen of down) expect([good, flat], `${seen.where}: ${seen.text}`).toContain(seen.colour);
  });

  it('page views keep "more is good"', async () => {
    const [bad, good, flat] = [await colourOf('--bad'), await colourOf('--good'), await colourOf('--muted')];
    const { up, down } = await changesIn('pages');
    for (const seen of up) expect([good, flat], `${seen.where}: ${seen.text}`).toContain(seen.colour);
    for (const seen of down) expect([bad, flat], `${seen.where}: ${seen.text}`).toContain(seen.colour);
  });
});

describe('layout from 360 to 1920 px', () => {
  it.each([360, 390, 414, 640, 700, 768, 815, 1024, 1280, 1920])('no sideways scroll at %i px', async (width) => {
    await page.setViewportSize({ width, height: 900 });
    const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
    expect(overflow).toBeLessThanOrEqual(0);
  });

  it('chart text is at least 11 px on a 390 px phone', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    // A glyph's rendered height: its font size times the SVG's scale (a viewBox drawn narrower shrinks it).
    // Only the drawing shown at this width (each chart has a wide and a phone drawing).
    const sizes = await page.evaluate<number[]>(`[...document.querySelectorAll('figure.chart svg text')]
      .filter((t) => (t.textContent || '').trim() !== '' && t.closest('svg').getBoundingClientRect().width > 0)
      .map((t) => {
        const svg = t.closest('svg');
        const box = svg.getBoundingClientRect();
        const scale = box.width / ((svg.viewBox.baseVal && svg.viewBox.baseVal.width) || box.width);
        return parseFloat(getComputedStyle(t).fontSize) * scale;
      })`);
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.min(...sizes)).toBeGreaterThanOrEqual(11);
  });

  it('the phone page is at most twice the desktop page long', async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    const desktop = await page.evaluate<number>('document.documentElement.scrollHeight');
    await page.setViewportSize({ width: 390, height: 844 });
    const phone = await page.evaluate<number>('document.documentElement.scrollHeight');
    expect(phone / desktop).toBeLessThanOrEqual(2);
  });
});
