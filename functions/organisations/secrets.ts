/**
 * A deployment's organisations: one Secrets Manager secret each, named `<prefix><id>` and holding
 * `{"apiKey":"mint_…","projectIds":[…]}`. The dispatcher lists their names at each run (no value
 * is read: it holds no key), the worker reads its one organisation's secret, fresh for each
 * message — so adding, removing or rotating an organisation is a change of secrets, never a deploy.
 */
import { GetSecretValueCommand, ListSecretsCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as v from 'valibot';
import { validateApiKey } from '../shared/validators.js';
import { ConfigError } from '../shared/errors.js';
import { issueLine, ORGANISATION_ID_PATTERN, SecretSchema, type Organisation } from './organisations.js';

export interface OrganisationList {
  /** Organisation ids, sorted. */
  readonly ids: readonly string[];
  /** Secrets under the prefix whose name is not `<prefix><id>` with a valid id: each with why. */
  readonly refused: readonly { readonly name: string; readonly reason: string }[];
}

export interface OrganisationSecrets {
  /** Every organisation whose secret is under the prefix now (ListSecrets, every page). */
  list(): Promise<OrganisationList>;
  /** Organisation `id`'s key and projects, read now. @throws ConfigError naming the secret (never its value). */
  read(id: string): Promise<Organisation>;
}

/** The organisations under `prefix` in Secrets Manager (`client`: ListSecrets, GetSecretValue). */
export function createOrganisationSecrets(client: Pick<SecretsManagerClient, 'send'>, prefix: string): OrganisationSecrets {
  return {
    async list() {
      const ids: string[] = [];
      const refused: { name: string; reason: string }[] = [];
      let NextToken: string | undefined;
      do {
        // The name filter is a prefix match; the check below keeps exactly the prefix's names.
        const page = await client.send(
          new ListSecretsCommand({ Filters: [{ Key: 'name', Values: [prefix] }], MaxResults: 100, ...(NextToken ? { NextToken } : {}) }),
        );
        for (const secret of page.SecretList ?? []) {
          const name = secret.Name ?? '';
          if (!name.startsWith(prefix)) continue;
          const id = name.slice(prefix.length);
          if (ORGANISATION_ID_PATTERN.test(id)) ids.push(id);
          else
            refused.push({
              name,
              reason: `"${id.slice(0, 60)}" is not an organisation id: name the secret ${prefix}<id> with 1–40 lowercase letters, digits or -`,
            });
        }
        NextToken = page.NextToken;
      } while (NextToken);
      return { ids: [...new Set(ids)].sort(), refused };
    },

    async read(id) {
      const name = `${prefix}${id}`;
      const answer = await client.send(new GetSecretValueCommand({ SecretId: name }));
      let json: unknown;
      try {
        json = JSON.parse(answer.SecretString ?? '');
      } catch {
        throw new ConfigError(`secret ${name} is not JSON: put {"apiKey":"mint_…","projectIds":["…"]} in it`);
      }
      const parsed = v.safeParse(SecretSchema, json);
      if (!parsed.success) throw new ConfigError(`secret ${name}: ${issueLine(parsed.issues)}`);
      return { id, apiKey: validateApiKey(parsed.output.apiKey, `secret ${name} apiKey`), projectIds: [...new Set(parsed.output.projectIds)] };
    },
  };
}
