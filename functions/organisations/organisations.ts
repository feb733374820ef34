/**
 * Organisations as data (DESIGN "Many organisations in one deployment"): each one an id, a key
 * and its projects. The CLI reads them from `MINTLIFY_ORGS_FILE`; a deployment lists one
 * Secrets Manager secret per organisation (secrets.ts). Both end as the same `Organisation`.
 *
 * An organisation's lake is `<destination>/orgs/<id>/` with the single-organisation layout
 * inside; its ledger, leases and backlog live under `orgs/<id>/` of the shared store
 * (shared/storage/scoped-store.ts), so nothing one organisation spends or holds is another's.
 */
import { closeSync, fstatSync, openSync, readSync, constants as fsConstants } from 'node:fs';
import * as v from 'valibot';
import { ID_PATTERN, validateApiKey } from '../shared/validators.js';
import { ConfigError } from '../shared/errors.js';
import { folderOf } from '../warehouse/lake/layout.js';

/** An organisation id: lowercase letters, digits and `-`, 1–40 characters (it names a folder and a secret). */
export const ORGANISATION_ID_PATTERN = /^[a-z0-9-]{1,40}$/;

/** One organisation, its key resolved. */
export interface Organisation {
  readonly id: string;
  /** The admin key (`mint_…`). Never printed. */
  readonly apiKey: string;
  readonly projectIds: readonly string[];
}

/** `<base>/orgs/<id>`: an organisation's lake in a local folder or an `s3://bucket/prefix` destination. */
export function orgDestination(base: string, id: string): string {
  return `${base.replace(/\/+$/, '')}/${folderOf('organisation', id)}`;
}

const IdSchema = v.pipe(v.string('an id is a string'), v.regex(ORGANISATION_ID_PATTERN, 'an id is 1–40 lowercase letters, digits or -'));
const ProjectsSchema = v.pipe(
  v.array(v.pipe(v.string(), v.regex(ID_PATTERN, 'a project id is 1–128 letters, digits, _ or -')), 'projectIds is a list of project ids'),
  v.minLength(1, 'projectIds names at least one project'),
);

const FileEntrySchema = v.pipe(
  v.strictObject(
    {
      id: IdSchema,
      apiKeyEnv: v.optional(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'apiKeyEnv is the name of an environment variable'))),
      apiKey: v.optional(v.string('apiKey is a string')),
      projectIds: ProjectsSchema,
    },
    'an organisation has only id, apiKeyEnv or apiKey, and projectIds',
  ),
  v.check(
    (entry) => (entry.apiKey === undefined) !== (entry.apiKeyEnv === undefined),
    'give each organisation apiKeyEnv (or apiKey), not both and not neither',
  ),
);

const FileSchema = v.strictObject(
  { organisations: v.pipe(v.array(FileEntrySchema, 'organisations is a list'), v.minLength(1, 'organisations lists at least one organisation')) },
  'the file is {"organisations":[…]} and nothing else',
);

/** The secret of one organisation in a deployment: `{"apiKey","projectIds"}`. */
export const SecretSchema = v.strictObject(
  { apiKey: v.string('apiKey is a string'), projectIds: ProjectsSchema },
  'the secret is {"apiKey":"mint_…","projectIds":[…]} and nothing else',
);

/** The one line of a valibot failure: where (without any value, which may be a key) and what. */
export function issueLine(issues: readonly v.BaseIssue<unknown>[]): string {
  const issue = issues[0];
  if (!issue) return 'not valid';
  const path = (issue.path ?? []).map((item) => (typeof item.key === 'number' ? `[${item.key}]` : `.${String(item.key)}`)).join('');
  return `${path === '' ? '' : `${path.replace(/^\./, '')}: `}${issue.message}`;
}

/** The largest organisations file read (bytes): thousands of organisations fit; `/dev/zero` does not. */
export const ORGANISATIONS_FILE_MAX_BYTES = 1024 * 1024;

/**
 * Reads `file` if it is a regular file of at most {@link ORGANISATIONS_FILE_MAX_BYTES}: opened without
 * blocking (a FIFO never holds the read), checked on the open descriptor, and read to at most
 * one byte past the cap — a device or an endless file is refused at once, never read to its end.
 */
