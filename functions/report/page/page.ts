/**
 * The report as one self-contained HTML document: its style in the page, its charts inline SVG
 * (charts.ts) or HTML bars, no script, font or image from anywhere — it opens offline, from a
 * file or an e-mail attachment, on a phone or in print, light or dark. Each section is one
 * module of sections/; every value goes through the escaping template (template.ts).
 */
import type { Figures } from '../figures.js';
import { lastDayOf } from '../../warehouse/period.js';
import { assistantSection } from '../sections/assistant.js';
import { definitionsSection } from '../sections/definitions.js';
import { fillSection, type FillNotice } from '../sections/fill.js';
import { headlineSection } from '../sections/headline.js';
import { healthSection } from '../sections/health.js';
import { pagesSection } from '../sections/pages.js';
import { projectSection } from '../sections/projects.js';
import { searchesSection } from '../sections/searches.js';
import { thumbsDownSection } from '../sections/thumbs-down.js';
import { visitorsSection } from '../sections/visitors.js';
import type { SectionContext } from './parts.js';
import { STYLE } from './style.js';
import { html, trustedHtml, type SafeHtml } from './template.js';

export interface PageContext {
  /** The destination, as the user named it. */
  readonly destination: string;
  /** When the report was built, epoch ms. */
  readonly generatedAt: number;
  /** The docs site's base URL (`REPORT_SITE_URL`): page paths become links. */
  readonly siteUrl?: string;
  /** Sections added after the standard ones (e.g. "Fixes and their effect"), each one module's output. */
  readonly extraSections?: readonly SafeHtml[];
  /** Some due days of the period are not fully exported: what fills them, shown first. */
  readonly fill?: FillNotice;
  /** The command that exports `[from, to)` (SectionContext.exportCommand). */
  readonly exportCommand?: (from: string, to: string) => string;
  /** Outcome records skipped at the door (gaps/read.ts `readOutcomeRequests`; each told to the log): counted in the export's health. */
  readonly skippedOutcomes?: number;
}

/** The whole page. */
export function renderReport(figures: Figures, context: PageContext): string {
  const { period, previous } = figures;
  const many = figures.projects.length > 1;
  const sections: SectionContext = {
    many,
    ...(context.siteUrl !== undefined ? { siteUrl: context.siteUrl } : {}),
    ...(context.exportCommand ? { exportCommand: context.exportCommand } : {}),
  };
  const title = `Docs analytics, ${period.from} to ${lastDayOf(figures.period)}`;
  const built = new Date(context.generatedAt).toISOString().slice(0, 16).replace('T', ' ');
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${title}</title>
<style>${trustedHtml(STYLE)}</style>
</head>
<body>
<header>
<h1>${title}</h1>
<p class="meta">${period.days.length} UTC day(s), compared with the ${previous.days.length} day(s) before (${previous.from} to ${lastDayOf(previous)}) · ${figures.projects.length} project(s): ${figures.projects.map((p) => html`<span class="project">${p}</span> `)}</p>
<p class="meta">From <code>${context.destination}</code> · built ${built} UTC by <code>mintlify-exporter report</code></p>
</header>
<main>
${context.fill ? fillSection(context.fill) : ''}
${headlineSection(figures, context.exportCommand)}
${many ? projectSection(figures) : ''}
${visitorsSection(figures)}
${pagesSection(figures, sections)}
${searchesSection(figures, sections)}
${assistantSection(figures, sections)}
${thumbsDownSection(figures, sections)}
${healthSection(figures, context.skippedOutcomes ?? 0)}
${context.extraSections ?? []}
${definitionsSection()}
</main>
<footer><p>Visitors are the API's unique visitors per day (site totals), summed over the days: a person who came on three days counts three times; pages are never summed into totals. AI share = AI ÷ (human + AI).</p></footer>
</body>
</html>
`.html;
}
