/**
 * `mintlify-exporter forget --email ADDRESS | --emails-file FILE|- [--out DEST] [--dry-run] [--json]`:
 * removes people's rows — every row whose `hmac` column holds the HMAC of one of the addresses,
 * in any written form — from every table, day and project of the destination, in one pass, and
 * records each erasure (never the address) so that no later export brings them back
 * (functions/export/forget/, docs/privacy.md). Sends no API request. The same command runs
 * against the deployment's bucket (`--out s3://…`, with PERSONAL_DATA_KEY_SECRET_ARN set to
 * the stack's secret).
 *
 * It never silently misses: a destination that holds no export, or whose manifests record
 * another key's id, is refused with exit 2 before anything is written or created — no key is
 * generated, no folder made — and `--dry-run` writes nothing at all.
 */
import { readFile } from 'node:fs/promises';
import { Option, type Command } from 'commander';
import {
  checkLakeKey,
  createExportDeps,
  ERASURES_PREFIX as ERASURES_FOLDER,
  exportPolicy,
  forgetPeople,
  inspectLake,
  localStateDir,
  type ForgetResult,
} from '../export/index.js';
import { loadConfig } from '../settings/config.js';
import { ConfigError } from '../shared/errors.js';
import { isEmailAddress } from '../shared/personal-data/index.js';
import { createPersonalDataKeySource } from '../shared/personal-data/index.js';
import { probeSetup } from './probe.js';
import { writeJson } from './render/json.js';
import { clientOverrides, probeInput, type ExportCommandIo } from './scope.js';

interface ForgetFlags {
  readonly email?: string;
  readonly emailsFile?: string;
  readonly out?: string;
  readonly dryRun?: boolean;
  readonly json?: boolean;
}

/** What `forget` reads `--emails-file -` from (tests). */
export interface ForgetCommandIo extends ExportCommandIo {
  /** @default process.stdin */
  readonly stdin?: AsyncIterable<string | Buffer>;
}

export function registerForgetCommand(program: Command, io: ForgetCommandIo): void {
  program
    .command('forget')
    .description(
      "Remove people's rows (by the HMAC of their e-mail address, in any written form) from every table, day and project, and keep them out of later exports.",
    )
    .addOption(new Option('--email <address>', 'the e-mail address to forget (never stored: only its HMAC)').conflicts('emailsFile'))
    .option('--emails-file <file>', 'addresses to forget, one a line (- reads stdin): every person in one pass over the lake')
    .option('--out <dest>', 'directory or s3://bucket/prefix (default EXPORT_DESTINATION or ./data)')
    .option('--dry-run', 'say what would change; write nothing at all')
    .option('--json', 'print one JSON object on stdout')
    .action(async (flags: ForgetFlags) => io.setExitCode(await runForgetCommand(flags, io)));
}

async function runForgetCommand(flags: ForgetFlags, io: ForgetCommandIo): Promise<number> {
  // An address itself is never echoed: it is what must not be stored or shown.
  const addresses = await addressesOf(flags, io);
  const config = loadConfig(io.env);
  const deps = createExportDeps(config, clientOverrides(io, flags.out));
  const policy = exportPolicy(config).personalData;
  // Before anything is written or created: a destination with an export, and the key it was written with.
  const lake = await inspectLake(deps.destination, policy);
  const keyFile = localStateDir(config, flags.out);
  // Never generated here: a new key matches no row of a lake written with another.
  const keySource = createPersonalDataKeySource(config, { stateDir: keyFile, generate: false });
  const { key, keyId, deploymentKey } = await keySource.get().catch((error: unknown) => {
    if (error instanceof ConfigError && lake.keyIds.length > 0) {
      throw new ConfigError(`${error.message}; the manifests of ${deps.destination.url} record key id ${lake.keyIds.join(', ')}: nothing was changed`);
    }
    throw error;
  });
  checkLakeKey(lake, keyId, deps.destination.url, deploymentKey?.keyId);
  await probeSetup({ ...probeInput(config, io, flags.out, deps.destination, false), mode: flags.dryRun ? 'read' : 'write' });
  const result = await forgetPeople(
    { addresses, dryRun: flags.dryRun === true },
    { destination: deps.destination, policy, key, keyId, ...(deploymentKey ? { deploymentKey } : {}), now: io.now, iceberg: deps.icebergForget() },
  );
  if (flags.json) writeJson(io.stdout, { destination: deps.destination.url, ...result });
  else io.stdout.write(describeForget(result, deps.destination.url));
  return 0;
}

/** The addresses of `--email` or `--emails-file`, each checked; one line naming what to fix (never the address). */
async function addressesOf(flags: ForgetFlags, io: ForgetCommandIo): Promise<string[]> {
  if (flags.email !== undefined) {
    if (!isEmailAddress(flags.email)) throw new ConfigError('--email is not an e-mail address: give one address, such as ana@example.com');
    return [flags.email];
  }
  if (flags.emailsFile === undefined) throw new ConfigError('forget needs --email ADDRESS or --emails-file FILE (one address a line, - for stdin)');
  const file = flags.emailsFile;
  let text: string;
  try {
    text = file === '-' ? await readAll(io.stdin ?? process.stdin) : await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'EACCES')
      throw new ConfigError(`--emails-file ${file} cannot be read (${code}): give a file of addresses, one a line, or - for stdin`);
    throw error;
  }
  const addresses: string[] = [];
  const lines = text.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const address = line.trim();
    if (address === '' || address.startsWith('#')) continue;
    if (!isEmailAddress(address)) {
      throw new ConfigError(
        `--emails-file ${file === '-' ? 'stdin' : file}: line ${index + 1} is not an e-mail address: give one address a line (blank lines and # comments are skipped)`,
      );
    }
    addresses.push(address);
  }
  if (addresses.length === 0) throw new ConfigError(`--emails-file ${file === '-' ? 'stdin' : file} holds no address: give one address a line`);
  return addresses;
}

async function readAll(stream: AsyncIterable<string | Buffer>): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/** The summary: files and rows changed (0 is a success that says so), and where the erasure is recorded. */
export function describeForget(result: ForgetResult, destination: string): string {
  if (result.people.length > 1) return describeMany(result, destination);
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

/** The summary of an erasure of several people: files changed, then one line for them all. */
function describeMany(result: ForgetResult, destination: string): string {
  const lines = result.files.map((file) => `${result.dryRun ? 'would remove' : 'removed'} ${file.rows} row(s) from ${file.key}`);
  const found = result.people.filter((person) => person.rows > 0).length;
  const total = `${result.rows} row(s) of ${found} of ${result.people.length} people in ${result.files.length} file(s)`;
  if (result.dryRun) lines.push(`dry run: ${total} of ${destination}; nothing was changed`);
  else lines.push(`forgot ${total} of ${destination}, in one pass; each erasure is recorded in ${ERASURES_FOLDER}, so no later export writes them again`);
  const resumed = result.people.filter((person) => person.erasure?.resumed).length;
  if (resumed > 0) lines.push(`finished ${resumed} erasure(s) started before and cut short, each recorded once`);
  if (result.manifestsFixed > 0) lines.push(`${result.manifestsFixed} manifest(s) corrected or put back (an earlier forget was cut short)`);
  return `${lines.join('\n')}\n`;
}
