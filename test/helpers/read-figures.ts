/**
 * Role: the report's figures of a lake in a local folder, read as the report reads them
 * (functions/report/report.ts): the folder as a lake handle (`localLake`), the projects given or
 * found in the period (`discoverProjects`), one session of the report's tables
 * (`openReportWarehouse`), then `readFigures`; the session is closed after.
 */
import { openReportWarehouse, readFigures, type Figures, type FigureScope } from '../../functions/report/figures.js';
import { localLake } from '../../functions/warehouse/lake.js';
import { discoverProjects } from '../../functions/warehouse/session.js';

/** `scope` as the report's callers give it: projects may be empty (every project found), no session (one is loaded here). */
export type FiguresAsked = Omit<FigureScope, 'warehouse'> & { readonly onWarning?: (line: string) => void };

/** The figures of the lake under `root` for `scope`. */
export async function readFiguresIn(root: string, scope: FiguresAsked): Promise<Figures> {
  const lake = localLake(root);
  const { onWarning, ...asked } = scope;
  const projects = asked.projects.length > 0 ? [...asked.projects] : await discoverProjects(lake, asked.period.days);
  const warehouse = await openReportWarehouse(lake, { period: asked.period, projects, ...(onWarning ? { onWarning } : {}) });
  try {
    return await readFigures(lake, { ...asked, projects, warehouse });
  } finally {
    warehouse.close();
  }
}
