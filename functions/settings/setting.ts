/**
 * The machinery of the settings table (table.ts): what one row is (`Setting`), who reads it
 * (`SettingReader`), the row builders for whole and decimal numbers, and the checks several rows
 * share (dataset lists, table names, ARNs and bucket names). Every problem is a `ConfigError`
 * with one line that names the variable and says what to do.
 */
import { DATASET_NAMES, isDatasetName, type DatasetName } from '../warehouse/catalog.js';
import { ConfigError } from '../shared/errors.js';

/**
 * Who reads a variable: the export Lambda, the follow-up Lambda, the CLI (every command), the
 * hourly insights check Lambda and the weekly report Lambda.
 */
export type SettingReader = 'export' | 'follow-up' | 'cli' | 'insights' | 'weekly-report';

/** One environment variable. */
export interface Setting<T, N extends string = string, R extends SettingReader = SettingReader, Q extends R = never> {
  /** The variable's name. */
  readonly env: N;
  /** What it means, for docs/configuration.md (Markdown, one line). */
  readonly doc: string;
  /**
   * The value used when it is unset or blank, as the variable would hold it (parsed like a
   * set value). Absent: the setting is optional (`undefined` when unset).
   */
  readonly default?: string;
  /** docs/configuration.md's default column, when it says more than the default itself. */
  readonly defaultDoc?: string;
  /** Bounds of a number, shown in the docs and checked by `parse` (`above`: the minimum itself is refused). */
  readonly range?: { readonly min: number; readonly max: number; readonly above?: true };
  /** The functions that read it (infra sets a Lambda only the names its function reads). */
  readonly readBy: readonly R[];
  /**
   * The functions whose Lambda refuses to start without it, each with why (the part of the
   * one-line error after "<NAME> is not set: "); `requireSettings` checks them.
   */
  readonly requiredIn?: { readonly [P in Q]?: string };
  /** Checks a value (trimmed, not blank); throws a ConfigError naming the variable and the fix. */
  readonly parse: (raw: string) => T;
}

export function setting<T, const N extends string, const R extends SettingReader, const Q extends R = never>(
  spec: Setting<T, N, R, Q> & { readonly default: string },
): Setting<T, N, R, Q> & { readonly default: string };
export function setting<T, const N extends string, const R extends SettingReader, const Q extends R = never>(spec: Setting<T, N, R, Q>): Setting<T, N, R, Q>;
export function setting<T, const N extends string, const R extends SettingReader, const Q extends R = never>(spec: Setting<T, N, R, Q>): Setting<T, N, R, Q> {
  return spec;
}

/** Throws the one line that says what is wrong and what to do. */
export function fail(message: string): never {
  throw new ConfigError(message);
}

export function wholeNumber(name: string, raw: string, min: number, max: number, fallback: number | string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
    fail(`${name} must be a whole number from ${min} to ${max} (got "${raw.slice(0, 20)}"): fix or unset it (default ${fallback})`);
  }
  return Number(raw);
}

/** A whole-number variable from `min` to `max`. */
export function integer<const N extends string, const R extends SettingReader>(
  env: N,
  min: number,
  max: number,
  rest: { doc: string; default: string; readBy: readonly R[]; defaultDoc?: string },
) {
  return setting({ env, range: { min, max }, parse: (raw) => wholeNumber(env, raw, min, max, rest.default), ...rest });
}

/** A number variable above `min` and at most `max` (fractions allowed). */
export function decimal<const N extends string, const R extends SettingReader>(
  env: N,
  min: number,
  max: number,
  rest: { doc: string; default: string; readBy: readonly R[] },
) {
  return setting({
    env,
    range: { min, max, above: true },
    parse: (raw) => {
      const value = /^\d+(?:\.\d+)?$/.test(raw) ? Number(raw) : Number.NaN;
      if (!(value > min && value <= max)) {
        fail(`${env} must be a number above ${min} and at most ${max} (got "${raw.slice(0, 20)}"): fix or unset it (default ${rest.default})`);
      }
      return value;
    },
    ...rest,
  });
}

/** A DynamoDB table name. */
export function tableName(name: string, raw: string): string {
  return TABLE_NAME.test(raw) ? raw : fail(`${name} is not a DynamoDB table name: use 3–255 letters, digits, _ . or -`);
}

/** A Glue database name (the stack's GlueDatabase output): `name`'s value, or a one-line error. */
export function glueDatabaseName(name: string, raw: string): string {
  return /^[A-Za-z0-9_-]{1,255}$/.test(raw)
    ? raw
    : fail(`${name} "${raw.slice(0, 60)}" is not a Glue database name: use the stack's GlueDatabase output (letters, digits, _ or -)`);
}

/** A comma-separated list of dataset names (duplicates dropped, order kept). */
export function parseDatasets(raw: string, source: string): DatasetName[] {
  const names = raw
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const unknown = names.find((name) => !isDatasetName(name));
  if (unknown !== undefined || names.length === 0) {
    fail(
      `${source} ${unknown === undefined ? 'is empty' : `names an unknown dataset "${unknown.slice(0, 30)}"`}: use a comma-separated list of ${DATASET_NAMES.join(', ')}`,
    );
  }
  return [...new Set(names as DatasetName[])];
}

/** A Secrets Manager secret ARN (the infra's context also requires the complete ARN's 6-character suffix). */
export const SECRET_ARN_PATTERN = /^arn:aws[a-z-]*:secretsmanager:[a-z0-9-]+:\d{12}:secret:[A-Za-z0-9/_+=.@-]+$/;
/** An S3 bucket name: 3–63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit. */
export const BUCKET_NAME_PATTERN = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const TABLE_NAME = /^[A-Za-z0-9_.-]{3,255}$/;

/** The readers of most rows: the two Lambdas of the export and follow-up sides, and the CLI. */
export const ALL = ['export', 'follow-up', 'cli'] as const;
export const EXPORT = ['export', 'cli'] as const;
export const FOLLOW_UP = ['follow-up', 'cli'] as const;
/** The warehouse's location and projects: every function reads them. */
export const EVERYONE = ['export', 'follow-up', 'cli', 'insights', 'weekly-report'] as const;
