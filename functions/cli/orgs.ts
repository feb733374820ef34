/**
 * Many organisations on the command line (`MINTLIFY_ORGS_FILE`, `--org ID`): each command that
 * reads or writes a lake runs once per organisation, as if it were the only one — its lake
 * `<destination>/orgs/<id>/`, its key, its projects, its part of the state (`EXPORT_ORG`: its own
 * budget ledger, leases and backlog) — through the same program. One organisation at a time:
 * each has its own budget, so a failed or waiting one costs the others no request; the exit
 * code and the last line name every organisation that did not complete.
 *
 * Without `MINTLIFY_ORGS_FILE` nothing changes (`--org` is then refused: there is nothing to choose).
 */
import { orgDestination, readOrganisationsFile, selectOrganisations, type Organisation } from '../orgs/organisations.js';
import { ConfigError, stripControlCharacters } from '../shared/errors.js';
import { EXIT_STOPPED, type CliIo } from './io.js';

/** The commands that read or write a lake: they take `--org` and run per organisation. */
export const LAKE_COMMANDS: readonly string[] = ['export', 'plan', 'status', 'forget', 'report', 'gaps', 'effects', 'scope'];

/** The help line of `--org` (program.ts adds it to each of {@link LAKE_COMMANDS}). */
export const ORG_FLAG_HELP = 'organisation of MINTLIFY_ORGS_FILE (repeatable; default every one): its lake <dest>/orgs/<id>, key and budget';

/** One run of the program: its exit code, and whether it was a usage error (a bad flag: the same for every organisation). */
export type RunProgram = (argv: readonly string[], io: CliIo) => Promise<{ readonly code: number; readonly usage: boolean }>;

/** The values of a repeatable `--name V` / `--name=V` flag, and the arguments without them. */
export function takeFlag(argv: readonly string[], name: string): { readonly values: string[]; readonly rest: string[] } {
  const values: string[] = [];
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === name && i + 1 < argv.length) {
      values.push(argv[i + 1] as string);
      i += 1;
    } else if (arg.startsWith(`${name}=`)) values.push(arg.slice(name.length + 1));
    else rest.push(arg);
  }
  return { values, rest };
}

/** The environment of one organisation's run: its lake, key, projects and part of the state. */
export function organisationEnv(env: CliIo['env'], org: Organisation, destination: string): Record<string, string | undefined> {
  const { MINTLIFY_ORGS_FILE: _file, MINTLIFY_API_KEY_SECRET_ARN: _secret, ...rest } = env;
  return { ...rest, EXPORT_DESTINATION: destination, MINTLIFY_API_KEY: org.apiKey, MINTLIFY_PROJECT_IDS: org.projectIds.join(','), EXPORT_ORG: org.id };
}

/**
 * Runs `argv` once, or once per organisation of `MINTLIFY_ORGS_FILE` for a lake command.
 * Exit: 0 when every organisation's run succeeded; 130 when stopped; 2 when every one failed on
 * its configuration (or the file, `--org` or a flag is wrong); else 1, naming the ones that failed.
 */
export async function runForOrganisations(argv: readonly string[], io: CliIo, runProgram: RunProgram): Promise<number> {
  const command = argv.find((arg) => !arg.startsWith('-'));
  const file = io.env['MINTLIFY_ORGS_FILE']?.trim();
  const help = argv.includes('--help') || argv.includes('-h');
  if (command === undefined || !LAKE_COMMANDS.includes(command) || help) return (await runProgram(argv, io)).code;
  const { values: orgIds, rest } = takeFlag(argv, '--org');
  try {
    if (!file) {
      if (orgIds.length > 0)
        throw new ConfigError('--org chooses an organisation of MINTLIFY_ORGS_FILE, which is not set: set it to the organisations file, or leave --org out');
      return (await runProgram(argv, io)).code;
    }
    const chosen = selectOrganisations(readOrganisationsFile(file, io.env), orgIds);
    return await runEach(command, rest, chosen, io, runProgram);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`error: ${stripControlCharacters(error.message)}\n`);
    return 2;
  }
}

async function runEach(command: string, argv: readonly string[], orgs: readonly Organisation[], io: CliIo, runProgram: RunProgram): Promise<number> {
  const { values: outs, rest: withoutOut } = takeFlag(argv, '--out');
  const { values: projects, rest: args } = takeFlag(withoutOut, '--project');
  const base = outs.at(-1) ?? (io.env['EXPORT_DESTINATION']?.trim() || './data');
  // --project keeps, in each organisation, the projects it names; one no organisation has is a typo.
  const stray = projects.filter((project) => !orgs.some((org) => org.projectIds.includes(project)));
  if (stray.length > 0) {
    throw new ConfigError(
      `--project ${stray.map((p) => JSON.stringify(p)).join(', ')} is not a project of ${orgs.length === 1 ? 'organisation' : 'any organisation of'} ${orgs.map((o) => o.id).join(', ')} (MINTLIFY_ORGS_FILE)`,
    );
  }
  const json = argv.includes('--json');
  const results: { readonly org: Organisation; readonly code: number; readonly output?: string }[] = [];
  let stopped = false;
  void io.stopSignal.then(() => (stopped = true));
  for (const org of orgs) {
    if (projects.length > 0 && !projects.some((project) => org.projectIds.includes(project))) continue;
    if (stopped) break;
    const destination = orgDestination(base, org.id);
    const orgArgv = [...args, ...projects.filter((p) => org.projectIds.includes(p)).flatMap((p) => ['--project', p])];
    if (outs.length > 0) orgArgv.push('--out', destination);
    if (!json) io.stderr.write(`Organisation ${org.id} (${destination}):\n`);
    let output = '';
    const orgIo: CliIo = { ...io, env: organisationEnv(io.env, org, destination), ...(json ? { stdout: { write: (text: string) => (output += text) } } : {}) };
    const { code, usage } = await runProgram(orgArgv, orgIo);
    // A flag the program refuses is refused for every organisation alike: said once.
    if (usage) return 2;
    results.push({ org, code, ...(json ? { output } : {}) });
    if (code === EXIT_STOPPED) stopped = true;
  }
  if (json) {
    const organisations = results.map(({ org, code, output }) => ({ id: org.id, exitCode: code, result: parseOr(output) }));
    io.stdout.write(`${JSON.stringify({ command, organisations }, null, 2)}\n`);
  }
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length === 0 && !stopped) return 0;
  if (stopped) {
    const left = orgs.filter((org) => !results.some((r) => r.org === org && r.code === 0)).map((org) => org.id);
    io.stderr.write(`stopped: ${command} did not finish for organisation(s) ${left.join(', ')}\n`);
    return EXIT_STOPPED;
  }
  io.stderr.write(
    `error: ${command} did not complete for ${failed.length} of ${results.length} organisation(s): ${failed.map((r) => `${r.org.id} (exit ${r.code})`).join(', ')}; see the lines above each\n`,
  );
  return failed.length === results.length && failed.every((r) => r.code === 2) ? 2 : 1;
}

function parseOr(text: string | undefined): unknown {
  if (text === undefined || text.trim() === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}
