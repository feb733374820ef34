/**
 * What every Lambda function shares: where the code is, how it is bundled, the role shape and
 * the environment variables they read. Kept in one place so the functions cannot drift apart
 * (same runtime, same bundle format, same env names).
 */
import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { type ICommandHooks, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ConfigEnvironment } from '../../functions/settings/config.js';
import type { SettingReader } from '../../functions/settings/setting.js';
import { EXPORT_SERVICE, FOLLOWUP_SERVICE, METRICS_NAMESPACE } from '../../functions/shared/metric-names.js';

/** The repository root (NodejsFunction's `projectRoot`), computed from this file's location. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Absolute path of a file given relative to the repository root (e.g. a handler entry). */
export function repoPath(relative: string): string {
  return fileURLToPath(new URL(relative, new URL('../../', import.meta.url)));
}

/** CloudWatch namespace of the EMF metrics both functions emit (`POWERTOOLS_METRICS_NAMESPACE`). */
export { METRICS_NAMESPACE };

/** `POWERTOOLS_SERVICE_NAME` of each function; also the `service` dimension of its metrics. */
export const SERVICE_NAMES = {
  export: EXPORT_SERVICE,
  followUp: FOLLOWUP_SERVICE,
} as const;

/** Powertools log levels accepted by `POWERTOOLS_LOG_LEVEL`. */
export type LogLevel = 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';

/**
 * The Mintlify API settings both functions receive. Only the secret's ARN travels in the
 * environment; the key itself is read at cold start with the role's `secretsmanager:GetSecretValue`.
 */
export interface ApiSettings {
  readonly apiKeySecret: secretsmanager.ISecret;
  /** Project ids, joined with commas into `MINTLIFY_PROJECT_IDS`. */
  readonly projectIds: readonly string[];
  /**
   * Overrides `MINTLIFY_API_URL`.
   * @default - unset, the functions use https://api.mintlify.com
   */
  readonly apiUrl?: string | undefined;
  /**
   * `POWERTOOLS_LOG_LEVEL`.
   * @default 'INFO'
   */
  readonly logLevel?: LogLevel | undefined;
}

/**
 * A function's environment: the names function `R` reads (its rows of the settings table,
 * functions/settings/config.ts, so a misspelt or removed name, or one the function does not
 * read, fails to compile here) and the runtime's own.
 */
export type FunctionEnvironment<R extends SettingReader = SettingReader> = ConfigEnvironment<R> & Partial<RuntimeEnvironment & Record<'HOME', string>>;

/** The variables of the Lambda runtime and Powertools that every function is given. */
export type RuntimeEnvironment = Record<'POWERTOOLS_SERVICE_NAME' | 'POWERTOOLS_METRICS_NAMESPACE' | 'POWERTOOLS_LOG_LEVEL' | 'NODE_OPTIONS', string>;

/** The runtime's own variables, the same for every function: its Powertools service and log level, source maps. */
export function runtimeEnvironment(serviceName: string, logLevel: LogLevel | undefined): RuntimeEnvironment {
  return {
    POWERTOOLS_SERVICE_NAME: serviceName,
    POWERTOOLS_METRICS_NAMESPACE: METRICS_NAMESPACE,
    POWERTOOLS_LOG_LEVEL: logLevel ?? 'INFO',
    // Stack traces point at the TypeScript sources (the bundle carries a source map).
    NODE_OPTIONS: '--enable-source-maps',
  };
}

/** The environment variables common to the export and the follow-up consumer (names both read). */
export function commonEnvironment(
  settings: ApiSettings,
  serviceName: string,
  destination: string,
): FunctionEnvironment<'export'> & FunctionEnvironment<'follow-up'> {
  return {
    MINTLIFY_API_KEY_SECRET_ARN: settings.apiKeySecret.secretArn,
    ...(settings.apiUrl === undefined ? {} : { MINTLIFY_API_URL: settings.apiUrl }),
    MINTLIFY_PROJECT_IDS: settings.projectIds.join(','),
    EXPORT_DESTINATION: destination,
    ...runtimeEnvironment(serviceName, settings.logLevel),
  };
}

