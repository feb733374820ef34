/** The pieces every section is built of: a section, a table that stacks on a phone, bars, what moved, links, footnotes. */
import type { Move, Movers } from '../movers.js';
import { formatCount, signed } from '../../shared/format.js';
import { userText } from '../html.js';
import { holdsPersonalData, maskPath } from '../../shared/personal-data/index.js';
import { type Meaning, toneOf } from '../../warehouse/figure-names.js';
import { beyondChance, type Exposures } from '../../warehouse/noise.js';
import { html, trustedHtml, type Interpolation, type SafeHtml } from './template.js';

/** What a section needs besides the figures. */
export interface SectionContext {
  /** Several projects: rankings name the project. */
  readonly many: boolean;
  /** The docs site's base URL (`REPORT_SITE_URL`): page paths become links. */
  readonly siteUrl?: string;
  /** The command that exports `[from, to)` for the report's projects and destination. @default `mintlify-exporter export --from … --to …` */
  readonly exportCommand?: (from: string, to: string) => string;
}

export function section(id: string, title: string, action: string | undefined, body: Interpolation): SafeHtml {
  return html`<section id="${id}"><h2>${title}</h2>${action ? html`<p class="action">${action}</p>` : ''}
${body}
</section>`;
}

/** A footnote mark linking to the figure's definition (no hover needed). */
export function defined(id: string): SafeHtml {
  return html`<a class="def" href="#def-${id}" aria-label="how this is counted">?</a>`;
}

export function chart(svg: string, label: string): SafeHtml {
  return html`<figure class="chart" role="img" aria-label="${label}">${trustedHtml(svg)}</figure>`;
}

export function empty(sentence: string): SafeHtml {
  return html`<p class="empty">${sentence}</p>`;
}

export function note(content: Interpolation): SafeHtml {
  return html`<p class="note">${content}</p>`;
}

export interface Column {
  readonly title: string;
  readonly numeric?: boolean;
  /** The figure's definition id (a footnote). */
  readonly def?: string;
  /** Long content (a list of comments): on a phone, below its label rather than beside it. */
  readonly wide?: boolean;
}

/** A table; on a phone each row is a card with each cell labelled by its column. */
/** Rows a long table shows on a phone before "Show all". */
export const PHONE_ROWS = 5;

export function table(id: string, columns: readonly Column[], rows: readonly (readonly Interpolation[])[]): SafeHtml {
  const head = columns.map((c) => html`<th scope="col"${c.numeric ? html` class="num"` : ''}>${c.title}${c.def ? defined(c.def) : ''}</th>`);
  const body = rows.map(
    (row) =>
      html`<tr>${row.map((cell, i) => {
        const column = columns[i];
        const cls = column?.numeric ? 'num' : column?.wide ? 'wide' : '';
        return html`<td${cls ? html` class="${cls}"` : ''} data-label="${column?.title ?? ''}">${cell}</td>`;
      })}</tr>`,
  );
  const wrap = html`<div class="table-wrap"><table class="data" id="${id}"><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table></div>`;
  if (rows.length <= PHONE_ROWS) return wrap;
  // On a phone the rows after the top ones are hidden until the label is tapped (style.ts).
  return html`<input type="checkbox" class="more-toggle" id="more-${id}" aria-label="show every row of the table">${wrap}<label class="more-label" for="more-${id}">Show all ${String(rows.length)} rows</label>`;
}

export interface Bar {
  readonly label: Interpolation;
  readonly value: number;
  readonly note: string;
}

/** Horizontal bars drawn in HTML: readable at any width, the label above its bar on a phone. */
export function bars(label: string, items: readonly Bar[], tone: 'bar' | 'bad' | 'ai'): SafeHtml {
  const max = Math.max(1, ...items.map((b) => b.value));
  return html`<ol class="bars tone-${tone}" aria-label="${label}">${items.map(
    (b) =>
      html`<li><span class="bar-label">${b.label}</span><span class="bar-track"><span class="bar" style="width:${((b.value / max) * 100).toFixed(1)}%"></span></span><span class="bar-value">${b.note}</span></li>`,
  )}</ol>`;
}

/** A page path, as a link to the docs site when its base URL is known. */
export function pageLink(path: string, context: SectionContext, max = 90): SafeHtml {
  const shown = userText(path, max);
  const href = linkOf(path, context.siteUrl);
  return href === undefined ? html`<span class="path">${shown}</span>` : html`<a class="path" href="${href}">${shown}</a>`;
}

