/**
 * The report's section "Fixes and their effect": for every completed agent job made for a gap
 * (`gaps --prompts`), the gap's own figure per day over the N days before the job completed and
 * the N days after (gaps/effect.ts), with its pull request — before / after, never a claim of
 * cause — and beside it the period's gaps still open. Every text is escaped; a link is drawn
 * only for an https URL.
 */
import { GAP_FIGURE } from '../gaps/gaps.js';
import { EFFECT_MIN_DAYS, type EffectWindow, type Fixes, type GapEffect } from '../gaps/effect.js';
import { escapeHtml, formatCount, userText } from './html.js';

/** The section, or '' when no job was ever made for a gap (readFixes reads nothing then). */
export function renderFixes(fixes: Fixes, many: boolean): string {
  if (fixes.effects.length === 0 && fixes.open.length === 0) return '';
  const effects =
    fixes.effects.length > 0
      ? `<p class="note">For each completed job made for a gap: the gap's own figure per day over the N days before the day the job completed and the N days after it (N = the whole days since, at most 28). Before / after, not cause and effect: traffic, releases and seasons move these figures too. Under ${EFFECT_MIN_DAYS} days after it is too early to tell.</p>` +
        table(
          ['Gap', ...(many ? ['Project'] : []), 'Job completed', 'Pull request', 'Before', 'After'],
          fixes.effects.map((effect) => [
            effect.gap ? escapeHtml(userText(effect.gap.title, 90)) : `${escapeHtml(effect.gapId)} <span class="note">(not found in the warehouse)</span>`,
            ...(many ? [escapeHtml(effect.projectId)] : []),
            escapeHtml(effect.completedDay),
            prLinkOf(effect.prLink),
            windowText(effect, effect.before),
            effect.tooEarly
              ? `<strong>too early to tell</strong> (${formatCount(effect.daysSince)} whole day(s) since)${effect.after ? `; so far ${windowText(effect, effect.after)}` : ''}`
              : windowText(effect, effect.after),
          ]),
          'fixes-effect',
        )
      : '<p class="empty">No job made for a gap has completed yet: <code>mintlify-exporter gaps --prompts FILE</code> writes the prompts.</p>';
  const open =
    fixes.open.length > 0
      ? `<h3>Gaps still open</h3>` +
        table(
          ['Gap', ...(many ? ['Project'] : []), 'Score', 'Why', 'Id'],
          fixes.open.map((gap) => [
            escapeHtml(userText(gap.title, 90)),
            ...(many ? [escapeHtml(gap.projectId)] : []),
            formatCount(gap.score),
            escapeHtml(userText(gap.because, 140)),
            `<code>${escapeHtml(gap.gapId)}</code>`,
          ]),
          'fixes-open',
        )
      : '';
  return `<section id="fixes"><h2>Fixes and their effect</h2>\n${effects}${open}\n</section>`;
}

/** `3.2 a day — 32 thumbs down in 10 days (03-01 to 03-10)`: the exact total and days, the rate to one decimal. */
function windowText(effect: GapEffect, window: EffectWindow | undefined): string {
  if (window === undefined) return '—';
  const what = effect.gap ? GAP_FIGURE[effect.gap.kind] : 'the figure';
  const rate = (Math.round(window.perDay * 10) / 10).toFixed(1);
  return `<span class="figure">${rate}</span> a day — ${formatCount(window.total)} ${escapeHtml(what)} in ${formatCount(window.days)} day(s) (${escapeHtml(window.from)} to ${escapeHtml(window.last)})`;
}

function prLinkOf(link: string | undefined): string {
  if (link === undefined) return 'none';
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return escapeHtml(userText(link, 80));
  }
  return url.protocol === 'https:' ? `<a href="${escapeHtml(url.href)}">${escapeHtml(userText(url.href, 80))}</a>` : escapeHtml(userText(link, 80));
}

function table(headers: readonly string[], rows: readonly (readonly string[])[], id: string): string {
  return `<div class="table-wrap"><table class="data" id="${id}"><thead><tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((row) => `<tr>${row.map((cell) => `<td>${cell}</td>`).join('')}</tr>`)
    .join('')}</tbody></table></div>`;
}
