/**
 * `mintlify-exporter doctor [--out DEST] [--org ID]...`: everything a run needs, checked in one go,
 * one line each — `✓ what` or `✗ what: the fix` — the organisations file (MINTLIFY_ORGS_FILE),
 * then per organisation (or once without the file): the destination (written, read and deleted
 * as the export's probe does), the budget ledger (read from its state folder or table), AWS region
 * and credentials when the configuration needs them (an `s3://` destination, a state table, a Glue
 * database, a queue), each state table (EXPORT_STATE_TABLE, FOLLOWUP_STATE_TABLE: it exists and is
 * ACTIVE) and queue (EXPORT_ORGS_QUEUE_URL, FOLLOWUP_DEAD_LETTER_QUEUE_URL: it answers) configured, and the key with one cheap request — a day of `visitors` of the first project,
 * through the budget like every analytics request (the embedded sandbox's without a key) — which
 * also proves the project is the key's. Exit 0 when every check passes, 1 otherwise; 2 only for
 * a flag it cannot read.
 */
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { S3Client } from '@aws-sdk/client-s3';
import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { Command } from 'commander';
import { createExportDeps, lastDueDay, localStateDir, openExportDestination } from '../export/index.js';
import { orgDestination, readOrganisationsFile, selectOrganisations, type Organisation } from '../organisations/organisations.js';
import { loadConfig, type Config } from '../settings/config.js';
import { awsClientConfig } from '../shared/aws-clients.js';
import { addDays } from '../shared/dates.js';
import { ConfigError, stripControlCharacters } from '../shared/errors.js';
import { createMemoryStore } from '../shared/storage/shared-store.js';
import { HOUR_MS } from '../shared/time.js';
import { checkAwsAccess } from './aws-access.js';
import { missingKeyError } from './api-target.js';
import { organisationEnv } from './organisations.js';
import { probeSetup } from './probe.js';
import { sqsClientFor } from './sqs-client.js';
import { clientOverrides, probeInput, type ExportCommandIo } from './scope.js';

interface DoctorFlags {
  readonly out?: string;
  readonly org: string[];
}

/** One check's result: passed, or failed with what to do. */
export interface Check {
  readonly name: string;
  readonly ok: boolean;
  /** What passed (`./data is writable`), or the fix. */
  readonly detail: string;
}

export function registerDoctorCommand(program: Command, io: ExportCommandIo): void {
  program
    .command('doctor')
    .description(
      'Check the key (one request, counted against the budget), projects, destination, budget ledger, organisations file, AWS settings, state tables and queues: one line each, exit 1 when one fails.',
    )
    .option('--out <dest>', 'directory or s3://bucket/prefix (default EXPORT_DESTINATION)')
    .option(
      '--org <id>',
      'organisation of MINTLIFY_ORGS_FILE to check (repeatable; default every one)',
      (value: string, previous: string[]) => [...previous, value],
      [],
    )
    .action(async (flags: DoctorFlags) => io.setExitCode(await runDoctor(flags, io)));
}

async function runDoctor(flags: DoctorFlags, io: ExportCommandIo): Promise<number> {
  const checks: Check[] = [];
  const say = (check: Check) => {
    checks.push(check);
    io.stdout.write(`${check.ok ? '✓' : '✗'} ${check.name}: ${stripControlCharacters(check.detail)}\n`);
  };
  const file = io.env['MINTLIFY_ORGS_FILE']?.trim();
  if (!file) {
    if (flags.org.length > 0)
      say({ name: 'organisations file', ok: false, detail: '--org needs MINTLIFY_ORGS_FILE: set it to the organisations file, or leave --org out' });
    else await checkOne(flags.out, io.env, io, say);
  } else {
    let orgs: Organisation[] = [];
    try {
      orgs = selectOrganisations(readOrganisationsFile(file, io.env), flags.org);
      say({ name: 'organisations file', ok: true, detail: `${file}: ${orgs.map((o) => o.id).join(', ')}` });
    } catch (error) {
      say({ name: 'organisations file', ok: false, detail: messageOf(error) });
    }
    const base = flags.out ?? (io.env['EXPORT_DESTINATION']?.trim() || './data');
    for (const org of orgs) {
      const destination = orgDestination(base, org.id);
      io.stdout.write(`Organisation ${org.id} (${destination}):\n`);
      await checkOne(destination, organisationEnv(io.env, org, destination), io, say, `${org.id}: `);
    }
  }
  const failed = checks.filter((c) => !c.ok).length;
  io.stdout.write(
    failed === 0 ? `All ${checks.length} checks passed.\n` : `${failed} of ${checks.length} check(s) failed: fix each ✗ line above, then run doctor again.\n`,
  );
  return failed === 0 ? 0 : 1;
}

