/**
 * The export registers each committed day in Glue (functions/warehouse/partitions.ts): the
 * template gives its function the database's name (`EXPORT_GLUE_DATABASE`), and its role — as
 * the IAM policy engine reads the template (test/helpers/iam.ts) — may create partitions of the
 * stack's dataset tables and its run log (export_runs) only: not of another table of the database, not of another database,
 * and no other Glue action; no Glue statement names a wildcard. The follow-up function registers
 * its outcomes' days the same way, on followup_outcomes only; the weekly report its verdicts'
 * days, on fix_effects only.
 */
import { describe, expect, it } from 'vitest';
import { DATASET_TABLES } from '../../functions/warehouse/catalog.js';
import { EXPORT_RUNS, FIX_EFFECTS, FOLLOWUP_OUTCOMES } from '../../functions/warehouse/tables.js';
import { evaluateCall, resolver, rolePolicies, TEST_ACCOUNT, type IamCall } from '../helpers/iam.js';
import { TEST_REGION } from '../../scripts/lib/s3-sqs.js';
import { synthTemplate } from '../helpers/synth.js';

const template = synthTemplate({ projectIds: 'proj_a' });
const resources = template.toJSON()['Resources'] as Record<string, { Type: string; Properties: Record<string, unknown> }>;
const DATABASE = 'mintlify_analytics';

// Glue names as the template gives them (a Ref of a database or table is its name).
const names: Record<string, string> = {};
for (const [id, resource] of Object.entries(resources)) {
  if (resource.Type === 'AWS::Glue::Database') names[id] = String((resource.Properties['DatabaseInput'] as { Name: string }).Name);
  if (resource.Type === 'AWS::Glue::Table') names[id] = String((resource.Properties['TableInput'] as { Name: string }).Name);
}
const { resolve } = resolver(resources, names);
const exportFunction = Object.values(resources).find(
  (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties['Description']).startsWith('Hourly export'),
);
if (!exportFunction) throw new Error('the template has no export function');
const role = rolePolicies(resources, String(exportFunction.Properties['Description']), resolve);

const followUpFunction = Object.values(resources).find(
  (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties['Description']).startsWith('Sends queued follow-up prompts'),
);
if (!followUpFunction) throw new Error('the template has no follow-up function');
const followUpRole = rolePolicies(resources, String(followUpFunction.Properties['Description']), resolve);

const weeklyFunction = Object.values(resources).find(
  (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties['Description']).startsWith('Weekly: the report'),
);
if (!weeklyFunction) throw new Error('the template has no weekly report function');
const weeklyRole = rolePolicies(resources, String(weeklyFunction.Properties['Description']), resolve);

const glueArn = (rest: string) => `arn:aws:glue:${TEST_REGION}:${TEST_ACCOUNT}:${rest}`;
/** The resources Glue authorizes a table-level call on: the catalog, the database and the table. */
const onTable = (action: string, database: string, table: string): IamCall[] =>
  [glueArn('catalog'), glueArn(`database/${database}`), glueArn(`table/${database}/${table}`)].map((resource) => ({ action, resource, context: {} }));

async function allowed(calls: IamCall[], of: typeof role = role): Promise<boolean> {
  for (const call of calls) if ((await evaluateCall(call, of.roleArn, of.policies, undefined)) !== 'Allowed') return false;
  return true;
}

const DATASET_TABLE_NAMES = [...new Set(Object.values(DATASET_TABLES).flatMap((defs) => defs.map((def) => def.name)))];

