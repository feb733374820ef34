/**
 * `mintlify-exporter compact [--from D1 --to D2] [--project ID]... [--out DEST] [--json]`: builds
 * the monthly roll-ups (warehouse/lake/rollups.ts) of a lake written before the export built
 * them — one file a dataset table and whole month, holding every project whose days of it are
 * all committed and settled (`--project`: the months those projects have units in) — the index
 * of units of those months and the run log's index of every month; a roll-up whose record
 * still matches its manifests is kept, one that no longer does is built again or removed.
 * Sends no API request.
 */
import type { Command } from 'commander';
import { createExportDeps } from '../export/index.js';
import { loadConfig } from '../settings/config.js';
import { validateProjectId } from '../shared/validators.js';
import { parseDay } from '../shared/dates.js';
import { compactLake } from '../warehouse/lake/rollups.js';
import { validatedArg } from './args.js';
import { probeSetup } from './probe.js';
import { writeJson } from './render/json.js';
import { clientOverrides, probeInput, type ExportCommandIo } from './scope.js';

interface CompactFlags {
  readonly from?: string;
  readonly to?: string;
  readonly project: string[];
  readonly out?: string;
  readonly json?: boolean;
}

const projectArg = validatedArg((value) => validateProjectId(value, '--project'));

function collectProject(value: string, previous: string[]): string[] {
  return [...previous, projectArg(value)];
}

export function registerCompactCommand(program: Command, io: ExportCommandIo): void {
  program
    .command('compact')
    .description(
      "Build the monthly roll-ups of a lake written before them: each month of a table in one file, every project whose days are settled; and check each month's index of units against its manifests (one changed by hand is seen from then on). Sends no request.",
    )
    .option('--from <YYYY-MM-DD>', 'first day: months that start before it are left as they are')
    .option('--to <YYYY-MM-DD>', 'day after the last one (exclusive): months that end on or after it are left as they are')
    .option(
      '--project <id>',
      'only the months this project has units in (repeatable; default every month of the lake); a roll-up always holds every settled project',
      collectProject,
      [],
    )
    .option('--out <dest>', 'directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .option('--json', 'print one JSON object on stdout')
    .action(async (flags: CompactFlags) => io.setExitCode(await runCompactCommand(flags, io)));
}

async function runCompactCommand(flags: CompactFlags, io: ExportCommandIo): Promise<number> {
  const from = flags.from === undefined ? undefined : parseDay(flags.from, '--from');
  const to = flags.to === undefined ? undefined : parseDay(flags.to, '--to');
  const config = loadConfig(io.env);
  const { destination } = createExportDeps(config, clientOverrides(io, flags.out));
  await probeSetup({ ...probeInput(config, io, flags.out, destination, false), mode: 'write' });
  const result = await compactLake(destination, {
    ...(from !== undefined ? { from } : {}),
    ...(to !== undefined ? { to } : {}),
    ...(flags.project.length > 0 ? { projects: new Set(flags.project) } : {}),
  });
  if (flags.json) writeJson(io.stdout, { destination: destination.url, ...result });
  else {
    const months = result.months.length === 0 ? 'no whole settled month' : `months ${result.months.join(', ')}`;
    const failed = result.failed > 0 ? `, ${result.failed} could not be built (${result.error ?? 'unknown'}): their days are read` : '';
    io.stdout.write(`${destination.url}: monthly roll-ups built ${result.built}, kept ${result.kept}, removed ${result.removed} (${months})${failed}\n`);
  }
  return result.failed > 0 ? 1 : 0;
}
