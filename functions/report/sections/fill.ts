/**
 * What fills the period, near the top of the page, when some of its due days are not fully
 * exported (a first report after one day's export is one day of seven): the exact `export`
 * command and what it is expected to cost. The caller (the CLI) reads and words both with the
 * export's own status and estimator (export/fill.ts); absent when the period is complete.
 */
import { html, type SafeHtml } from '../page/template.js';

export interface FillNotice {
  /** Due days of the period with a unit to do. */
  readonly missingDays: number;
  /** Due days of the period. */
  readonly dueDays: number;
  /** The command that fills them: `mintlify-exporter export --from … --to …` with the flags it needs. */
  readonly command: string;
  /** What it is expected to cost, as `status` says it: requests (a guess or not) and the time the budget needs. */
  readonly estimate: string;
}

/** "6 of the 7 due day(s) of this period are not fully exported" */
function gapText(notice: FillNotice): string {
  return `${notice.missingDays} of the ${notice.dueDays} due day(s) of this period ${notice.missingDays === 1 ? 'is' : 'are'} not fully exported`;
}

export function fillSection(notice: FillNotice): SafeHtml {
  return html`<section id="fill" class="fill"><h2>This period is not fully exported</h2>
<p>${gapText(notice)}: every figure and chart below leaves those days out (or counts them in part). This command fills them:</p>
<pre><code>${notice.command}</code></pre>
<p class="note">Expected: ${notice.estimate}. Complete units are skipped, a stopped run resumes; build this report again when it is done.</p>
</section>`;
}

/** The same, as one line for the terminal. */
export function fillLine(notice: FillNotice): string {
  return `${gapText(notice)}; fill them with: ${notice.command} (${notice.estimate}), then run report again.`;
}
