/**
 * "The agent's changes in scope": the pull requests of the jobs completed in the period that
 * were checked against the scope rules (functions/scope/), out of scope and unknown first, with
 * the rule each broke and its files. Their fixes get no verdict. Empty when none was checked
 * (a deployment without the scope check shows nothing). Every value goes through the escaping
 * template; a link is drawn only for an https URL.
 */
import { reasonsText, SCOPE_LABEL, type ScopedJob } from '../../scope/summary.js';
import { formatCount } from '../../shared/format.js';
import { userText } from '../html.js';
import { note, section, table, type SectionContext } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { jobCells, jobColumns } from './job-columns.js';

export function scopeSection(jobs: readonly ScopedJob[], context: SectionContext): SafeHtml | '' {
  if (jobs.length === 0) return '';
  const count = (scope: ScopedJob['scope']) => formatCount(jobs.filter((job) => job.scope === scope).length);
  return section(
    'scope',
    "The agent's changes in scope",
    'A pull request out of scope or unknown needs a person before it is merged; its fix gets no verdict.',
    html`${note(
      `Each completed job's pull request against the scope rules (SCOPE_ALLOWED, SCOPE_PROTECTED, SCOPE_MAX_FILES, SCOPE_MAX_LINES, DOCS_REPOSITORY): ${count('in_scope')} in scope, ${count('out_of_scope')} out of scope, ${count('unknown')} unknown (not read: no token, GitHub failed, or more files than GitHub lists). Check again: mintlify-exporter scope.`,
    )}${table(
      'scope-pulls',
      [{ title: 'Scope' }, ...jobColumns(context), { title: 'Why', wide: true }],
      jobs.map((job) => [
        html`<strong class="scope scope-${job.scope}">${SCOPE_LABEL[job.scope]}</strong>`,
        ...jobCells(context, { projectId: job.projectId, completed: job.completedDay, prLink: job.prLink }),
        job.reasons.length === 0 ? '—' : userText(reasonsText(job.reasons), 300),
      ]),
    )}`,
  );
}
