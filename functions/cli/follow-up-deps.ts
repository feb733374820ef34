/**
 * What `follow-up` and `consume` share: their io, and the dependencies of the follow-up core
 * (process-message.ts) as the CLI builds them — the same core and safety rules as the Lambda,
 * with local state, the local outcome sink and the API target the CLI resolved.
 */
import { hostname } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import type { SNSClient } from '@aws-sdk/client-sns';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createFollowUpDeps, type WiredFollowUpDeps } from '../follow-up/deps.js';
import type { FollowUpSettings } from '../follow-up/settings.js';
import type { Config } from '../settings/config.js';
import type { Organisation } from '../organisations/organisations.js';
import { silentLogger } from '../shared/logger.js';
import { retryLinePrinter } from './retry-lines.js';

/** What `follow-up` and `consume` need from the CLI (cli/program.ts passes its CliIo plus two hooks). */
export interface FollowUpCommandIo {
  readonly stdout: { write(text: string): unknown; readonly isTTY?: boolean };
  readonly stderr: { write(text: string): unknown };
  readonly env: Record<string, string | undefined>;
  /** Default: Date.now. */
  readonly now?: () => number;
  /** Resolves on SIGINT/SIGTERM; `consume` stops, `follow-up` stops waiting. */
  readonly stopSignal?: Promise<void>;
  /** Where API calls go (the real service, or the embedded sandbox when no key is set). */
  resolveApiTarget(config: Config): Promise<{ readonly baseUrl: string; readonly apiKey: string; readonly sandbox?: unknown; close(): Promise<void> }>;
  setExitCode(code: number): void;
  /** Test hooks: clients (emulators), sleep, and setting overrides (short poll intervals). */
  readonly clients?: { readonly sqs?: SQSClient; readonly dynamo?: DynamoDBClient; readonly s3?: S3Client; readonly sns?: SNSClient };
  readonly sleep?: (ms: number) => Promise<void>;
  readonly settings?: Partial<FollowUpSettings>;
  /** MINTLIFY_ORGS_FILE's organisations (cli/organisations.ts): `consume` sends each message with its organisation's key. */
  readonly organisations?: readonly Organisation[];
}

/** The follow-up core's dependencies, but for the dead-letter and the sleep, which each command chooses. */
export async function localDeps(
  config: Config,
  io: FollowUpCommandIo,
  target: { readonly baseUrl: string; readonly apiKey: string },
  options: {
    /** Keep the state records here instead of `<local destination>/.followup-state`. */
    readonly stateDir?: string;
    /** Print each retry wait (a 429's included) on stderr. */
    readonly retryLines?: boolean;
    /** SNS topic every outcome is published to (default: FOLLOWUP_OUTCOMES_TOPIC_ARN). */
    readonly outcomesTopic?: string | undefined;
  } = {},
): Promise<WiredFollowUpDeps> {
  const localRoot = config.destination.startsWith('s3://') ? './data' : config.destination;
  return createFollowUpDeps(config, {
    api: { baseUrl: target.baseUrl, apiKey: target.apiKey, ...(options.retryLines ? { events: retryLinePrinter((line) => io.stderr.write(line)) } : {}) },
    localStateDir: options.stateDir ?? join(localRoot, '.followup-state'),
    outcomesTopic: options.outcomesTopic,
    ...(io.clients ? { clients: io.clients } : {}),
    logger: silentLogger,
    metrics: { count: () => undefined },
    ...(io.now ? { now: io.now } : {}),
    // `<hostname>:<pid>` (each call adds `:<hex>`): the next run on this machine sees when this
    // process is gone (killed during a POST) and does not wait out its claim.
    owner: `${hostname()}:${process.pid}`,
  });
}

/** An AbortSignal that aborts when `signal` resolves, until disposed. */
export function abortOn(signal: Promise<void> | undefined): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  let disposed = false;
  void signal?.then(() => {
    if (!disposed) controller.abort();
  });
  return { signal: controller.signal, dispose: () => (disposed = true) };
}
