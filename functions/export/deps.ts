/**
 * The export's wiring, in one place for the Lambda (handler.ts) and the CLI (functions/cli/):
 * where the warehouse is written, the state every run shares (the budget ledger, unit leases,
 * the backlog), where the API key comes from, and — per run — a budget gate over the ledger,
 * an API client paced by that gate, and leases.
 *
 * In AWS the shared state is a DynamoDB table (`EXPORT_STATE_TABLE`); on a laptop, files in a
 * local folder (`EXPORT_STATE_DIR`, default `<local destination>/.state`) that two CLI runs
 * share. A CLI with `EXPORT_STATE_TABLE` uses the deployment's table, as the Lambda does: its
 * DynamoDB client is built from the environment (region, credentials, and
 * `AWS_ENDPOINT_URL_DYNAMODB`, which the SDK reads itself).
 *
 * Nothing here touches a file or the network: clients are built lazily on first use.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { Logger } from '@aws-lambda-powertools/logger';
import { createApiClient, type ApiClientOptions, type MintlifyClient } from '../shared/api/index.js';
import {
  createBudgetGate,
  createBudgetLedger,
  createUnlimitedLedger,
  shareOf,
  type BudgetGate,
  type BudgetLedger,
  type BudgetWait,
} from '../shared/pacing/budget.js';
import type { BudgetSpec } from '../shared/pacing/budget-spec.js';
import type { Unit } from './unit-id.js';
import type { Config, ConfigOf } from '../settings/config.js';
import type { Destination } from '../shared/storage/destination.js';
import { openDestination } from '../shared/storage/destinations.js';
import { createLeases, type Leases } from '../shared/pacing/leases.js';
import { createLogger, type AppLogger } from '../shared/logger.js';
import { EXPORT_SERVICE } from '../shared/metric-names.js';
import { sleep as realSleep, type Sleep } from '../shared/time.js';
import { createApiKeyProvider, fixedKey, type ApiKeySource } from '../shared/secrets.js';
import { createPersonalDataKeySource, type PersonalDataKeySource } from '../shared/personal-data/index.js';
import type { SharedStore } from '../shared/storage/shared-store.js';
import { createDynamoStore } from '../shared/storage/shared-store-dynamo.js';
import { createLocalStore } from '../shared/storage/shared-store-local.js';
import { orgScope, scopedStore } from '../shared/storage/scoped-store.js';
import { localStateDir } from './state-folder.js';
import { exportPolicy, type RunControl } from './policy.js';
import { runExport, type RunRequest, type RunResult } from './run.js';
import type { RunEvent } from './run-units.js';
import { createSkewClock } from '../shared/clock-skew.js';
import { awsClientConfig } from '../shared/aws-clients.js';
import { GlueClient } from '@aws-sdk/client-glue';
import { createPartitionRegistrar, type GlueSend, type PartitionRegistrar } from '../warehouse/partitions.js';
import { AthenaClient } from '@aws-sdk/client-athena';
import type { AthenaSend } from './iceberg/athena.js';
import { createIcebergSync, deleteForgotten, type IcebergDeps, type IcebergSync } from './iceberg/sync.js';
import type { ForgetDeps } from './forget/index.js';

/** What a caller may give instead of what `createExportDeps` would build from the config. */
export interface ExportOverrides {
  /**
   * The client of `EXPORT_STATE_TABLE`, built when the store is first needed.
   * @default a `DynamoDBClient` configured from the environment
   */
  readonly dynamo?: () => DynamoDBClient;
  /** @default an `S3Client` configured from the environment (s3:// destinations only) */
  readonly s3?: S3Client;
  /** The Secrets Manager client reading `MINTLIFY_API_KEY_SECRET_ARN`. @default one from the environment */
  readonly secrets?: SecretsManagerClient;
  /** The Glue client of `EXPORT_GLUE_DATABASE`. @default a `GlueClient` configured from the environment (`AWS_ENDPOINT_URL_GLUE` too) */
  readonly glue?: GlueSend;
  /** The Athena client of `EXPORT_ATHENA_WORKGROUP`. @default an `AthenaClient` configured from the environment (`AWS_ENDPOINT_URL_ATHENA` too) */
  readonly athena?: AthenaSend;
  /** A destination other than `EXPORT_DESTINATION` (the CLI's `--out`); also where the local state lives. */
  readonly out?: string;
  /** An already opened destination (the CLI probes it before it starts anything else). */
  readonly destination?: Destination;
  /** A store other than the configured one (the CLI's embedded sandbox: a memory store). */
  readonly store?: SharedStore;
  /** @default config.budget */
  readonly budget?: BudgetSpec;
  /** The budget has no limit (the embedded sandbox): a ledger of this process only (`createUnlimitedLedger`), not the store's. */
  readonly unlimited?: true;
  /** @default config.apiUrl */
  readonly apiUrl?: string;
  /** @default `config.apiKey`, else the secret `config.apiKeySecretArn` */
  readonly apiKey?: string | ApiKeySource;
  /** @default a Powertools logger of the export service */
  readonly logger?: Logger;
  /** @default `() => Date.now()` (read at each call, so a test's fake Date is seen) */
  readonly now?: () => number;
  /** @default a real timer */
  readonly sleep?: Sleep;
  /** The key of the `hmac` columns. @default PERSONAL_DATA_KEY, else the secret PERSONAL_DATA_KEY_SECRET_ARN, else the key file of `keyFolder` */
  readonly personalDataKey?: PersonalDataKeySource;
  /** The CLI's state folder: where a personal-data key is generated once when none is configured. Absent (Lambda): none is. */
  readonly keyFolder?: string;
  /** Told once when a key was generated into `keyFolder` (the CLI says so on stderr). */
  readonly onKeyGenerated?: (file: string) => void;
}

