/**
 * The report as one self-contained HTML document: its style in the page, its charts inline SVG
 * (charts.ts), no script, font or image from anywhere — it opens offline, from a file or an
 * e-mail attachment. Every text value is HTML-escaped (search terms, questions and paths are
 * user text), e-mail addresses in user text are masked, and no key is ever read.
 */
import { DATASET_NAMES } from '../shared/catalog.js';
import { stripControlCharacters } from '../shared/errors.js';
import { barChart, COLORS, columnChart, lineChart } from './charts.js';
import type { Figures, Headline, HealthState } from './figures.js';

export interface PageContext {
  /** The destination, as the user named it. */
  readonly destination: string;
  /** When the report was built, epoch ms. */
  readonly generatedAt: number;
  /** The section "Fixes and their effect" (fixes.ts), rendered; absent or '': none. */
  readonly fixes?: string | undefined;
}

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text made safe for HTML content and attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** What ends an e-mail-like token: whitespace and the punctuation that surrounds an address in prose. */
const TOKEN_END = /([\s<>()[\]{}"',;:]+)/u;
/** A token that holds an address: something, `@`, something with a dot. Linear: each `@` starts one scan that ends at the next `@`. */
const ADDRESS = /[^@]@[^@]*\.[^@]/u;
/** The start of an address, for a token the cut may have ended early. */
const ADDRESS_START = /[^@]@/u;
/** How far past the cut the text is cleaned, so a token straddling the cut is judged whole (an address is at most 254 characters). */
const LOOKAHEAD = 320;
/** Raw characters read for each character shown: control characters and whitespace runs may fold away. */
const RAW_PER_SHOWN = 4;

/**
 * Every token that looks like an e-mail address replaced by `[e-mail removed]`; linear in the
 * text's length. `cutShort`: the text was cut, so its last token may be an address's start.
 */
export function maskEmails(text: string, cutShort = false): string {
  // Split with a capture: tokens at even indexes, the separators between them at odd ones.
  const parts = text.split(TOKEN_END);
  const last = parts.length - 1;
  return parts
    .map((part, i) => (i % 2 === 0 && (ADDRESS.test(part) || (i === last && cutShort && ADDRESS_START.test(part))) ? '[e-mail removed]' : part))
    .join('');
}

/** The first `max` UTF-16 units of `text`, one fewer rather than half an emoji (a surrogate pair). */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * User text (a search term, a question, a path) for display: control characters removed,
 * e-mail addresses masked (readers paste them into questions), whitespace runs made one space,
 * cut to `max` characters. It is cut before it is cleaned, so a value of megabytes costs what
 * its first few hundred characters cost. Not escaped: the page's template does that.
 */
export function userText(text: string, max = 160): string {
  const window = max + LOOKAHEAD;
  const head = cut(text, window * RAW_PER_SHOWN);
  const folded = stripControlCharacters(head).replace(/\s+/g, ' ').trim();
  const cutShort = head.length < text.length || folded.length > window;
  const cleaned = maskEmails(cut(folded, window), cutShort);
  const longer = cutShort || cleaned.length > max;
  return longer ? `${cut(cleaned, max - 1)}…` : cleaned;
}

const NUMBER = new Intl.NumberFormat('en-US');

/** `12,345`: exact, with thousands separators. */
export function formatCount(value: number): string {
  return NUMBER.format(value);
}

/** `12.3 %`, or `—` when there is nothing to divide. */
export function formatShare(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)} %`;
}

function signed(value: number, text: string): string {
  return value > 0 ? `+${text}` : value < 0 ? `−${text.replace(/^-/, '')}` : '±0';
}

type Metric = {
  readonly key: keyof Headline;
  readonly title: string;
  readonly kind: 'count' | 'share';
  /** Whether a rise is good news (colours the change). */
  readonly upIsGood: boolean | null;
};

const METRICS: readonly Metric[] = [
  { key: 'human', title: 'Human visitors', kind: 'count', upIsGood: true },
  { key: 'ai', title: 'AI visitors', kind: 'count', upIsGood: null },
  { key: 'aiShare', title: 'AI share of visitors', kind: 'share', upIsGood: null },
  { key: 'views', title: 'Page views', kind: 'count', upIsGood: true },
  { key: 'searches', title: 'Searches', kind: 'count', upIsGood: null },
  { key: 'questions', title: 'Assistant questions', kind: 'count', upIsGood: null },
  { key: 'unansweredShare', title: 'Unanswered by the assistant', kind: 'share', upIsGood: false },
  { key: 'thumbsDown', title: 'Thumbs down', kind: 'count', upIsGood: false },
];

function metricValue(headline: Headline, metric: Metric): string {
  const value = headline[metric.key] as number | null;
  return metric.kind === 'share' ? formatShare(value) : formatCount(value ?? 0);
}

function hasData(headline: Headline): boolean {
  return headline.daysWithData > 0 || headline.views + headline.searches + headline.questions + headline.thumbsDown > 0;
}

/** `+1,234 (+5.2 %) vs 23,456`, or `no data for the previous period`. */
function change(current: Headline, previous: Headline, metric: Metric): { text: string; tone: 'good' | 'bad' | 'flat' } {
  if (!hasData(previous)) return { text: 'no data for the previous period', tone: 'flat' };
  const now = current[metric.key] as number | null;
  const before = previous[metric.key] as number | null;
  if (now === null || before === null) return { text: `previous: ${metricValue(previous, metric)}`, tone: 'flat' };
  const delta = now - before;
  const tone = delta === 0 || metric.upIsGood === null ? 'flat' : delta > 0 === metric.upIsGood ? 'good' : 'bad';
  if (metric.kind === 'share') {
    const points = (delta * 100).toFixed(1);
    return { text: `${signed(delta, `${points} pts`)} vs ${formatShare(before)}`, tone };
  }
  const relative = before === 0 ? '' : ` (${signed(delta, `${((delta / before) * 100).toFixed(1)} %`)})`;
  return { text: `${signed(delta, formatCount(Math.abs(delta)))}${relative} vs ${formatCount(before)}`, tone };
}

const STATE_TEXT: Readonly<Record<HealthState, string>> = {
  complete: 'complete',
  drift: 'complete, with drift (new fields or values kept in unknown_fields)',
  partial: 'partial (resumes on the next run)',
  missing: 'missing',
  failed: 'failed',
};

const lastDay = (figures: Figures) => figures.period.days[figures.period.days.length - 1] ?? figures.period.from;

/** The whole page. */
export function renderReport(figures: Figures, context: PageContext): string {
  const { period, previous } = figures;
  const many = figures.projects.length > 1;
  const pageLabel = (projectId: string, path: string) => userText(many ? `${path} (${projectId})` : path, 70);
  const title = `Docs analytics, ${period.from} to ${lastDay(figures)}`;

  const sections = [
    headlineSection(figures),
    many ? projectSection(figures) : '',
    section(
      'visitors',
      'Human and AI visitors per day',
      figures.visitorsPerDay.some((d) => d.human !== null)
        ? chart(
            lineChart(
              figures.visitorsPerDay.map((d) => d.day.slice(5)),
              [
                { name: 'Human visitors', color: COLORS.human, values: figures.visitorsPerDay.map((d) => d.human) },
                { name: 'AI visitors', color: COLORS.ai, values: figures.visitorsPerDay.map((d) => d.ai) },
              ],
            ),
            'Human and AI visitors per day',
          ) + gapNote(figures)
        : empty('No visitors data was exported for this period.'),
    ),
    section(
      'pages',
      'Most viewed pages, with their AI share',
      figures.topPages.length > 0
        ? chart(
            barChart(
              figures.topPages.map((p) => ({
                label: pageLabel(p.projectId, p.path),
                value: p.views,
                note: `${formatCount(p.views)} · ${formatShare(p.aiShare)} AI`,
              })),
              COLORS.bar,
            ),
            'Most viewed pages',
          ) +
            table(
              ['Page', ...(many ? ['Project'] : []), 'Views', 'Human', 'AI', 'AI share'],
              figures.topPages.map((p) => [
                userText(p.path),
                ...(many ? [p.projectId] : []),
                formatCount(p.views),
                formatCount(p.human),
                formatCount(p.ai),
                formatShare(p.aiShare),
              ]),
              'top-pages',
            )
        : empty('No page views were exported for this period.'),
    ),
    section(
      'searches',
      'Searches nobody clicked a result for',
      figures.unclickedSearches.length > 0
        ? `<p class="note">The most frequent terms whose results were never clicked on any day of the period: candidates for a page, a synonym or a redirect.</p>` +
            table(
              ['Search', ...(many ? ['Project'] : []), 'Searches', 'Days searched'],
              figures.unclickedSearches.map((s) => [userText(s.query, 90), ...(many ? [s.projectId] : []), formatCount(s.hits), formatCount(s.days)]),
              'unclicked',
            )
        : empty('Every search of this period had a result clicked (or no search was exported).'),
    ),
    section(
      'assistant',
      'Questions the assistant could not answer, by category',
      figures.unansweredByCategory.length > 0
        ? unansweredBody(figures)
        : empty('The assistant answered every question of this period (or no conversation was exported).'),
    ),
    section(
      'thumbs-down',
      'Pages with the most thumbs down',
      figures.thumbsDownPages.length > 0
        ? chart(
            barChart(
              figures.thumbsDownPages.map((p) => ({ label: pageLabel(p.projectId, p.path), value: p.thumbsDown, note: formatCount(p.thumbsDown) })),
              COLORS.bad,
            ),
            'Pages with the most thumbs down',
          ) +
            `<p class="note">Counted from every feedback item (<code>feedback</code>, <code>helpful = false</code>), not from <code>feedback_by_page</code>, which holds at most 100 pages a day.</p>`
        : empty('No page got a thumbs down in this period (or no feedback was exported).'),
    ),
    context.fixes ?? '',
    healthSection(figures),
  ];

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<header>
<h1>${escapeHtml(title)}</h1>
<p class="meta">${period.days.length} UTC day(s), compared with the ${previous.days.length} day(s) before (${escapeHtml(previous.from)} to ${escapeHtml(previous.days[previous.days.length - 1] ?? previous.from)}) · ${figures.projects.length} project(s): ${figures.projects.map((p) => `<span class="project">${escapeHtml(p)}</span>`).join(' ')}</p>
<p class="meta">From <code>${escapeHtml(context.destination)}</code> · built ${escapeHtml(new Date(context.generatedAt).toISOString().slice(0, 16).replace('T', ' '))} UTC by <code>mintlify-exporter report</code></p>
</header>
<main>
${sections.filter((s) => s !== '').join('\n')}
</main>
<footer><p>Visitors are the API's unique visitors per day (site totals), summed over the days: a person who came on three days counts three times; pages are never summed into totals. AI share = AI ÷ (human + AI). Every number is read from the Parquet warehouse; the report sent no API request.</p></footer>
</body>
</html>
`;
}

