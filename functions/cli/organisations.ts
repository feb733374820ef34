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
import { orgDestination, readOrganisationsFile, selectOrganisations, type Organisation } from '../organisations/organisations.js';
import { ConfigError, stripControlCharacters } from '../shared/errors.js';
import { EXIT_STOPPED, type CliIo } from './io.js';
import { createOrganisationBoard } from './organisation-board.js';
import { startEmbeddedSandbox } from './sandbox-thread.js';
import type { EmbeddedSandbox } from './io.js';
import { organisationOf } from '../organisations/follow-ups.js';
import { DEFAULT_API_URL } from '../shared/validators.js';

/** The commands that read or write a lake: they take `--org` and run per organisation. */
export const LAKE_COMMANDS: readonly string[] = ['export', 'plan', 'status', 'forget', 'report', 'gaps', 'effects', 'scope'];

/** The commands that send prompts: each prompt with its organisation's key, its outcome in its lake. */
export const FOLLOW_UP_COMMANDS: readonly string[] = ['follow-up', 'consume', 'enqueue'];

/**
 * `follow-up`, `consume` and `enqueue` with MINTLIFY_ORGS_FILE: `follow-up` runs as its project's
 * organisation (its key, its lake `<destination>/orgs/<id>/`; a project of no organisation exits 2
 * naming it, before anything is sent); `consume` and `enqueue` get the organisations and route
 * each prompt themselves. MINTLIFY_API_KEY is not needed.
 */
async function runFollowUps(command: string, argv: readonly string[], file: string, io: CliIo, runProgram: RunProgram): Promise<number> {
  let sandbox: ReturnType<typeof organisationsSandbox> | undefined;
  try {
    const all = readOrganisationsFile(file, io.env);
    sandbox = io.env['MINTLIFY_API_URL']?.trim() ? undefined : organisationsSandbox(all, io);
    const withSandbox: CliIo = { ...io, organisations: all, ...(sandbox ? { organisationsSandbox: sandbox.start } : {}) };
    if (command !== 'follow-up') return (await runProgram(argv, withSandbox)).code;
    const project = takeFlag(argv, '--project').values.at(-1);
    if (project === undefined) return (await runProgram(argv, withSandbox)).code;
    const found = organisationOf(all, { projectId: project });
    if (!found.ok)
      throw new ConfigError(
        `--project ${JSON.stringify(project.slice(0, 128))} is in no organisation of MINTLIFY_ORGS_FILE (${all.map((org) => org.id).join(', ')}): add it to its organisation's projectIds; nothing was sent`,
      );
    const base = io.env['EXPORT_DESTINATION']?.trim() || './data';
    const destination = orgDestination(base, found.org.id);
    return (await runProgram(argv, { ...withSandbox, env: organisationEnv(io.env, found.org, destination) })).code;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`error: ${stripControlCharacters(error.message)}\n`);
    return 2;
  } finally {
    await sandbox?.close();
  }
}

/** The help line of `--concurrency` (program.ts adds it to each of {@link LAKE_COMMANDS}). */
export const CONCURRENCY_FLAG_HELP = 'organisations of MINTLIFY_ORGS_FILE run at once, each on its own ledger (default 4)';

/** The help line of `--org` (program.ts adds it to each of {@link LAKE_COMMANDS}). */
export const ORGANISATION_FLAG_HELP = 'organisation of MINTLIFY_ORGS_FILE (repeatable; default every one): its lake <dest>/orgs/<id>, key and budget';

/** Hooks of one run of the program: `onAction` when its command is parsed and starts (no usage error). */
export interface RunHooks {
  readonly onAction?: () => void;
}