/** Everything a run of the export needs, built once per process (Lambda cold start, CLI command). */
export interface ExportDeps {
  readonly config: ConfigOf<'export'>;
  readonly destination: Destination;
  /** Ledger, leases and backlog of every run of the deployment. */
  readonly store: SharedStore;
  readonly ledger: BudgetLedger;
  readonly apiKey: ApiKeySource;
  /** The key of the `hmac` columns (shared/personal-data/key.ts). */
  readonly personalDataKey: PersonalDataKeySource;
  readonly logger: Logger;
  readonly now: () => number;
  readonly sleep: Sleep;
  /** One run's gate over the ledger (its counters are that run's); `onWait` hears each wait. */
  createGate(onWait?: (wait: BudgetWait) => void): BudgetGate;
  /** An API client whose analytics requests pass `gate`; `logger` hears its retries. @default logger this deps' logger */
  createApi(gate: BudgetGate, options?: { readonly logger?: ApiClientOptions['logger']; readonly events?: ApiClientOptions['events'] }): MintlifyClient;
  /** The unit leases of a run named `owner`. */
  createLeases(owner: string): Leases;
  /** One run's registrar of committed days in Glue (partitions.ts); none without `EXPORT_GLUE_DATABASE`. */
  createPartitions(logger?: AppLogger): PartitionRegistrar | undefined;
  /** One run's sync of the Iceberg tables (iceberg/sync.ts); none without `EXPORT_ATHENA_WORKGROUP` and `EXPORT_ICEBERG_DATABASE`. */
  createIceberg(logger?: AppLogger): IcebergSync | undefined;
  /** `forget`'s DELETE from the Iceberg tables; none without `EXPORT_ATHENA_WORKGROUP` and `EXPORT_ICEBERG_DATABASE`. */
  icebergForget(): ForgetDeps['iceberg'];
}

/**
 * The destination a run writes: `overrides.out` (named `--out` in messages), else
 * `config.destination` (`EXPORT_DESTINATION`).
 */
export function openExportDestination(config: Pick<Config, 'destination'>, overrides: Pick<ExportOverrides, 'out' | 's3'> = {}): Destination {
  const { out, s3 } = overrides;
  return openDestination(out ?? config.destination, { source: out === undefined ? 'EXPORT_DESTINATION' : '--out', ...(s3 ? { s3Client: s3 } : {}) });
}