function headlineSection(figures: Figures): string {
  const { current, previous } = figures.headline;
  const cards = METRICS.map((metric) => {
    const delta = change(current, previous, metric);
    return `<div class="card"><div class="label">${escapeHtml(metric.title)}</div><div class="value" data-figure="${metric.key}">${escapeHtml(metricValue(current, metric))}</div><div class="delta ${delta.tone}">${escapeHtml(delta.text)}</div></div>`;
  });
  const extra = `<p class="note">${formatCount(current.unanswered)} of ${formatCount(current.questions)} assistant question(s) unanswered. Visitors data for ${current.daysWithData} of ${figures.period.days.length} day(s); previous period: ${previous.daysWithData} of ${figures.previous.days.length}.</p>`;
  return section('headline', 'The period at a glance', `<div class="cards">${cards.join('')}</div>${extra}`);
}

function projectSection(figures: Figures): string {
  return section(
    'projects',
    'Per project',
    table(
      ['Project', ...METRICS.map((m) => m.title)],
      figures.byProject.map((p) => [p.projectId, ...METRICS.map((m) => metricValue(p.current, m))]),
      'by-project',
    ),
  );
}

function unansweredBody(figures: Figures): string {
  const label = (category: string) => (category === '' ? '(no category)' : userText(category, 60));
  const bars = chart(
    barChart(
      figures.unansweredByCategory.slice(0, 12).map((c) => ({ label: label(c.category), value: c.questions, note: formatCount(c.questions) })),
      COLORS.ai,
    ),
    'Unanswered questions by category',
  );
  const more = figures.unansweredByCategory.length > 12 ? `<p class="note">And ${figures.unansweredByCategory.length - 12} more categor(ies).</p>` : '';
  const examples = figures.unansweredByCategory
    .slice(0, 6)
    .map(
      (c) =>
        `<li><strong>${escapeHtml(label(c.category))}</strong><ul>${c.examples.map((q) => `<li class="quote">${escapeHtml(userText(q))}</li>`).join('')}</ul></li>`,
    )
    .join('');
  return `${bars}${more}<h3>Examples (the latest questions of each category)</h3><ul class="examples">${examples}</ul>`;
}

