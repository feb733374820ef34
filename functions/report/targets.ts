/**
 * What `report` checks before any work — the warehouse it reads and the file it writes — and
 * where the page goes. Light on purpose: the CLI runs these checks before it loads DuckDB.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { parseDestinationTarget } from '../shared/storage/destination-target.js';
import { ConfigError } from '../shared/errors.js';
import { checkReadableFolder, checkWritableFile } from '../shared/local-paths.js';

/** The file name of the report, in the local destination (or the current folder for S3). */
export const REPORT_FILE = 'report.html';

/**
 * Whether `target` names an S3 destination, as `parseDestinationTarget` (the one reading of a
 * destination) says. Call it after `checkLakeTarget`: a mistyped target throws its ConfigError.
 */
export function isS3Target(target: string): boolean {
  return parseDestinationTarget(target, '--out').kind === 's3';
}

/**
 * Checks `target` before any work: a destination the export accepts (`parseDestinationTarget`:
 * `S3://x` and `s3:/x` are refused as the export refuses them) and, when local, a folder that
 * can be read — or, not there yet, one an export could create (local-paths.ts).
 * @throws ConfigError naming `source` and what the user typed.
 */
export async function checkLakeTarget(target: string, deps: { readonly cwd?: string; readonly source?: string } = {}): Promise<void> {
  const source = deps.source ?? '--out';
  const parsed = parseDestinationTarget(target, source);
  if (parsed.kind !== 'local') return;
  await checkReadableFolder(path.resolve(deps.cwd ?? process.cwd(), parsed.dir), `${source} ${target.trim()}`);
}

/** Where the report goes: `--file`, else `<dest>/report.html` for a folder, else `./report.html` for S3. */
export function reportFileOf(destination: string, file: string | undefined, cwd: string): string {
  if (file !== undefined) return path.resolve(cwd, file);
  const target = parseDestinationTarget(destination, '--out');
  return target.kind === 's3' ? path.resolve(cwd, REPORT_FILE) : path.resolve(cwd, target.dir, REPORT_FILE);
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