/** The checks of one lake, key and ledger (one organisation's, or the only one). */
async function checkOne(out: string | undefined, env: ExportCommandIo['env'], io: ExportCommandIo, say: (check: Check) => void, label = ''): Promise<void> {
  const named = (name: string) => `${label}${name}`;
  let config: Config;
  try {
    config = loadConfig(env);
    say({ name: named('settings'), ok: true, detail: 'every variable reads' });
  } catch (error) {
    say({ name: named('settings'), ok: false, detail: messageOf(error) });
    return;
  }
  const projects = config.projectIds;
  const sandbox = config.apiKey === undefined;
  const mistake = sandbox ? missingKeyError(config, projects, 'MINTLIFY_PROJECT_IDS') : undefined;
  say(
    mistake
      ? { name: named('projects'), ok: false, detail: mistake.message }
      : projects.length === 0 && !sandbox
        ? { name: named('projects'), ok: false, detail: 'MINTLIFY_PROJECT_IDS is empty: set it to the project ids to export (comma-separated)' }
        : { name: named('projects'), ok: true, detail: projects.length > 0 ? projects.join(', ') : "the embedded sandbox's (no MINTLIFY_API_KEY)" },
  );
  // AWS first: the destination, ledger and key checks below would fail on it with less clear words.
  const awsNeeds = [
    ...((out ?? config.destination).startsWith('s3://') ? ['an s3:// destination'] : []),
    ...(config.stateTable !== undefined ? [`the state table ${config.stateTable}`] : []),
    ...(config.glueDatabase !== undefined ? [`the Glue database ${config.glueDatabase}`] : []),
    ...storesOf(config).map((store) => `the ${store.what} ${store.name}`),
  ];
  if (awsNeeds.length > 0) {
    const ok = await checkAwsAccess(io.clients?.s3 ?? new S3Client(awsClientConfig()), `needed for ${awsNeeds.join(', ')}`).then(
      () => undefined,
      (error: unknown) => messageOf(error),
    );
    say({ name: named('AWS region and credentials'), ok: ok === undefined, detail: ok ?? `found (needed for ${awsNeeds.join(', ')})` });
  }
  for (const check of await checkStores(config, io)) say({ ...check, name: named(check.name) });
  const clients = clientOverrides(io, out);
  let destination: ReturnType<typeof openExportDestination>;
  try {
    destination = openExportDestination(config, clients);
  } catch (error) {
    say({ name: named('destination'), ok: false, detail: messageOf(error) });
    return;
  }
  const unpaced = sandbox && !config.budgetSet;
  const probe = probeInput(config, io, out, destination, !unpaced);
  // The destination alone: the ledger's folder is the next check's.
  const { state: _ledgerFolder, ...destinationOnly } = probe;
  const written = await probeSetup({ ...destinationOnly, mode: 'write' }).then(
    () => undefined,
    (error: unknown) => messageOf(error),
  );
  say({ name: named('destination'), ok: written === undefined, detail: written ?? `${destination.url} is writable` });
  const deps = createExportDeps(config, {
    ...clients,
    destination,
    ...(unpaced
      ? { store: createMemoryStore(), unlimited: true as const, budget: { requests: 1_000_000, windowMs: HOUR_MS, text: 'unlimited (embedded sandbox)' } }
      : {}),
    keyFolder: localStateDir(config, out),
  });
  // The ledger as every run reads it: its state folder (created if need be) or the state table.
  const ledger = await deps.ledger.snapshot().then(
    (snapshot) => ({ ok: true, detail: `${snapshot.used} of ${snapshot.limit} request(s) used in the window (${deps.ledger.spec.text})` }),
    (error: unknown) => ({ ok: false, detail: messageOf(error) }),
  );
  say({ name: named(config.stateTable !== undefined ? `budget ledger (state table ${config.stateTable})` : 'budget ledger'), ...ledger });
  if (!ledger.ok) return;
  say({ name: named('key'), ...(await checkKey(config, io, deps)) });
}