describe("the export's Glue partitions in the template", () => {
  it("names the stack's database in the export function's environment", () => {
    const env = (exportFunction.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;

    expect(resolve(env['EXPORT_GLUE_DATABASE'])).toBe(DATABASE);
  });

  it('lets the export create partitions of each dataset table of the stack and of its run log (and read the table)', async () => {
    expect(DATASET_TABLE_NAMES.length).toBeGreaterThan(5);
    for (const table of [...DATASET_TABLE_NAMES, EXPORT_RUNS.name]) {
      expect(await allowed(onTable('glue:BatchCreatePartition', DATABASE, table)), table).toBe(true);
      expect(await allowed(onTable('glue:GetTable', DATABASE, table)), table).toBe(true);
    }
  });

  it("does not let it create partitions of the database's other tables, another database's, or do anything else in Glue", async () => {
    for (const table of [FOLLOWUP_OUTCOMES.name, FIX_EFFECTS.name]) {
      expect(await allowed(onTable('glue:BatchCreatePartition', DATABASE, table)), table).toBe(false);
    }
    expect(await allowed(onTable('glue:BatchCreatePartition', 'other_database', 'visitors_pages'))).toBe(false);
    for (const action of ['glue:DeletePartition', 'glue:UpdateTable', 'glue:DeleteTable', 'glue:CreatePartition', 'glue:GetPartitions']) {
      expect(await allowed(onTable(action, DATABASE, 'visitors_pages')), action).toBe(false);
    }
  });

  it('names every Glue resource exactly: no wildcard in a Glue statement', () => {
    const glue = role.policies.flatMap(({ policy }) => policy.Statement).filter((s) => [s.Action].flat().some((a) => String(a).startsWith('glue:')));

    expect(glue.length).toBeGreaterThan(0);
    for (const statement of glue) {
      expect([statement.Action].flat().join()).not.toContain('*');
      expect(
        [statement.Resource]
          .flat()
          .map((r) => String(r))
          .join(),
      ).not.toContain('*');
    }
  });
});

describe("the follow-up function's Glue partitions in the template (one organisation)", () => {
  it("names the stack's database in its environment", () => {
    const env = (followUpFunction.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;

    expect(resolve(env['EXPORT_GLUE_DATABASE'])).toBe(DATABASE);
  });

  it('lets it create partitions of followup_outcomes only', async () => {
    expect(await allowed(onTable('glue:BatchCreatePartition', DATABASE, FOLLOWUP_OUTCOMES.name), followUpRole)).toBe(true);
    expect(await allowed(onTable('glue:GetTable', DATABASE, FOLLOWUP_OUTCOMES.name), followUpRole)).toBe(true);
    for (const table of [...DATASET_TABLE_NAMES, EXPORT_RUNS.name, FIX_EFFECTS.name])
      expect(await allowed(onTable('glue:BatchCreatePartition', DATABASE, table), followUpRole), table).toBe(false);
    expect(await allowed(onTable('glue:BatchCreatePartition', 'other_database', FOLLOWUP_OUTCOMES.name), followUpRole)).toBe(false);
    expect(await allowed(onTable('glue:DeletePartition', DATABASE, FOLLOWUP_OUTCOMES.name), followUpRole)).toBe(false);
  });
});

describe("the weekly report's Glue partitions in the template", () => {
  it("names the stack's database in its environment", () => {
    const env = (weeklyFunction.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;

    expect(resolve(env['EXPORT_GLUE_DATABASE'])).toBe(DATABASE);
  });

  it('lets it create partitions of fix_effects only', async () => {
    expect(await allowed(onTable('glue:BatchCreatePartition', DATABASE, FIX_EFFECTS.name), weeklyRole)).toBe(true);
    expect(await allowed(onTable('glue:GetTable', DATABASE, FIX_EFFECTS.name), weeklyRole)).toBe(true);
    for (const table of [...DATASET_TABLE_NAMES, EXPORT_RUNS.name, FOLLOWUP_OUTCOMES.name])
      expect(await allowed(onTable('glue:BatchCreatePartition', DATABASE, table), weeklyRole), table).toBe(false);
    expect(await allowed(onTable('glue:BatchCreatePartition', 'other_database', FIX_EFFECTS.name), weeklyRole)).toBe(false);
    expect(await allowed(onTable('glue:DeletePartition', DATABASE, FIX_EFFECTS.name), weeklyRole)).toBe(false);
  });
});