/** The shared store: the DynamoDB table when configured, else a local folder. */
export function openSharedStore(
  config: Pick<Config, 'stateTable' | 'stateDir' | 'destination' | 'org'>,
  overrides: Pick<ExportOverrides, 'dynamo' | 'out'> = {},
): SharedStore {
  const store =
    config.stateTable !== undefined
      ? createDynamoStore({ tableName: config.stateTable, client: overrides.dynamo?.() ?? new DynamoDBClient(awsClientConfig()) })
      : createLocalStore(localStateDir(config, overrides.out));
  // Many organisations: each one's ledger, leases and backlog are its own.
  return config.org === undefined ? store : scopedStore(store, orgScope(config.org));
}

/** Builds the export's dependencies from `config`, with `overrides` taking the place of any part. */
export function createExportDeps(config: ConfigOf<'export'>, overrides: ExportOverrides = {}): ExportDeps {
  // The API's Date header corrects this clock (clock-skew.ts): what the ledger, gate and leases
  // read is the API's time, so a run on a machine whose clock is off shares the ledger safely.
  const clock = createSkewClock(overrides.now ?? (() => Date.now()));
  const now = clock.now;
  const sleep = overrides.sleep ?? realSleep;
  const logger = overrides.logger ?? createLogger({ serviceName: EXPORT_SERVICE });
  const destination = overrides.destination ?? openExportDestination(config, overrides);
  const store = overrides.store ?? openSharedStore(config, overrides);
  const spec = overrides.budget ?? shareOf(config.budget, config.analyticsReserve);
  const ledger = overrides.unlimited ? createUnlimitedLedger(spec, { now }) : createBudgetLedger(store, spec, { now });
  const apiKey =
    typeof overrides.apiKey === 'string'
      ? fixedKey(overrides.apiKey)
      : (overrides.apiKey ?? createApiKeyProvider(config, overrides.secrets ? { secrets: overrides.secrets } : {}));
  const baseUrl = overrides.apiUrl ?? config.apiUrl;
  let glue: GlueSend | undefined;
  let athena: AthenaSend | undefined;
  const icebergDeps = (icebergLogger: AppLogger): Omit<IcebergDeps, 'store'> | undefined => {
    const { athenaWorkgroup: workgroup, icebergDatabase: database } = config;
    if (workgroup === undefined || database === undefined) return undefined;
    athena ??= overrides.athena ?? new AthenaClient(awsClientConfig());
    return { athena, workgroup, database, now, sleep, logger: icebergLogger, ...(config.org !== undefined ? { org: config.org } : {}) };
  };
  const personalDataKey =
    overrides.personalDataKey ??
    createPersonalDataKeySource(config, {
      ...(overrides.keyFolder !== undefined ? { stateDir: overrides.keyFolder } : {}),
      ...(overrides.onKeyGenerated ? { onGenerated: overrides.onKeyGenerated } : {}),
      ...(overrides.secrets ? { secrets: overrides.secrets } : {}),
    });
  return {
    config,
    destination,
    store,
    ledger,
    apiKey,
    personalDataKey,
    logger,
    now,
    sleep,
    createGate: (onWait) => createBudgetGate(ledger, { now, sleep, ...(onWait ? { onWait } : {}) }),
    createApi: (gate, options = {}) =>
      createApiClient({
        baseUrl,
        apiKey: typeof overrides.apiKey === 'string' ? overrides.apiKey : apiKey,
        timeoutMs: config.apiTimeoutMs,
        budget: gate,
        clock,
        logger: options.logger ?? logger,
        ...(options.events ? { events: options.events } : {}),
        ...(overrides.sleep ? { sleep: overrides.sleep } : {}),
      }),
    createLeases: (owner) => createLeases(store, { owner, now }),
    createPartitions: (partitionLogger = logger) => {
      const database = config.glueDatabase;
      if (database === undefined) return undefined;
      glue ??= overrides.glue ?? new GlueClient(awsClientConfig());
      return createPartitionRegistrar({ glue, database, store, now, logger: partitionLogger, org: config.org });
    },
    createIceberg: (icebergLogger = logger) => {
      const found = icebergDeps(icebergLogger);
      return found ? createIcebergSync({ ...found, store }) : undefined;
    },
    icebergForget: () => {
      const found = icebergDeps(logger);
      return found ? (tables, hmacs) => deleteForgotten(found, tables, hmacs) : undefined;
    },
  };
}

