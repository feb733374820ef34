/**
 * `mintlify-exporter forget --email ADDRESS [--out DEST] [--dry-run] [--json]`: removes a
 * person's rows — every row whose `hmac` column holds the HMAC of the address — from every
 * table, day and project of the destination, and records the erasure (never the address) so
 * that no later export brings them back (functions/export/forget.ts, docs/privacy.md).
 * Sends no API request. The same command runs against the deployment's bucket (`--out
 * s3://…`, with PERSONAL_DATA_KEY_SECRET_ARN set to the stack's secret).
 */
import type { Command } from 'commander';
import { createExportDeps, exportPolicy, forgetPerson, localStateDir, type ForgetResult } from '../export/index.js';
import { loadConfig } from '../settings/config.js';
import { ConfigError } from '../shared/errors.js';
import { isEmailAddress } from '../shared/personal-data.js';
import { probeSetup } from './probe.js';
import { writeJson } from './render/json.js';
import { clientOverrides, probeInput, type ExportCommandIo } from './scope.js';

interface ForgetFlags {
  readonly email: string;
  readonly out?: string;
  readonly dryRun?: boolean;
  readonly json?: boolean;
}

export function registerForgetCommand(program: Command, io: ExportCommandIo): void {
  program
    .command('forget')
    .description("Remove a person's rows (by the HMAC of their e-mail address) from every table, day and project, and keep them out of later exports.")
    .requiredOption('--email <address>', 'the e-mail address to forget (never stored: only its HMAC)')
    .option('--out <dest>', 'directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .option('--dry-run', 'say what would change, change nothing')
    .option('--json', 'print one JSON object on stdout')
    .action(async (flags: ForgetFlags) => io.setExitCode(await runForgetCommand(flags, io)));
}

async function runForgetCommand(flags: ForgetFlags, io: ExportCommandIo): Promise<number> {
  // The address itself is never echoed: it is what must not be stored or shown.
  if (!isEmailAddress(flags.email)) throw new ConfigError('--email is not an e-mail address: give one address, such as ana@example.com');
  const config = loadConfig(io.env);
  const deps = createExportDeps(config, {
    ...clientOverrides(io, flags.out),
    keyFolder: localStateDir(config, flags.out),
  });
  await probeSetup({ ...probeInput(config, io, flags.out, deps.destination, false), mode: flags.dryRun ? 'read' : 'write' });
  const { key, keyId } = await deps.personalDataKey.get();
  const result = await forgetPerson(
    { address: flags.email, dryRun: flags.dryRun === true },
    { destination: deps.destination, policy: exportPolicy(config).personalData, key, keyId, now: io.now },
  );
  if (flags.json) writeJson(io.stdout, { destination: deps.destination.url, ...result });
  else io.stdout.write(describeForget(result, deps.destination.url));
  return 0;
}

/** The summary: files and rows changed (0 is a success that says so), and where the erasure is recorded. */
export function describeForget(result: ForgetResult, destination: string): string {
  const lines = result.files.map((file) => `${result.dryRun ? 'would remove' : 'removed'} ${file.rows} row(s) from ${file.key}`);
  const total = `${result.rows} row(s) in ${result.files.length} file(s)`;
  if (result.dryRun) lines.push(`dry run: ${total} of ${destination} hold this person (HMAC ${result.hmac.slice(0, 16)}…); nothing was changed`);
  else if (result.rows === 0)
    lines.push(
      `nothing to remove: no row of ${destination} holds this person (HMAC ${result.hmac.slice(0, 16)}…); the erasure is recorded in ${result.record}, so no later export writes them`,
    );
  else lines.push(`forgot ${total} of ${destination}; the erasure is recorded in ${result.record}, so no later export writes them again`);
  if (result.erasure?.resumed) {
    lines.push(
      `finished the erasure started at ${result.erasure.startedAt} and cut short: ${result.erasure.rows} row(s) in ${result.erasure.files} file(s) in all, recorded once`,
    );
  }
  if (result.manifestsFixed > 0) lines.push(`${result.manifestsFixed} manifest(s) corrected or put back (an earlier forget was cut short)`);
  return `${lines.join('\n')}\n`;
}