/** Props of {@link BundledFunction}. */
export interface BundledFunctionProps {
  /** Handler file relative to the repository root, e.g. `functions/follow-up/handler.ts`. */
  readonly entry: string;
  /** The entry's export that Lambda calls. @default 'handler' */
  readonly handler?: string | undefined;
  readonly description: string;
  readonly timeout: Duration;
  /** @default 256 */
  readonly memorySize?: number | undefined;
  readonly environment: FunctionEnvironment;
  /** @default logs.RetentionDays.ONE_MONTH */
  readonly logRetention?: logs.RetentionDays | undefined;
  /** @default - no reservation */
  readonly reservedConcurrentExecutions?: number | undefined;
  /**
   * A function with native packages (infra/constructs/duckdb-bundling.ts): its architecture,
   * the packages kept out of the bundle and the steps that put them in the asset.
   * @default - ARM, only `@aws-sdk/*` external, no extra step
   */
  readonly native?: NativeBundling | undefined;
}

/** What a function with a native package changes in the bundling. */
export interface NativeBundling {
  readonly architecture: lambda.Architecture;
  /** Kept out of the bundle (besides `@aws-sdk/*`). */
  readonly externalModules: readonly string[];
  readonly commandHooks: ICommandHooks;
  /** esbuild `--banner:js` and `--define` entries. */
  readonly banner?: string;
  readonly define?: Readonly<Record<string, string>>;
}

/**
 * A NodejsFunction with the project's fixed choices: Node 24 on ARM (cheapest per GB-s),
 * a CommonJS bundle built by the local esbuild (no Docker) targeting Node 20 so the very same
 * bundle runs in the local tests, its own log group with a retention, and its own role whose
 * only policy is written by `grant*()` calls — no AWSLambdaBasicExecutionRole, whose
 * `logs:*` on `*` is broader than the one log group the function writes to.
 */
export class BundledFunction extends Construct {
  readonly function: NodejsFunction;
  readonly logGroup: logs.LogGroup;
  readonly role: iam.Role;

  constructor(scope: Construct, id: string, props: BundledFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH,
      // Logs are small and bounded by the retention; a deleted stack should not leave them behind.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (execution role)`,
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Function', {
      entry: repoPath(props.entry),
      handler: props.handler ?? 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: repoPath('package-lock.json'),
      description: props.description,
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: props.native?.architecture ?? lambda.Architecture.ARM_64,
      timeout: props.timeout,
      memorySize: props.memorySize ?? 256,
      environment: props.environment,
      logGroup: this.logGroup,
      role: this.role,
      ...(props.reservedConcurrentExecutions === undefined ? {} : { reservedConcurrentExecutions: props.reservedConcurrentExecutions }),
      bundling: {
        target: 'node20',
        // parquetjs-lite's generated Thrift code assigns undeclared globals
        // (`Statistics = module.exports.Statistics = …`): it only runs in sloppy mode. So the
        // bundle is CommonJS (ESM is always strict) and esbuild must not prefix it with
        // "use strict", which it does when tsconfig.json's `strict` implies `alwaysStrict`.
        // tsc still type-checks with the project's tsconfig. The bundle smoke test
        // (test/infra/synth-bundle.test.ts) loads each bundle to catch exactly this.
        format: OutputFormat.CJS,
        esbuildArgs: {
          '--tsconfig-raw': JSON.stringify({
            compilerOptions: { alwaysStrict: false, verbatimModuleSyntax: true, useDefineForClassFields: true },
          }),
        },
        minify: true,
        sourceMap: true,
        sourcesContent: false,
        // The Node 24 runtime ships the AWS SDK v3.
        externalModules: ['@aws-sdk/*', ...(props.native?.externalModules ?? [])],
        ...(props.native
          ? {
              commandHooks: props.native.commandHooks,
              ...(props.native.banner !== undefined ? { banner: props.native.banner } : {}),
              ...(props.native.define !== undefined ? { define: { ...props.native.define } } : {}),
            }
          : {}),
      },
    });
  }
}
