/**
 * The one place that reads the environment: `Config`, `loadConfig`, `CONFIG_DEFAULTS` and the
 * names infra may set on each function, derived from the one table of its variables (table.ts
 * `SETTINGS`, each row a variable's name, validator, default, range, docs line and readers; the
 * row machinery in setting.ts). docs/configuration.md's table is generated from it too
 * (`npm run docs`): adding a variable is one row.
 * Handlers and the CLI call `loadConfig(process.env)` (or `loadConfigFor(env, fn)`) once and
 * pass the typed, frozen result on; nothing else looks at `process.env`.
 *
 * An empty or blank variable counts as unset (`FOO= cmd` is a common way to "unset" in a
 * shell). Every problem is a `ConfigError` with one line that names the variable and says
 * what to do; the API key is never echoed.
 */
import { inspect } from 'node:util';
import { fail, type Setting, type SettingReader } from './setting.js';
import { SETTINGS } from './table.js';

/**
 * Variables the AWS SDK reads itself; the functions only look at whether they are set
 * (`AWS_ENDPOINT_URL_SQS` or `AWS_ENDPOINT_URL`: SQS calls go to that endpoint, not to the
 * host a queue URL names — the SDK prefers the queue URL's host unless told otherwise, and
 * emulators name hosts that do not resolve).
 */
export const SDK_ENV_NAMES = ['AWS_ENDPOINT_URL_SQS', 'AWS_ENDPOINT_URL'] as const;

type Table = typeof SETTINGS;
type Field = keyof Table;
type ValueOf<K extends Field> = ReturnType<Table[K]['parse']>;
type WithDefault = { [K in Field]: Table[K] extends { readonly default: string } ? K : never }[Field];
type ReadBy<R extends SettingReader> = { [K in Field]: R extends Table[K]['readBy'][number] ? K : never }[Field];
/** The fields function `R` refuses to start without (their `requiredIn` names it). */
export type RequiredIn<R extends SettingReader> = {
  [K in Field]: Table[K] extends { readonly requiredIn?: infer M } ? ([R] extends [keyof NonNullable<M>] ? K : never) : never;
}[Field];

/** What the table gives: a field per variable, present when it has a default or is set. */
type SettingValues = { readonly [K in WithDefault]: ValueOf<K> } & { readonly [K in Exclude<Field, WithDefault>]?: ValueOf<K> };

/** The whole configuration (what the CLI reads); see `SETTINGS` for each field's variable. */
export type Config = SettingValues & {
  /**
   * `ANALYTICS_BUDGET` is set (not blank): `budget` is what the user asked for, not the default.
   * The CLI's export against the embedded sandbox runs unpaced unless it is.
   */
  readonly budgetSet: boolean;
  /** An `SDK_ENV_NAMES` variable is set: SQS calls must go to that endpoint. */
  readonly sqsEndpointOverridden: boolean;
};

/** The part of the configuration function `R` reads: what its own variables give. */
export type ConfigOf<R extends SettingReader> = Pick<Config, ReadBy<R> | 'budgetSet' | 'sqsEndpointOverridden'>;

/** The name of every variable `loadConfig` reads. */
export type EnvName = Table[Field]['env'] | (typeof SDK_ENV_NAMES)[number];

/** The names of the variables function `R` reads: infra sets a Lambda's environment with these. */
export type EnvNameOf<R extends SettingReader> = Table[ReadBy<R>]['env'];

/** A function's environment as the infra writes it: only names function `R` reads. */
export type ConfigEnvironment<R extends SettingReader = SettingReader> = Partial<Record<EnvNameOf<R>, string>>;

/** Every default, as the variable would hold it (infra passes these to the functions). */
export const ENV_DEFAULTS = Object.freeze(Object.fromEntries(Object.values(SETTINGS).flatMap((s) => ('default' in s ? [[s.env, s.default]] : [])))) as {
  readonly [K in WithDefault as Table[K]['env']]: string;
};

/**
 * Every default, parsed: what a field is when its variable is unset. The schema, the infra
 * (which passes some of them to the functions, so a deploy without a context value gets
 * exactly what a local run gets) and the docs read them here.
 */
export const CONFIG_DEFAULTS = Object.freeze(
  Object.fromEntries(Object.entries(SETTINGS).flatMap(([field, s]) => ('default' in s ? [[field, (s.parse as (raw: string) => unknown)(s.default)]] : []))),
) as { readonly [K in WithDefault]: ValueOf<K> };