function readSmallRegularFile(file: string, source: string): { readonly text: string; readonly mode: number } {
  let fd: number;
  try {
    fd = openSync(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`${source} cannot be read (${code ?? 'error'}): point MINTLIFY_ORGS_FILE at the organisations file`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ConfigError(`${source} is not a regular file: point MINTLIFY_ORGS_FILE at the organisations file (JSON)`);
    if (stat.size > ORGANISATIONS_FILE_MAX_BYTES) throw tooLarge(source);
    const buffer = Buffer.alloc(ORGANISATIONS_FILE_MAX_BYTES + 1);
    let length = 0;
    for (;;) {
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
      if (length > ORGANISATIONS_FILE_MAX_BYTES) throw tooLarge(source);
    }
    return { text: buffer.subarray(0, length).toString('utf8'), mode: stat.mode };
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`${source} cannot be read (${code ?? 'error'}): point MINTLIFY_ORGS_FILE at the organisations file`);
  } finally {
    closeSync(fd);
  }
}

function tooLarge(source: string): ConfigError {
  return new ConfigError(`${source} is larger than 1 MB: an organisations file lists ids, key variables and project ids — split off what is not that`);
}

/** Whether a file's mode lets anyone but its owner read or write it. */
export function othersCanRead(mode: number): boolean {
  return (mode & 0o077) !== 0;
}

/**
 * Reads and checks `MINTLIFY_ORGS_FILE`: its organisations with their keys resolved from `env`
 * (`apiKeyEnv`) or inline (`apiKey`, only in a file no one but its owner can read).
 * @throws ConfigError with one line naming the file, the entry and the fix; a key is never in it.
 */
export function readOrganisationsFile(file: string, env: Readonly<Record<string, string | undefined>>): Organisation[] {
  const source = `MINTLIFY_ORGS_FILE ${file}`;
  const { text, mode } = readSmallRegularFile(file, source);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ConfigError(`${source} is not JSON: write {"organisations":[{"id":"acme","apiKeyEnv":"ACME_MINTLIFY_KEY","projectIds":["…"]}]}`);
  }
  const parsed = v.safeParse(FileSchema, json);
  if (!parsed.success) throw new ConfigError(`${source}: ${issueLine(parsed.issues)}`);
  const entries = parsed.output.organisations;
  const inline = entries.find((entry) => entry.apiKey !== undefined);
  if (inline && othersCanRead(mode)) {
    throw new ConfigError(
      `${source} holds an inline apiKey (organisation "${inline.id}") but others can read it (mode ${(mode & 0o777).toString(8).padStart(3, '0')}): chmod 600 it, or name an environment variable with apiKeyEnv`,
    );
  }
  const seen = new Map<string, string>();
  const keys = new Map<string, string>();
  return entries.map((entry) => {
    if (seen.has(entry.id)) throw new ConfigError(`${source}: organisation "${entry.id}" is listed twice: give each organisation one entry`);
    seen.set(entry.id, entry.id);
    const where = entry.apiKeyEnv === undefined ? `organisation "${entry.id}" apiKey` : entry.apiKeyEnv;
    const raw = entry.apiKey ?? env[entry.apiKeyEnv as string];
    if (raw === undefined || raw.trim() === '') {
      throw new ConfigError(`${where} is not set: export the admin key (mint_…) of organisation "${entry.id}" in it (MINTLIFY_ORGS_FILE names it)`);
    }
    const apiKey = validateApiKey(raw, where);
    // The service's budget is per organisation, that is per key: two entries with one key would be
    // two ledgers spending one budget.
    const twin = keys.get(apiKey);
    if (twin !== undefined) {
      throw new ConfigError(
        `${source}: organisations "${twin}" and "${entry.id}" use the same key: one key is one budget, so list its projects under one organisation`,
      );
    }
    keys.set(apiKey, entry.id);
    return Object.freeze({ id: entry.id, apiKey, projectIds: Object.freeze([...new Set(entry.projectIds)]) });
  });
}

/**
 * The organisations `ids` name (all of them when none is given), in the order given.
 * @throws ConfigError naming the first id the list does not have.
 */
export function selectOrganisations(all: readonly Organisation[], ids: readonly string[], source = '--org'): Organisation[] {
  if (ids.length === 0) return [...all];
  const byId = new Map(all.map((org) => [org.id, org]));
  return [...new Set(ids)].map((id) => {
    const org = byId.get(id);
    if (!org) {
      throw new ConfigError(
        `${source} ${JSON.stringify(id.slice(0, 40))} is not an organisation of MINTLIFY_ORGS_FILE: use one of ${all.map((o) => o.id).join(', ')}`,
      );
    }
    return org;
  });
}
