/**
 * Structured JSON logs (Powertools Logger): one line per event, which CloudWatch Logs
 * Insights can query. Log the length and hash of a prompt, never its text; never the key.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { ConstructorOptions, LogAttributes } from '@aws-lambda-powertools/logger/types';

/** The methods the project's code calls; both `Logger` and `silentLogger` satisfy it. */
export type AppLogger = Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;

export interface CreateLoggerOptions {
  /** @default 'mintlify-exporter' */
  readonly serviceName?: string;
  /** @default 'INFO' (or POWERTOOLS_LOG_LEVEL / AWS_LAMBDA_LOG_LEVEL when set) */
  readonly level?: NonNullable<ConstructorOptions['logLevel']>;
  /** Keys added to every line (e.g. `{ component: 'export' }`). */
  readonly persistentKeys?: LogAttributes;
}

/** A Powertools Logger writing JSON lines to stdout. */
export function createLogger(options: CreateLoggerOptions = {}): Logger {
  return new Logger({
    serviceName: options.serviceName ?? 'mintlify-exporter',
    ...(options.level ? { logLevel: options.level } : {}),
    ...(options.persistentKeys ? { persistentKeys: options.persistentKeys } : {}),
  });
}

const noop = (): void => {};

/** Drops everything: for tests and for the CLI's `--json` mode, where stdout is the result. */
export const silentLogger: AppLogger = { debug: noop, info: noop, warn: noop, error: noop };