function healthSection(figures: Figures): string {
  const days = figures.period.days;
  const head = days
    .map((day) => `<th scope="col" title="${day}">${day.endsWith('-01') || day === days[0] ? escapeHtml(day.slice(5)) : escapeHtml(day.slice(8))}</th>`)
    .join('');
  const rows = DATASET_NAMES.map((dataset) => {
    const cells = days
      .map((day) => {
        const cell = figures.health.find((c) => c.day === day && c.dataset === dataset);
        const state = cell?.state ?? 'missing';
        const detail = (cell?.projects ?? []).map((p) => `${p.projectId}: ${STATE_TEXT[p.state]}${p.detail ? ` (${userText(p.detail, 200)})` : ''}`).join('\n');
        return `<td class="s-${state}" data-day="${day}" data-dataset="${dataset}" data-state="${state}" title="${escapeHtml(`${dataset} ${day}\n${detail}`)}"></td>`;
      })
      .join('');
    return `<tr><th scope="row">${escapeHtml(dataset)}</th>${cells}</tr>`;
  }).join('\n');
  const counts = (['complete', 'drift', 'partial', 'missing', 'failed'] as const).map((state) => {
    const n = figures.health.filter((c) => c.state === state).length;
    return `<span class="legend"><span class="swatch s-${state}"></span>${escapeHtml(state)}: ${n}</span>`;
  });
  const requests = figures.requestsPerDay;
  const spent = requests.reduce((sum, d) => sum + d.requests, 0);
  const runs = requests.reduce((sum, d) => sum + d.runs, 0);
  const requestChart =
    runs > 0
      ? chart(
          columnChart(
            requests.map((d) => d.day.slice(5)),
            requests.map((d) => d.requests),
            COLORS.muted,
          ),
          'API requests per day',
        ) +
        `<p class="note">${formatCount(spent)} analytics request(s) in ${formatCount(runs)} run(s), from the run log <code>export_runs</code>, by the UTC day each run started (up to the day the report was built: a day is exported after it ends).</p>`
      : empty('No export run was logged from the first day of the period to the day of the report (the run log export_runs has no record for these days).');
  return section(
    'health',
    'Export health',
    `<p class="note">Each cell is one dataset of one UTC day over every project (the worst of them); hover for each project's state. Drift: the service sent fields or values this version does not know — kept in <code>unknown_fields</code>, nothing lost.</p>
<div class="calendar-wrap"><table class="calendar"><thead><tr><th></th>${head}</tr></thead><tbody>
${rows}
</tbody></table></div>
<p class="legends">${counts.join(' ')}</p>
<h3>API requests spent per day</h3>
${requestChart}`,
  );
}