/** One run of the program: its exit code, and whether it was a usage error (a bad flag: the same for every organisation). */
export type RunProgram = (argv: readonly string[], io: CliIo, hooks?: RunHooks) => Promise<{ readonly code: number; readonly usage: boolean }>;

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
  if (command !== undefined && file && !help && FOLLOW_UP_COMMANDS.includes(command)) return runFollowUps(command, argv, file, io, runProgram);
  if (command === undefined || !LAKE_COMMANDS.includes(command) || help) return (await runProgram(argv, io)).code;
  const { values: orgIds, rest } = takeFlag(argv, '--org');
  try {
    if (!file) {
      if (orgIds.length > 0)
        throw new ConfigError('--org chooses an organisation of MINTLIFY_ORGS_FILE, which is not set: set it to the organisations file, or leave --org out');
      if (takeFlag(argv, '--concurrency').values.length > 0)
        throw new ConfigError(
          '--concurrency runs organisations of MINTLIFY_ORGS_FILE at once, which is not set: set it to the organisations file, or leave --concurrency out',
        );
      return (await runProgram(argv, io)).code;
    }
    const all = readOrganisationsFile(file, io.env);
    const chosen = selectOrganisations(all, orgIds);
    if (io.env['MINTLIFY_API_URL']?.trim()) return await runEach(command, rest, chosen, io, runProgram);
    const sandbox = organisationsSandbox(all, io);
    try {
      return await runEach(command, rest, chosen, { ...io, organisationsSandbox: sandbox.start }, runProgram);
    } finally {
      await sandbox.close();
    }
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    io.stderr.write(`error: ${stripControlCharacters(error.message)}\n`);
    return 2;
  }
}

/**
 * The embedded sandbox of an organisations file with no MINTLIFY_API_URL (a laptop trying many
 * organisations): one sandbox for all, accepting each organisation's key as given and serving
 * each one's projects; started when a run first needs the API, said once.
 */
export function organisationsSandbox(orgs: readonly Organisation[], io: Pick<CliIo, 'stderr'>): { start(): Promise<EmbeddedSandbox>; close(): Promise<void> } {
  let started: Promise<EmbeddedSandbox> | undefined;
  const projects = [...new Set(orgs.flatMap((org) => org.projectIds))].map((id) => ({ id, paths: sandboxPaths(id) }));
  return {
    start() {
      started ??= startEmbeddedSandbox(io, { apiKey: orgs[0]?.apiKey ?? '', moreApiKeys: orgs.slice(1).map((org) => org.apiKey), projects }).then((sandbox) => {
        io.stderr.write(
          `MINTLIFY_ORGS_FILE without MINTLIFY_API_URL: the embedded sandbox at ${sandbox.url} serves every organisation of the file (its key as given, its projects); set MINTLIFY_API_URL=${DEFAULT_API_URL} to use the service\n`,
        );
        return sandbox;
      });
      return started;
    },
    async close() {
      if (started) await (await started).close();
    },
  };
}

/** A project's size in the organisations' sandbox: a few hundred pages, steady per id. */
function sandboxPaths(id: string): number {
  let hash = 0;
  for (const char of id) hash = (hash * 31 + (char.codePointAt(0) ?? 0)) % 1_000_003;
  return 150 + (hash % 450);
}

/** The most organisations run at once unless `--concurrency` says otherwise. */
export const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 64;

/** `--concurrency N` (1–64), taken out of `argv`. @throws ConfigError on anything else. */
export function takeConcurrency(argv: readonly string[]): { readonly concurrency: number; readonly rest: string[] } {
  const { values, rest } = takeFlag(argv, '--concurrency');
  const given = values.at(-1);
  if (given === undefined) return { concurrency: DEFAULT_CONCURRENCY, rest };
  const n = Number(given);
  if (!Number.isInteger(n) || n < 1 || n > MAX_CONCURRENCY)
    throw new ConfigError(
      `--concurrency ${JSON.stringify(given.slice(0, 20))} is not a number of organisations to run at once: use a whole number from 1 to ${MAX_CONCURRENCY}`,
    );
  return { concurrency: n, rest };
}

/** The flags naming one output file, per command: with several organisations, each gets its own file. */
const OUTPUT_FILE_FLAGS: Readonly<Record<string, string>> = { report: '--file', gaps: '--prompts' };

/** `report.html` → `report.acme.html`: the organisation in a file's name, before its extension. */
export function organisationFile(file: string, id: string): string {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  const dot = file.lastIndexOf('.');
  return dot > slash + 1 ? `${file.slice(0, dot)}.${id}${file.slice(dot)}` : `${file}.${id}`;
}

/** `argv` with the command's output file named for organisation `id` when `count` organisations run (one file each, none overwritten). */
export function perOrganisationFiles(argv: readonly string[], command: string, id: string, count: number): string[] {
  const flag = OUTPUT_FILE_FLAGS[command];
  if (flag === undefined || count < 2) return [...argv];
  const { values, rest } = takeFlag(argv, flag);
  const file = values.at(-1);
  return file === undefined || file === '-' ? [...argv] : [...rest, flag, organisationFile(file, id)];
}

interface OrganisationResult {
  readonly org: Organisation;
  readonly code: number;
  readonly output?: string;
}