/**
 * Variables no longer read, with what replaces them: set, they stop the run with that line
 * rather than being ignored (a deployment that relied on one would silently get another
 * behaviour). docs/configuration.md lists them under "Retired".
 */
export const RETIRED_SETTINGS: Readonly<Record<string, string>> = {
  EXPORT_FEEDBACK_CONTACT:
    'EXPORT_FEEDBACK_CONTACT is retired: unset it and use PERSONAL_DATA_POLICY=feedback.contact=keep for true (addresses as sent), or nothing for the new default (a keyed hash), or feedback.contact=drop for the old false (null); see docs/privacy.md',
};

function parseSettings(env: Readonly<Record<string, string | undefined>>, fields: readonly Field[]): Record<string, unknown> {
  for (const [name, line] of Object.entries(RETIRED_SETTINGS)) if (env[name]?.trim()) fail(line);
  const values: Record<string, unknown> = {};
  for (const field of fields) {
    const s: Setting<unknown> = SETTINGS[field];
    // Blank counts as unset.
    const raw = env[s.env]?.trim() || s.default;
    if (raw !== undefined) values[field] = s.parse(raw);
  }
  values['budgetSet'] = Boolean(env[SETTINGS.budget.env]?.trim());
  values['sqsEndpointOverridden'] = SDK_ENV_NAMES.some((name) => Boolean(env[name]?.trim()));
  return values;
}

/**
 * Reads and validates the whole configuration from `env` (normally `process.env`): what the
 * CLI reads.
 * @throws ConfigError naming the first bad variable.
 */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): Config {
  return Object.freeze(hideKey(parseSettings(env, Object.keys(SETTINGS) as Field[]) as Config));
}

/**
 * Reads and validates only the variables function `reader` reads: a Lambda is not stopped by
 * a bad value of a variable it never uses.
 * @throws ConfigError naming the first bad variable.
 */
export function loadConfigFor<R extends SettingReader>(env: Readonly<Record<string, string | undefined>>, reader: R): ConfigOf<R> {
  const fields = (Object.keys(SETTINGS) as Field[]).filter((field) => (SETTINGS[field].readBy as readonly SettingReader[]).includes(reader));
  return Object.freeze(hideKey(parseSettings(env, fields) as Config)) as ConfigOf<R>;
}

/**
 * Checks that the settings function `reader`'s Lambda refuses to start without (the table's
 * `requiredIn`) are present in `config`, in the table's order, and returns `config` typed
 * with them present. `only` limits the check to some of them (a caller that can do without
 * the others, like a CLI command with a local folder).
 * @throws ConfigError "<NAME> is not set: <why>" for the first one missing.
 */
export function requireSettings<
  R extends SettingReader,
  C extends { readonly [K in RequiredIn<R>]?: unknown },
  F extends RequiredIn<R> & keyof C = RequiredIn<R> & keyof C,
>(config: C, reader: R, only?: readonly F[]): C & { readonly [K in F]-?: NonNullable<C[K]> } {
  for (const [field, s] of Object.entries(SETTINGS) as [Field, Setting<unknown, string, SettingReader, SettingReader>][]) {
    const why = (s.requiredIn as Partial<Record<SettingReader, string>> | undefined)?.[reader];
    if (why === undefined || (only !== undefined && !(only as readonly string[]).includes(field))) continue;
    const value = (config as Partial<Record<Field, unknown>>)[field];
    if (value === undefined || value === '') fail(`${s.env} is not set: ${why}`);
  }
  return config as C & { readonly [K in F]-?: NonNullable<C[K]> };
}

/**
 * Makes a logged config safe: `JSON.stringify` (which the Powertools logger uses) and
 * `util.inspect` (console.log) show `apiKey` as `[redacted]`. The helpers are non-enumerable,
 * so a spread copy (`{ ...config }`) keeps every field, the key included, but not the helpers.
 */
function hideKey<C extends { readonly apiKey?: string; readonly personalDataKey?: string; readonly githubToken?: string }>(config: C): C {
  const redacted = () => ({
    ...config,
    ...(config.githubToken !== undefined ? { githubToken: '[redacted]' } : {}),
    ...(config.apiKey !== undefined ? { apiKey: '[redacted]' } : {}),
    ...(config.personalDataKey !== undefined ? { personalDataKey: '[redacted]' } : {}),
  });
  Object.defineProperty(config, 'toJSON', { value: redacted, enumerable: false });
  Object.defineProperty(config, inspect.custom, { value: () => redacted(), enumerable: false });
  return config;
}
