/**
 * "Fixes and their effect": for every completed agent job made for a gap (`gaps --prompts`),
 * the gap's own figure per day over the N days before the job completed and the N days after
 * (gaps/effect.ts), with its pull request — before / after, never a claim of cause — then its
 * verdict (gaps/verdict.ts): its rate (signal ÷ exposure) against similar gaps without a job, with
 * the reason in words; and beside it the period's gaps still open. Every value goes through the escaping template; a link is
 * drawn only for an https URL.
 */
import { EFFECT_MIN_DAYS, type EffectWindow, type Fixes, type GapEffect } from '../../gaps/effect.js';
import { GAP_FIGURE } from '../../gaps/gaps.js';
import { VERDICT_CONFIDENCE, VERDICT_MIN_DAYS, VERDICT_MIN_SIGNALS, type Verdict } from '../../gaps/verdict.js';
import { displayText } from '../../shared/display.js';
import { formatCount } from '../../shared/format.js';
import { userText } from '../html.js';
import { note, section, table, type SectionContext } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';

/** The section, or '' when no job was ever made for a gap (readFixes reads nothing then). */
export function fixesSection(fixes: Fixes, context: SectionContext): SafeHtml | '' {
  if (fixes.effects.length === 0 && fixes.open.length === 0) return '';
  const effects =
    fixes.effects.length > 0
      ? html`${note(
          `For each completed job made for a gap: the gap's own figure per day over the N days before the day the job completed and the N days after it (N = the whole days since, at most 28). Before / after, not cause and effect: traffic, releases and seasons move these figures too. Under ${EFFECT_MIN_DAYS} days after it is too early to tell. The verdict asks more: did the gap's rate (thumbs down per view of the page, share of the term's searches without a click, share of the topic's questions unanswered) fall beyond what similar gaps of the project that got no job did over the same days (difference in differences, ${Math.round(VERDICT_CONFIDENCE * 100)} % interval)? It needs ${VERDICT_MIN_DAYS} whole days after and ${VERDICT_MIN_SIGNALS} signals before.`,
        )}${table(
          'fixes-effect',
          [
            { title: 'Gap' },
            ...(context.many ? [{ title: 'Project' }] : []),
            { title: 'Job completed' },
            { title: 'Pull request' },
            { title: 'Before', wide: true },
            { title: 'After', wide: true },
            { title: 'Verdict', wide: true },
          ],
          fixes.effects.map((effect) => [
            effect.gap ? userText(effect.gap.title, 90) : html`${effect.gapId} <span class="note">(not found in the warehouse)</span>`,
            ...(context.many ? [effect.projectId] : []),
            effect.completedDay,
            prLinkOf(effect.prLink),
            windowText(effect, effect.before),
            effect.tooEarly
              ? html`<strong>too early to tell</strong> (${formatCount(effect.daysSince)} whole day(s) since)${effect.after ? html`; so far ${windowText(effect, effect.after)}` : ''}`
              : windowText(effect, effect.after),
            html`<strong class="verdict verdict-${effect.judged.verdict}">${VERDICT_LABEL[effect.judged.verdict]}</strong> — ${effect.judged.reason}`,
          ]),
        )}`
      : html`<p class="empty">No job made for a gap has completed yet: <code>mintlify-exporter gaps --prompts FILE</code> writes the prompts.</p>`;
  const open =
    fixes.open.length > 0
      ? html`<h3>Gaps still open</h3>${table(
          'fixes-open',
          [{ title: 'Gap' }, ...(context.many ? [{ title: 'Project' }] : []), { title: 'Score', numeric: true }, { title: 'Why', wide: true }, { title: 'Id' }],
          fixes.open.map((gap) => [
            userText(gap.title, 90),
            ...(context.many ? [gap.projectId] : []),
            formatCount(gap.score),
            userText(gap.because, 140),
            html`<code>${gap.gapId}</code>`,
          ]),
        )}`
      : '';
  return section('fixes', 'Fixes and their effect', 'Each row is a job an agent ran for a gap: did its figure move?', html`${effects}${open}`);
}

/** A verdict as the page says it (the same words as `effects` and the digest). */
const VERDICT_LABEL: Readonly<Record<Verdict, string>> = {
  fixed: 'fixed',
  worse: 'worse',
  no_change: 'no change',
  too_little_data: 'too little data',
};

/** `3.2 a day — 32 thumbs down in 10 day(s) (2026-03-01 to 2026-03-10)`: the exact total and days, the rate to one decimal. */
function windowText(effect: GapEffect, window: EffectWindow | undefined): SafeHtml | string {
  if (window === undefined) return '—';
  const what = effect.gap ? GAP_FIGURE[effect.gap.kind] : 'the figure';
  const rate = (Math.round(window.perDay * 10) / 10).toFixed(1);
  return html`<span class="figure">${rate}</span> a day — ${formatCount(window.total)} ${what} in ${formatCount(window.days)} day(s) (${window.from} to ${window.last})`;
}

function prLinkOf(link: string | undefined): SafeHtml | string {
  if (link === undefined) return 'none';
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return userText(link, 80);
  }
  return url.protocol === 'https:' ? html`<a href="${url.href}">${linkText(url.href)}</a>` : userText(link, 80);
}

/** A pull request's address as the text of its link: the service's, not a reader's, so escaped (displayText) rather than defanged. */
function linkText(href: string): string {
  const shown = displayText(href);
  return shown.length > 80 ? `${shown.slice(0, 79)}…` : shown;
}
