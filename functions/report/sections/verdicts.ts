/**
 * "Fixes and their effect": first whether the fixes work on average (gaps/portfolio.ts: per
 * project and gap kind, the fixes pooled), then for every completed agent job made for a gap
 * (`gaps --prompts`) its pull request, its two sides as its verdict counted them (the same days,
 * signals, exposure and rate; "a day" over the days exported, the days never exported named and
 * left out) and its verdict (gaps/verdict.ts) with the reason in words; and beside it the
 * period's gaps still open. Every value goes through the escaping template; a link is
 * drawn only for an https URL.
 */
import { EFFECT_MAX_DAYS, RATE_WORDS, type Fixes, type GapEffect } from '../../gaps/effect.js';
import { GAP_FIGURE } from '../../gaps/gaps.js';
import { GAP_KIND_WORDS, portfolioEffectOf, portfolioOf } from '../../gaps/portfolio.js';
import { TARGET_FALL } from '../../gaps/power.js';
import { EQUIVALENCE_MARGIN, VERDICT_CONFIDENCE, VERDICT_MIN_DAYS, type Verdict } from '../../gaps/verdict.js';
import { formatCount } from '../../shared/format.js';
import { userText } from '../html.js';
import { note, section, table, type SectionContext } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { jobCells, jobColumns } from './job-columns.js';

/** The section, or '' when no job was ever made for a gap (readFixedJobs reads nothing then). */
export function verdictsSection(fixes: Fixes, context: SectionContext): SafeHtml | '' {
  if (fixes.effects.length === 0 && fixes.open.length === 0) return '';
  const portfolio = portfolioOf(fixes.effects.map(portfolioEffectOf));
  const leftOut = [...new Set(fixes.effects.flatMap((e) => [...(e.before?.leftOut ?? []), ...(e.after?.leftOut ?? [])]))].sort();
  const average =
    portfolio.length > 0
      ? html`<h3>On average</h3>${note(
          `Per project and kind of gap, the fixes' effects pooled into one (inverse variance on the log scale, random effects: Paule–Mandel between-fix variance, Hartung–Knapp interval), judged by the same rules as one fix: do the agent's fixes work on average?`,
        )}${table(
          'fixes-portfolio',
          [...(context.many ? [{ title: 'Project' }] : []), { title: 'Gaps' }, { title: 'Fixes', numeric: true }, { title: 'Verdict', wide: true }],
          portfolio.map((p) => [
            ...(context.many ? [p.projectId] : []),
            GAP_KIND_WORDS[p.kind],
            formatCount(p.fixes),
            html`<strong class="verdict verdict-${p.verdict}">${VERDICT_LABEL[p.verdict]}</strong> — ${p.reason}`,
          ]),
        )}`
      : '';
  const effects =
    fixes.effects.length > 0
      ? html`${note(
          `For each completed job made for a gap, measured from the day after its pull request was merged (or, without a merge read, the day it completed): did the gap's rate (thumbs down per view of the page, share of the term's searches without a click, share of the topic's questions unanswered) fall beyond what similar gaps of the project that got no job did over the same days (difference in differences, ${Math.round(VERDICT_CONFIDENCE * 100)} % interval)? The N days before against the N days after, N the whole days since (at most ${EFFECT_MAX_DAYS}); under ${VERDICT_MIN_DAYS} whole days it is too early to tell. "No change" only when the whole interval lies within ${EQUIVALENCE_MARGIN.toFixed(2)}–${(1 / EQUIVALENCE_MARGIN).toFixed(2)} (a change, if any, under ${Math.round((1 - EQUIVALENCE_MARGIN) * 100)} %); an interval that holds 1 and leaves it is "inconclusive", with the smallest fall the counts could have seen and the days until a ${Math.round(TARGET_FALL * 100)} % fall is visible. The figures beside a verdict are its own: its days, signals, exposure and rate, "a day" over the days exported.`,
        )}${
          leftOut.length > 0
            ? note(
                `Days never exported, left out of the sides (not counted as zero): ${leftOut.length > 12 ? `${leftOut.slice(0, 12).join(', ')} and ${leftOut.length - 12} more` : leftOut.join(', ')}.`,
              )
            : ''
        }${table(
          'fixes-effect',
          [{ title: 'Gap' }, ...jobColumns(context), { title: 'Before', wide: true }, { title: 'After', wide: true }, { title: 'Verdict', wide: true }],
          fixes.effects.map((effect) => [
            effect.gap ? userText(effect.gap.title, 90) : html`${effect.gapId} <span class="note">(not found in the warehouse)</span>`,
            ...jobCells(context, {
              projectId: effect.projectId,
              completed:
                effect.mergedDay === undefined ? effect.completedDay : html`${effect.completedDay}<br><span class="note">merged ${effect.mergedDay}</span>`,
              prLink: effect.prLink,
            }),
            sideText(effect, 'before'),
            effect.tooEarly
              ? html`<strong>too early to tell</strong> (${formatCount(effect.daysSince)} whole day(s) since)${effect.after ? html`; so far ${sideText(effect, 'after')}` : ''}`
              : sideText(effect, 'after'),
            html`<strong class="verdict verdict-${effect.judged.verdict ?? 'not-measured'}">${effect.judged.verdict === null ? 'not measured' : VERDICT_LABEL[effect.judged.verdict]}</strong> — ${effect.judged.reason}${
              effect.laterJobs.length > 0
                ? html`<br><span class="note">Later jobs for the same gap (not measured: the earliest is the fix): ${effect.laterJobs.map((j) => `${j.jobId ?? j.requestId} (${j.completedDay})`).join(', ')}</span>`
                : ''
            }`,
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
  return section(
    'fixes',
    'Fixes and their effect',
    'Do the fixes work on average, and did each one: its rate against similar gaps without a job.',
    html`${average}${effects}${open}`,
  );
}

/** A verdict as the page says it (the same words as `effects` and the digest). */
const VERDICT_LABEL: Readonly<Record<Verdict, string>> = {
  fixed: 'fixed',
  worse: 'worse',
  no_change: 'no change',
  inconclusive: 'inconclusive',
  too_little_data: 'too little data',
};

/**
 * One side as the verdict counted it: `3.2 a day — 90 thumbs down in 28 day(s) (2026-03-01 to
 * 2026-03-28), 0.0250 per human view of the page over 3,600`; when the verdict has no counts (too
 * early, not measured, not found) the gap's own figure over the same days.
 */
function sideText(effect: GapEffect, which: 'before' | 'after'): SafeHtml | string {
  const window = effect[which];
  if (window === undefined) return '—';
  const side = effect.judged[which];
  const what = effect.gap ? GAP_FIGURE[effect.gap.kind] : 'the figure';
  const range = `${formatCount(window.days)} day(s) exported (${window.from} to ${window.last}${window.leftOut.length > 0 ? `; ${window.leftOut.length} not exported, left out` : ''})`;
  if (effect.judged.verdict === null || side.exposure <= 0 || side.days <= 0 || effect.gap === undefined) {
    const rate = (Math.round(window.perDay * 10) / 10).toFixed(1);
    return html`<span class="figure">${rate}</span> a day — ${formatCount(window.total)} ${what} in ${range}`;
  }
  const words = RATE_WORDS[effect.gap.kind];
  const perDay = (Math.round((side.signals / side.days) * 10) / 10).toFixed(1);
  return html`<span class="figure">${perDay}</span> a day — ${formatCount(side.signals)} ${words.signal} in ${range}; ${words.rate} ${side.rate.toPrecision(3)} over ${formatCount(side.exposure)} ${words.exposure}`;
}