function section(id: string, title: string, body: string): string {
  return `<section id="${id}"><h2>${escapeHtml(title)}</h2>\n${body}\n</section>`;
}

function chart(svg: string, label: string): string {
  return `<figure class="chart" role="img" aria-label="${escapeHtml(label)}">${svg}</figure>`;
}

function empty(sentence: string): string {
  return `<p class="empty">${escapeHtml(sentence)}</p>`;
}

function gapNote(figures: Figures): string {
  const gaps = figures.visitorsPerDay.filter((d) => d.human === null).map((d) => d.day);
  if (gaps.length === 0) return '';
  const named = gaps.length > 6 ? `${gaps.slice(0, 6).join(', ')} and ${gaps.length - 6} more` : gaps.join(', ');
  return `<p class="note">No visitors data for ${escapeHtml(named)}: the lines break there (see Export health).</p>`;
}

function table(headers: readonly string[], rows: readonly (readonly string[])[], id: string): string {
  const head = headers.map((h, i) => `<th scope="col"${i > 0 ? ' class="num"' : ''}>${escapeHtml(h)}</th>`).join('');
  const body = rows
    .map((row) => `<tr>${row.map((cell, i) => (i === 0 ? `<td>${escapeHtml(cell)}</td>` : `<td class="num">${escapeHtml(cell)}</td>`)).join('')}</tr>`)
    .join('\n');
  return `<div class="table-wrap"><table class="data" id="${id}"><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table></div>`;
}