/**
 * `https://docs.example.com/guide` of a path, or undefined when the path is not one of the
 * site's own: readers' browsers report paths, so anyone can plant one. A path is a link only
 * when it starts with one `/`, holds no `\` and no control character (URL parsers read `\` as
 * `/` and drop tabs and line breaks: `/\evil.example` and `/<TAB>/evil.example` leave the site),
 * not even percent-encoded (`%5C`: servers decode it), and the resolved URL's origin is the site's.
 * Only a path as the `path` policy stores it is linked (an anchor aside): one its cleaning
 * changed (a mask in it, or, in a lake written before the policy, a query string, an address,
 * a phone number or a secret still in it) is shown as text, never rebuilt into a link.
 */
export function linkOf(path: string, siteUrl: string | undefined): string | undefined {
  if (siteUrl === undefined || !path.startsWith('/') || path.startsWith('//') || UNSAFE_IN_PATH.test(path) || UNSAFE_ENCODED.test(path)) return undefined;
  const withoutFragment = path.replace(FRAGMENT, '');
  if (holdsPersonalData(withoutFragment) || maskPath(withoutFragment) !== withoutFragment) return undefined;
  try {
    const site = new URL(siteUrl);
    const url = new URL(path, siteUrl.endsWith('/') ? siteUrl : `${siteUrl}/`);
    return url.origin === site.origin ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A path's fragment (`#install`): the page's own anchor, kept in a link. */
const FRAGMENT = /#[^?]*$/u;
/** A backslash or a control character (C0, DEL, C1) in a path. */
const UNSAFE_IN_PATH = /[\\\p{Cc}]/u;
/** The same, percent-encoded: `%5C`, `%00`–`%1F`, `%7F`, and C1 as UTF-8 (`%C2%80`–`%C2%9F`). */
const UNSAFE_ENCODED = /%(5c|[01][0-9a-f]|7f|c2%[89][0-9a-f])/i;

/**
 * The change against the previous period as a cell: `+12`, `new` (or `fresh`: "no longer
 * clicked" for a search that was there before; none: no badge), or nothing when the previous
 * period has no data. Coloured by `meaning` (warehouse/figure-names.ts `FIGURE_MEANINGS`), and
 * coloured or badged only when the change is beyond chance at its counts over `days`, the days
 * each period has exported (warehouse/noise.ts): otherwise the plain number, uncoloured.
 */
export function changeCell(current: number, previous: number | null, meaning: Meaning, fresh: string | undefined = 'new', days?: Exposures): SafeHtml {
  if (previous === null) return html`<span class="muted">—</span>`;
  const delta = current - previous;
  if (!beyondChance(current, previous, days)) return html`<span class="tone-flat" data-tone="flat">${signed(delta, formatCount(Math.abs(delta)))}</span>`;
  if (previous === 0 && fresh !== undefined)
    return html`<span class="tag new tone-${toneOf(current, meaning)}" data-tone="${toneOf(current, meaning)}">${fresh}</span>`;
  const tone = toneOf(delta, meaning);
  return html`<span class="tone-${tone}" data-tone="${tone}">${signed(delta, formatCount(Math.abs(delta)))}</span>`;
}

/** New, risers and fallers of one ranking, as three short lists; nothing when nothing moved. */
export function moversBlock(
  movers: Movers,
  label: (m: { projectId: string; label: string }) => Interpolation,
  unit: string,
  meaning: Meaning,
  /** Heading of the things new to the ranking that were there before (Movers.lapsed). */
  lapsedTitle = 'Back this period',
): SafeHtml | '' {
  const groups = [
    { title: 'New this period', items: movers.new, tone: toneOf(1, meaning) },
    { title: lapsedTitle, items: movers.lapsed, tone: toneOf(1, meaning) },
    { title: 'Rising', items: movers.risers, tone: toneOf(1, meaning) },
    { title: 'Falling', items: movers.fallers, tone: toneOf(-1, meaning) },
  ].filter((g) => g.items.length > 0);
  if (groups.length === 0) return '';
  return html`<div class="movers">${groups.map(
    (g) =>
      html`<div class="mover-group tone-${g.tone}" data-tone="${g.tone}"><h3>${g.title}</h3><ul>${g.items.map(
        (m) => html`<li>${label(m)} <span class="muted">${moveText(m, unit)}</span></li>`,
      )}</ul></div>`,
  )}</div>`;
}

/** `12 → 30 views`; per day over the days each period has exported when they differ (`0.4 → 1.1 views a day (29 and 30 days)`). */
export function moveText(m: Pick<Move, 'current' | 'previous' | 'days'>, unit: string): string {
  if (m.days === undefined) return `${formatCount(m.previous)} → ${formatCount(m.current)} ${unit}`;
  const perDay = (value: number, days: number) => formatCount(days === 0 ? 0 : value / days, { oneDecimal: true });
  return `${perDay(m.previous, m.days.previous)} → ${perDay(m.current, m.days.current)} ${unit} a day (${formatCount(m.days.previous)} and ${formatCount(m.days.current)} day(s) exported)`;
}
