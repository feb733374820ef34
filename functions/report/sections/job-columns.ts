/**
 * The columns every table of completed agent jobs shares ("Fixes and their effect", "The agent's
 * changes in scope"): the project (with several projects), the day the job completed and its pull
 * request — a link only for an https URL, its text escaped (the service's address, not a
 * reader's words), anything else shown as a reader's text.
 */
import { displayText } from '../../shared/display.js';
import { userText } from '../html.js';
import type { Column, SectionContext } from '../page/parts.js';
import { html, type Interpolation, type SafeHtml } from '../page/template.js';

/** The shared columns, after a table's own first column. */
export function jobColumns(context: Pick<SectionContext, 'many'>): Column[] {
  return [...(context.many ? [{ title: 'Project' }] : []), { title: 'Job completed' }, { title: 'Pull request' }];
}

/** One job's cells of {@link jobColumns}. */
export function jobCells(
  context: Pick<SectionContext, 'many'>,
  job: { readonly projectId: string | undefined; readonly completed: Interpolation; readonly prLink: string | undefined },
): Interpolation[] {
  return [...(context.many ? [job.projectId ?? ''] : []), job.completed, pullRequestLink(job.prLink)];
}

/** A pull request's address as a cell: a link for https, its text cut at 80 characters. */
export function pullRequestLink(link: string | undefined): SafeHtml | string {
  if (link === undefined) return 'none';
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return userText(link, 80);
  }
  if (url.protocol !== 'https:') return userText(link, 80);
  const shown = displayText(url.href);
  return html`<a href="${url.href}">${shown.length > 80 ? `${shown.slice(0, 79)}…` : shown}</a>`;
}