const STYLE = `
:root { --text: #1e293b; --muted: #64748b; --line: #e2e8f0; --bg: #f8fafc; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header, main, footer { max-width: 940px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 24px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 0 0 12px; }
h3 { font-size: 15px; margin: 16px 0 8px; }
.meta, .note, footer { color: var(--muted); font-size: 13px; }
.project { display: inline-block; background: #e0e7ff; border-radius: 4px; padding: 0 6px; margin-right: 2px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 8px; padding: 16px 20px; margin: 16px 0; }
.cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px; }
.card .label { color: var(--muted); font-size: 12px; }
.card .value { font-size: 22px; font-weight: 600; font-variant-numeric: tabular-nums; }
.delta { font-size: 12px; }
.delta.good { color: #15803d; } .delta.bad { color: #b91c1c; } .delta.flat { color: var(--muted); }
figure.chart { margin: 0; overflow-x: auto; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
table.data { width: 100%; border-collapse: collapse; margin-top: 8px; font-size: 13px; }
table.data th, table.data td { text-align: left; padding: 4px 8px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
table.data .num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.table-wrap { overflow-x: auto; }
#by-project td:first-child { white-space: nowrap; }
#by-project th { font-size: 12px; }
.empty { color: var(--muted); font-style: italic; }
.examples .quote { color: var(--text); font-style: italic; }
.calendar-wrap { overflow-x: auto; }
table.calendar { border-collapse: separate; border-spacing: 2px; font-size: 10px; }
table.calendar th { font-weight: normal; color: var(--muted); text-align: right; padding: 0 4px 0 0; white-space: nowrap; }
table.calendar thead th { text-align: center; padding: 0; min-width: 18px; }
table.calendar td { width: 18px; height: 18px; border-radius: 3px; }
.s-complete { background: #16a34a; } .s-drift { background: #7c3aed; } .s-partial { background: #f59e0b; }
.s-missing { background: #cbd5e1; } .s-failed { background: #dc2626; }
.legend { margin-right: 12px; font-size: 12px; } .swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
footer { padding-bottom: 24px; }
@media (max-width: 720px) { .cards { grid-template-columns: repeat(2, 1fr); } }
`;
