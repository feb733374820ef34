/**
 * What `plan` and `status` do first, once for both (R18 `prepareScope`): the projects and
 * datasets their flags name, the export's destination, store and ledger, the probe (a mistake is
 * one line, exit 2, before anything is read), the lake's target checked, and the warning for a
 * project never exported where others were.
 */
import { createExportDeps } from '../export/index.js';
import type { Config } from '../settings/config.js';
import type { DatasetName } from '../warehouse/catalog.js';
import { checkLakeTarget } from '../report/targets.js';
import { probeSetup } from './probe.js';
import { clientOverrides, datasetsOf, probeInput, projectsOf, unexportedProjects, unexportedWarning, type ExportCommandIo, type ScopeFlags } from './scope.js';

/** The scope a read-only command works on, and the export's parts it reads through. */
export type ReadScope = ReturnType<typeof createExportDeps> & {
  readonly projects: readonly string[];
  readonly datasets: readonly DatasetName[];
};

/** Resolves and checks the scope of `plan` or `status`: sends no request, writes nothing. */
export async function prepareReadScope(flags: Pick<ScopeFlags, 'project' | 'dataset' | 'out'>, config: Config, io: ExportCommandIo): Promise<ReadScope> {
  const projects = projectsOf(flags, config, io);
  const datasets = datasetsOf(flags, config);
  const deps = createExportDeps(config, clientOverrides(io, flags.out));
  await probeSetup({ ...probeInput(config, io, flags.out, deps.destination, true), mode: 'read' });
  // A local destination that cannot be read, or could never be written, is a mistake, not "all missing".
  await checkLakeTarget(flags.out ?? config.destination, { source: flags.out !== undefined ? '--out' : 'EXPORT_DESTINATION' });
  const unexported = await unexportedProjects(deps.destination, projects);
  if (unexported.length > 0) io.stderr.write(unexportedWarning(unexported, flags, deps.destination.url));
  return { ...deps, projects, datasets };
}