/** Where the Lambda and the CLI differ in a run; everything else `wireRun` wires once. */
export interface RunHooks {
  /** Names the run's unit leases (`lambda:<request id>`, the CLI's process). */
  readonly owner: string;
  /** Who set the projects (`--project`), for the messages of a project the key cannot see. @default MINTLIFY_PROJECT_IDS */
  readonly projectSource?: string;
  /** Hears each wait for the request budget. */
  readonly onWait?: (wait: BudgetWait) => void;
  /** The API client's log and events (the CLI prints its events and silences its log). @default the deps' logger */
  readonly api?: { readonly logger?: ApiClientOptions['logger']; readonly events?: ApiClientOptions['events'] };
  /** The run's log (the Lambda's). @default none */
  readonly logger?: AppLogger;
  /** Hears the run's progress (the CLI's bars). */
  readonly onEvent?: (event: RunEvent) => void;
  /** The run's clock. @default the deps' clock (corrected by the API's Date header) */
  readonly now?: () => number;
  /** Where the Glue registrar says what it left for the next run (the CLI's warning lines). @default the run's log, else the deps' */
  readonly partitionLogger?: AppLogger;
  /** Pages of a unit known before its first page (the embedded sandbox's sizes), for the plan's estimates. @default none */
  readonly sizedPages?: (unit: Unit) => number | undefined;
}

/** One run wired: its API client (whose counters the caller may read) and the run itself. */
export interface WiredRun {
  readonly api: MintlifyClient;
  /** The run's registrar of committed days in Glue (its counters for the metrics); none without `EXPORT_GLUE_DATABASE`. */
  readonly partitions?: PartitionRegistrar;
  /** The run's sync of the Iceberg tables (its counters for the metrics); none with `tableFormat=hive`. */
  readonly iceberg?: IcebergSync;
  /** Plans, runs and logs `request` under `control` (`runExport`). */
  run(request: RunRequest, control?: RunControl): Promise<RunResult>;
}

/**
 * A run of the export wired from `deps` — budget gate → API client → leases → `runExport` with
 * the configured policy — the same for the Lambda and the CLI, which differ only in `hooks`.
 */
export function wireRun(deps: ExportDeps, hooks: RunHooks): WiredRun {
  const gate = deps.createGate(hooks.onWait);
  const api = deps.createApi(gate, hooks.api);
  const leases = deps.createLeases(hooks.owner);
  const policy = exportPolicy(deps.config, hooks.projectSource !== undefined ? { projectSource: hooks.projectSource } : {});
  const partitions = deps.createPartitions(hooks.partitionLogger ?? hooks.logger);
  const iceberg = deps.createIceberg(hooks.partitionLogger ?? hooks.logger);
  return {
    api,
    ...(partitions ? { partitions } : {}),
    ...(iceberg ? { iceberg } : {}),
    run: (request, control = {}) =>
      runExport(request, policy, control, {
        api,
        gate,
        destination: deps.destination,
        leases,
        store: deps.store,
        now: hooks.now ?? deps.now,
        personalDataKey: deps.personalDataKey,
        ...(partitions ? { partitions } : {}),
        ...(iceberg ? { iceberg } : {}),
        ...(hooks.logger ? { logger: hooks.logger } : {}),
        ...(hooks.onEvent ? { onEvent: hooks.onEvent } : {}),
        ...(hooks.sizedPages ? { sizedPages: hooks.sizedPages } : {}),
      }),
  };
}