/**
 * Runs `command` for each organisation, up to `concurrency` at once: each on its own ledger, key
 * and lake, so one that waits for its budget, fails or is stopped holds no other. The first one
 * starts alone until its command is parsed — a flag the program refuses is said once — then the
 * others follow. A stop (SIGINT/SIGTERM) reaches every run at work and starts no other.
 */
async function runEach(command: string, argv: readonly string[], orgs: readonly Organisation[], io: CliIo, runProgram: RunProgram): Promise<number> {
  const { concurrency, rest: withoutConcurrency } = takeConcurrency(argv);
  const { values: outs, rest: withoutOut } = takeFlag(withoutConcurrency, '--out');
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
  const chosen = orgs.filter((org) => projects.length === 0 || projects.some((project) => org.projectIds.includes(project)));
  const results: OrganisationResult[] = [];
  const board = createOrganisationBoard(io.stderr);
  let stopped = false;
  let usage = false;
  void io.stopSignal.then(() => (stopped = true));
  const queue = [...chosen];

  const runOne = async (org: Organisation, onAction?: () => void) => {
    const destination = orgDestination(base, org.id);
    const orgArgv = [
      ...perOrganisationFiles(args, command, org.id, chosen.length),
      ...projects.filter((p) => org.projectIds.includes(p)).flatMap((p) => ['--project', p]),
    ];
    if (outs.length > 0) orgArgv.push('--out', destination);
    if (!json) board.print(`Organisation ${org.id} (${destination}): started\n`);
    let output = '';
    const orgIo: CliIo = {
      ...io,
      env: organisationEnv(io.env, org, destination),
      stderr: board.stderrOf(org.id),
      stdout: { write: (text: string) => (output += text) },
    };
    const run = await runProgram(orgArgv, orgIo, onAction === undefined ? {} : { onAction });
    board.done(org.id);
    // A flag the program refuses is refused for every organisation alike: said once.
    if (run.usage) {
      usage = true;
      return;
    }
    if (!json && output !== '') board.print(`Organisation ${org.id} (${destination}):\n${output.endsWith('\n') ? output : `${output}\n`}`, io.stdout);
    results.push({ org, code: run.code, ...(json ? { output } : {}) });
    if (run.code === EXIT_STOPPED) stopped = true;
  };
  const drain = async () => {
    for (let org = queue.shift(); org !== undefined && !stopped && !usage; org = queue.shift()) await runOne(org);
  };

  try {
    const first = queue.shift();
    if (first !== undefined) {
      let parsed = (): void => undefined;
      const ready = new Promise<void>((resolve) => (parsed = resolve));
      const firstRun = runOne(first, parsed).finally(parsed);
      await ready;
      const others = usage ? [] : Array.from({ length: Math.min(concurrency, chosen.length) - 1 }, drain);
      await Promise.all([firstRun.then(drain), ...others]);
    }
  } finally {
    board.close();
  }
  if (usage) return 2;
  return finish(command, chosen, results, stopped, json, io);
}

/** The final summary per organisation, the JSON object, and the exit code of the whole. */
function finish(
  command: string,
  chosen: readonly Organisation[],
  unordered: readonly OrganisationResult[],
  stopped: boolean,
  json: boolean,
  io: CliIo,
): number {
  // In the file's order, whatever order they ended in.
  const results = chosen.flatMap((org) => unordered.filter((r) => r.org === org));
  if (json) {
    const organisations = results.map(({ org, code, output }) => ({ id: org.id, exitCode: code, result: parseOr(output) }));
    io.stdout.write(`${JSON.stringify({ command, organisations }, null, 2)}\n`);
  } else if (chosen.length > 1) {
    const width = Math.max(...chosen.map((org) => org.id.length));
    const summary = chosen.map((org) => {
      const code = results.find((r) => r.org === org)?.code;
      const state =
        code === undefined ? 'not started (stopped before its turn)' : code === 0 ? 'done' : code === EXIT_STOPPED ? 'stopped' : `failed (exit ${code})`;
      return `  ${org.id.padEnd(width)}  ${state}\n`;
    });
    io.stderr.write(`${command} per organisation:\n${summary.join('')}`);
  }
  const failed = results.filter((r) => r.code !== 0);
  if (failed.length === 0 && !stopped) return 0;
  if (stopped) {
    const left = chosen.filter((org) => !results.some((r) => r.org === org && r.code === 0)).map((org) => org.id);
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
