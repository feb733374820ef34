/**
 * What `report` checks before any work — the warehouse it reads and the file it writes — and
 * where the page goes. Light on purpose: the CLI runs these checks before it loads DuckDB.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { ConfigError } from '../shared/errors.js';
import { checkReadableFolder, checkWritableFile } from '../shared/local-paths.js';
import { parseLakeTarget, type LakeTarget, type TargetSource } from '../warehouse/lake/target.js';

/** The file name of the report, in the local destination (or the current folder for S3). */
export const REPORT_FILE = 'report.html';

/**
 * Checks `target` before any work: a destination the export accepts (`parseDestinationTarget`:
 * `S3://x` and `s3:/x` are refused as the export refuses them) and, when local, a folder that
 * can be read — or, not there yet, one an export could create (local-paths.ts). The door's one
 * parse: what it returns is handed below (warehouse/lake/target.ts).
 * @throws ConfigError naming `source` and what the user typed.
 */
export async function checkLakeTarget(target: string, deps: { readonly cwd?: string; readonly source?: TargetSource } = {}): Promise<LakeTarget> {
  const source = deps.source ?? '--out';
  const parsed = parseLakeTarget(target, source, deps.cwd ?? process.cwd());
  if (parsed.place.kind === 'local') await checkReadableFolder(parsed.place.dir, `${source} ${target.trim()}`);
  return parsed;
}

/** Where the report goes: `--file`, else `<dest>/report.html` for a folder, else `./report.html` for S3. */
export function reportFileOf(target: LakeTarget, file: string | undefined, cwd: string): string {
  if (file !== undefined) return path.resolve(cwd, file);
  return target.place.kind === 's3' ? path.resolve(cwd, REPORT_FILE) : path.join(target.place.dir, REPORT_FILE);
}

/**
 * Checks, before any work, that the report can be written to `file` (resolved; `typed` is
 * what the user gave, named in the message): not a folder, and the nearest folder that exists
 * on its way is a folder this process may write in.
 * @throws ConfigError
 */
export async function checkReportFile(file: string, typed: string): Promise<void> {
  const info = await stat(file).catch(() => undefined);
  if (info?.isDirectory()) throw new ConfigError(`--file ${typed} is a folder: name a file, e.g. --file ${path.join(typed, REPORT_FILE)}`);
  await checkWritableFile(file, `--file ${typed}`);
}