/** One request of a day of `visitors` of the first project, through the budget: the key, the project and the API answer. */
async function checkKey(config: Config, io: ExportCommandIo, deps: ReturnType<typeof createExportDeps>): Promise<Omit<Check, 'name'>> {
  let target: Awaited<ReturnType<ExportCommandIo['resolveApiTarget']>> | undefined;
  try {
    target = await io.resolveApiTarget(config);
    const project = target.defaultProjects[0];
    if (project === undefined) return { ok: false, detail: 'no project to ask: set MINTLIFY_PROJECT_IDS' };
    const api = createExportDeps(config, {
      destination: deps.destination,
      store: deps.store,
      apiUrl: target.baseUrl,
      apiKey: target.apiKey,
      now: io.now,
      ...(target.sandbox !== undefined && !config.budgetSet
        ? { unlimited: true as const, budget: { requests: 1_000_000, windowMs: HOUR_MS, text: 'unlimited (embedded sandbox)' } }
        : {}),
    });
    const day = lastDueDay(io.now(), config.settleHours);
    const client = api.createApi(api.createGate());
    await client.getAnalytics('visitors', project, { dateFrom: day, dateTo: addDays(day, 1) }, (body) => body);
    const where = target.sandbox !== undefined ? `the embedded sandbox (no MINTLIFY_API_KEY) at ${target.baseUrl}` : config.apiUrl;
    return { ok: true, detail: `${where} answered for ${project} (1 request, counted against the budget)` };
  } catch (error) {
    return { ok: false, detail: messageOf(error) };
  } finally {
    await target?.close();
  }
}

/** The state tables and queues the configuration names: each is checked when set. */
function storesOf(config: Config): { readonly what: 'state table' | 'queue'; readonly name: string; readonly env: string }[] {
  return [
    ...(config.stateTable !== undefined ? [{ what: 'state table' as const, name: config.stateTable, env: 'EXPORT_STATE_TABLE' }] : []),
    ...(config.followUpStateTable !== undefined ? [{ what: 'state table' as const, name: config.followUpStateTable, env: 'FOLLOWUP_STATE_TABLE' }] : []),
    ...(config.orgsQueueUrl !== undefined ? [{ what: 'queue' as const, name: config.orgsQueueUrl, env: 'EXPORT_ORGS_QUEUE_URL' }] : []),
    ...(config.followUpDeadLetterQueueUrl !== undefined
      ? [{ what: 'queue' as const, name: config.followUpDeadLetterQueueUrl, env: 'FOLLOWUP_DEAD_LETTER_QUEUE_URL' }]
      : []),
  ];
}

/**
 * Each state table (DescribeTable: it exists and is ACTIVE) and queue (GetQueueAttributes: it
 * answers, with its messages waiting) the configuration names, one check each with its fix.
 */
async function checkStores(config: Config, io: ExportCommandIo): Promise<Check[]> {
  const checks: Check[] = [];
  for (const store of storesOf(config)) {
    const name = `${store.what} ${store.name} (${store.env})`;
    try {
      if (store.what === 'state table') {
        const dynamo = io.clients?.dynamo ?? new DynamoDBClient(awsClientConfig());
        const { Table } = await dynamo.send(new DescribeTableCommand({ TableName: store.name }));
        const status = Table?.TableStatus ?? 'UNKNOWN';
        checks.push(
          status === 'ACTIVE'
            ? { name, ok: true, detail: 'reachable, ACTIVE' }
            : { name, ok: false, detail: `the table is ${status}: wait until it is ACTIVE, then run doctor again` },
        );
      } else {
        const sqs = sqsClientFor(store.name, config);
        const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: store.name, AttributeNames: ['ApproximateNumberOfMessages'] }));
        checks.push({ name, ok: true, detail: `reachable, ${Attributes?.ApproximateNumberOfMessages ?? '0'} message(s) waiting` });
      }
    } catch (error) {
      checks.push({ name, ok: false, detail: storeFix(store, error) });
    }
  }
  return checks;
}

/** What to do about a state table or queue that did not answer. */
function storeFix(store: ReturnType<typeof storesOf>[number], error: unknown): string {
  const kind = error instanceof Error ? error.name : '';
  if (kind === 'ResourceNotFoundException' || kind === 'QueueDoesNotExist' || kind === 'AWS.SimpleQueueService.NonExistentQueue') {
    return `no such ${store.what} in this account and region: set ${store.env} to the deployed stack's ${store.what} (its outputs name it), or unset it`;
  }
  const permission = store.what === 'state table' ? 'dynamodb:DescribeTable' : 'sqs:GetQueueAttributes';
  return `${messageOf(error)}: check AWS_REGION, the credentials and their ${permission} permission, and ${store.env}`;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return error instanceof ConfigError ? text : (text.split('\n')[0] ?? text);
}
