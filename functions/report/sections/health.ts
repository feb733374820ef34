/** Export health: the calendar of units (functions/export/units.ts) and the requests each day's runs spent, over the report's period only. */
import { DATASET_NAMES } from '../../warehouse/catalog.js';
import { COLORS, columnChart } from '../charts.js';
import type { Figures } from '../figures.js';
import type { HealthState } from '../health.js';
import { formatCount } from '../../shared/format.js';
import { describeShare } from '../../export/index.js';
import { userText } from '../html.js';
import { chart, defined, empty, note, section } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';

const STATE_TEXT: Readonly<Record<HealthState, string>> = {
  complete: 'complete',
  provisional: 'provisional (exported before the day was due: late events may be missing; exported again once due)',
  drift: 'complete, with drift (new fields or values kept in unknown_fields)',
  expired: 'expired (retention): its personal data was deleted after PERSONAL_DATA_RETENTION_DAYS; never exported again',
  partial: 'partial (resumes on the next run)',
  missing: 'missing',
  failed: 'failed',
};

/** `skippedOutcomes`: outcome records skipped at the door (not JSON, not a record, an odd id, a date outside 2020 to tomorrow), each named in the log. */
export function healthSection(figures: Figures, skippedOutcomes = 0): SafeHtml {
  const days = figures.period.days;
  const head = days.map((day, i) => html`<th scope="col" title="${day}">${i % 7 === 0 || day.endsWith('-01') ? day.slice(5) : ''}</th>`);
  const rows = DATASET_NAMES.map((dataset) => {
    const cells = days.map((day) => {
      const cell = figures.health.find((c) => c.day === day && c.dataset === dataset);
      const state = cell?.state ?? 'missing';
      const detail = (cell?.projects ?? []).map((p) => `${p.projectId}: ${STATE_TEXT[p.state]}${p.detail ? ` (${userText(p.detail, 200)})` : ''}`).join('\n');
      // An anomaly the deployment's hourly check found in this dataset's figures that day: a mark, named on hover.
      const anomalies = cell?.anomalies ?? [];
      if (anomalies.length === 0) {
        return html`<td class="s-${state}" data-day="${day}" data-dataset="${dataset}" data-state="${state}" title="${`${dataset} ${day}\n${detail}`}"></td>`;
      }
      const mark = `\nAnomaly: ${anomalies.map((a) => userText(a, 200)).join('\n')}`;
      return html`<td class="s-${state} anomaly" data-day="${day}" data-dataset="${dataset}" data-state="${state}" data-anomalies="${String(anomalies.length)}" title="${`${dataset} ${day}\n${detail}${mark}`}">!</td>`;
    });
    return html`<tr><th scope="row">${dataset}</th>${cells}</tr>`;
  });
  const counts = (['complete', 'provisional', 'drift', 'expired', 'partial', 'missing', 'failed'] as const).map((state) => {
    const n = figures.health.filter((c) => c.state === state).length;
    return html`<span class="legend"><span class="swatch s-${state}"></span>${state === 'expired' ? 'expired (retention)' : state}: ${n}</span>`;
  });
  const anomalyCount = figures.health.reduce((n, c) => n + c.anomalies.length, 0);
  if (anomalyCount > 0) counts.push(html`<span class="legend">! anomaly: ${anomalyCount}</span>`);
  const problems = figures.health
    .flatMap((c) => c.projects.filter((p) => p.state === 'failed' || p.state === 'partial').map((p) => ({ ...p, day: c.day, dataset: c.dataset })))
    .slice(0, 10);
  // The chart covers the period's runs: those started on its days, then those after it that wrote
  // its units (a day is exported after it ends: the first export of a period runs after it).
  const inPeriod = figures.requestsPerDay.filter((d) => d.day >= figures.period.from && d.day < figures.period.to);
  const after = figures.requestsPerDay.filter((d) => d.day >= figures.period.to && d.runs > 0);
  const requests = [...inPeriod, ...after];
  const spent = requests.reduce((sum, d) => sum + d.requests, 0);
  const runs = requests.reduce((sum, d) => sum + d.runs, 0);
  const afterRuns = after.reduce((sum, d) => sum + d.runs, 0);
  const otherRuns = figures.requestsPerDay.reduce((sum, d) => sum + d.otherRuns, 0);
  const others = otherRuns > 0 ? `${formatCount(otherRuns)} later run(s) exported other days only` : '';
  const requestChart =
    runs > 0
      ? html`${chart(
          columnChart(
            requests.map((d) => d.day.slice(5)),
            requests.map((d) => d.requests),
            COLORS.muted,
          ),
          'API requests per day',
        )}${note(
          `${formatCount(spent)} analytics request(s) in ${formatCount(runs)} run(s), from the run log export_runs, by the UTC day each run started${
            afterRuns > 0 ? `; ${formatCount(afterRuns)} of them after the period, writing its days (a day is exported after it ends)` : ''
          }${others === '' ? '' : `; ${others}`}.`,
        )}`
      : empty(`No export run was logged in the period, nor one after it that wrote its days${others === '' ? '' : ` (${others})`}.`);
  return section(
    'health',
    'Export health',
    'A failed or partial unit is redone by the next run; one that stays failed needs its error read (mintlify-exporter status shows it).',
    html`${note(
      'Each cell is one dataset of one UTC day over every project (the worst of them); the list below names each failed or partial unit. Drift: the service sent fields or values this version does not know — kept in unknown_fields, nothing lost.',
    )}
<div class="calendar-wrap"><table class="calendar"><thead><tr><th></th>${head}</tr></thead><tbody>${rows}</tbody></table></div>
<p class="legends">${counts}</p>${
      problems.length > 0
        ? html`<ul class="problems">${problems.map((p) => html`<li><strong>${p.dataset} ${p.projectId} ${p.day}</strong>: ${STATE_TEXT[p.state]}${p.detail ? ` — ${userText(p.detail, 200)}` : ''}</li>`)}</ul>`
        : ''
    }${erasuresNote(figures)}${
      figures.unreadableFiles.length > 0
        ? html`<p class="unreadable">${formatCount(figures.unreadableFiles.length)} file(s) DuckDB cannot read as Parquet, left out of every figure (export their days again with --force to replace them):</p><ul class="problems unreadable">${figures.unreadableFiles.map((file) => html`<li><code>${userText(file, 300)}</code></li>`)}</ul>`
        : ''
    }${skippedOutcomes > 0 ? html`<p class="unreadable skipped-outcomes">${formatCount(skippedOutcomes)} outcome record(s) skipped (see the log): their fixes are not measured.</p>` : ''}
<h3>API requests spent per day${defined('requests')}</h3>
${requestChart}`,
  );
}

/** The erasures (`forget`) that removed rows from the months shown: those past figures changed, by how much. */
function erasuresNote(figures: Figures): SafeHtml | '' {
  const erasures = figures.erasures ?? [];
  if (erasures.length === 0) return '';
  return html`<p class="erasures">Erasures changed past figures (forget removed a person's rows; the figures of those months no longer count them):</p><ul class="problems erasures">${erasures.map(
    (e) => html`<li><strong>forget of ${e.at.slice(0, 10)}</strong>: ${e.shares.map(describeShare).join('; ')}</li>`,
  )}</ul>`;
}
