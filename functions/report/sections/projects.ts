/** Per project: the headline's figures of each project, and visitors' deduplicated total beside human and AI. */
import type { Figures } from '../figures.js';
import { formatCount } from '../../shared/format.js';
import { note, section, table } from '../page/parts.js';
import { html, type SafeHtml } from '../page/template.js';
import { METRICS, metricValue } from './headline.js';

export function projectSection(figures: Figures): SafeHtml {
  const columns = [
    { title: 'Project' },
    ...METRICS.slice(0, 2).map((m) => ({ title: m.title, numeric: true, def: m.key })),
    { title: 'Visitors (deduplicated)', numeric: true, def: 'visitorsTotal' },
    ...METRICS.slice(2).map((m) => ({ title: m.title, numeric: true, def: m.key })),
  ];
  return section(
    'projects',
    'Per project',
    'Compare projects: a project far from the others on unanswered questions or thumbs down is where to look first.',
    html`${table(
      'by-project',
      columns,
      figures.byProject.map((p) => [
        p.projectId,
        ...METRICS.slice(0, 2).map((m) => metricValue(p.current, m)),
        formatCount(p.visitorsTotal),
        ...METRICS.slice(2).map((m) => metricValue(p.current, m)),
      ]),
    )}${note('Visitors (deduplicated) is the API’s own total: a visitor seen as both human and AI counts once in it, so it can be less than human + AI.')}`,
  );
}
