/**
 * The warehouse as synthesized: one Glue table per entry of tables.ts `TABLES` matching the
 * table contract of docs/design.md column for column, partition projection on `dt`, the saved
 * Athena queries, and the export's S3 grant (every dataset table, manifests, staging).
 */
import { Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as iam from 'aws-cdk-lib/aws-iam';
import { describe, expect, it } from 'vitest';
import { commentWithPolicy, policyLabel, resolvePolicy } from '../../functions/warehouse/column-policy.js';
import { ASSISTANT_CONVERSATIONS, EXPORT_RUNS, FEEDBACK, FEEDBACK_BY_PAGE, FOLLOWUP_OUTCOMES, SEARCHES, TABLES } from '../../functions/warehouse/tables.js';
import type { TableDef } from '../../functions/warehouse/table-def.js';
import { DATASET_TABLES } from '../../functions/warehouse/catalog.js';
import { SERVICE_NAMES } from '../../infra/constructs/lambda-defaults.js';
import { Warehouse, exportKeyPatterns } from '../../infra/constructs/warehouse.js';
import { CONTRACT_COLUMNS } from '../helpers/expected-rows.js';
import { CDK_JSON_CONTEXT, synthStack, withApp, rolePolicies, synthTemplate } from '../helpers/synth.js';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Action: string | string[]; Resource: unknown; Effect: string };

/** The Glue type of each DuckDB type the analytics contract uses. */
const GLUE_TYPE_OF: Readonly<Record<string, string>> = {
  VARCHAR: 'string',
  DATE: 'date',
  BIGINT: 'bigint',
  DOUBLE: 'double',
  BOOLEAN: 'boolean',
  TIMESTAMP: 'timestamp',
};

/**
 * docs/design.md's table contract, written out (the analytics tables in expected-rows.ts, the
 * others here) so that a drift in tables.ts fails this test.
 */
const CONTRACT: Readonly<Record<string, [string, string][]>> = {
  ...Object.fromEntries(
    Object.entries(CONTRACT_COLUMNS).map(([table, columns]) => [
      table,
      columns.map((column): [string, string] => [column.name, GLUE_TYPE_OF[column.type] ?? column.type]),
    ]),
  ),
  followup_outcomes: [
    ['request_id', 'string'],
    ['project_id', 'string'],
    ['job_id', 'string'],
    ['prompt_length', 'bigint'],
    ['prompt_sha256', 'string'],
    ['status', 'string'],
    ['pr_link', 'string'],
    ['sent_at', 'timestamp'],
    ['finished_at', 'timestamp'],
    ['polls', 'bigint'],
    ['attempts', 'bigint'],
    ['detail', 'string'],
    ['kind', 'string'],
    ['gap_id', 'string'],
    ['scope', 'string'],
    ['scope_reasons', 'string'],
    ['merged_at', 'timestamp'],
  ],
  export_runs: [
    ['run_id', 'string'],
    ['trigger', 'string'],
    ['started_at', 'timestamp'],
    ['finished_at', 'timestamp'],
    ['units_done', 'bigint'],
    ['units_partial', 'bigint'],
    ['units_failed', 'bigint'],
    ['units_skipped', 'bigint'],
    ['requests', 'bigint'],
    ['retries', 'bigint'],
    ['rate_limited', 'bigint'],
    ['budget_wait_ms', 'bigint'],
    ['backlog_requests', 'bigint'],
    ['failures', 'array<struct<dataset:string,project_id:string,date:string,error:string>>'],
    ['units_drift', 'bigint'],
    ['failed_requests', 'bigint'],
    [
      'iceberg_statements',
      'array<struct<kind:string,table_name:string,first_day:string,last_day:string,days:bigint,query_id:string,state:string,changed_rows:bigint,bytes_scanned:bigint,error:string>>',
    ],
  ],
  fix_effects: [
    ['gap_id', 'string'],
    ['project_id', 'string'],
    ['kind', 'string'],
    ['key', 'string'],
    ['job_id', 'string'],
    ['pr_link', 'string'],
    ['completed_day', 'date'],
    ['verdict', 'string'],
    ['reason', 'string'],
    ['before_days', 'bigint'],
    ['before_signals', 'bigint'],
    ['before_exposure', 'bigint'],
    ['before_rate', 'double'],
    ['after_days', 'bigint'],
    ['after_signals', 'bigint'],
    ['after_exposure', 'bigint'],
    ['after_rate', 'double'],
    ['control_gaps', 'bigint'],
    ['control_ratio', 'double'],
    ['effect_ratio', 'double'],
    ['effect_low', 'double'],
    ['effect_high', 'double'],
    ['judged_at', 'timestamp'],
  ],
};

/** Columns the contract says may be null (Glue has no nullability: this checks tables.ts). */
const NULLABLE: Readonly<Record<string, readonly string[]>> = {
  visitors_totals: ['unknown_fields'],
  visitors_pages: ['unknown_fields'],
  views_totals: ['unknown_fields'],
  views_pages: ['unknown_fields'],
  searches_totals: ['unknown_fields'],
  searches: ['top_clicked_page', 'last_searched_at', 'unknown_fields'],
  feedback: ['comment', 'created_at', 'helpful', 'contact', 'code', 'filename', 'lang', 'unknown_fields'],
  feedback_by_page: ['unknown_fields'],
  assistant_conversations: ['resolution_status', 'query_category', 'page_url', 'unknown_fields'],
  assistant_caller_stats: ['unknown_fields'],
  followup_outcomes: ['job_id', 'pr_link', 'sent_at', 'detail', 'kind', 'gap_id', 'scope', 'scope_reasons', 'merged_at'],
  fix_effects: ['kind', 'key', 'job_id', 'pr_link', 'control_ratio', 'effect_ratio', 'effect_low', 'effect_high'],
  export_runs: ['iceberg_statements'],
};

/** Columns of the contract the Glue table declares only with tableFormat=iceberg (test/infra/iceberg.test.ts checks them there). */
const ICEBERG_ONLY: Readonly<Record<string, readonly string[]>> = { export_runs: ['iceberg_statements'] };

const template = synthTemplate({ projectIds: 'proj_a' });

/** The one resource of `type` whose properties match `props` (fails otherwise). */
function only(tpl: Template, type: string, props: Record<string, unknown>): [string, Resource] {
  const found = Object.entries(tpl.findResources(type, { Properties: Match.objectLike(props) })) as [string, Resource][];
  expect(found, `${type} matching ${JSON.stringify(props)}`).toHaveLength(1);
  return found[0] as [string, Resource];
}

function glueTable(name: string): Record<string, any> {
  return only(template, 'AWS::Glue::Table', { TableInput: Match.objectLike({ Name: name }) })[1].Properties.TableInput;
}

/** Every statement of the policies attached to the role `roleRef` (a logical id). */
function statementsOfRole(tpl: Template, roleRef: string): Statement[] {
  return Object.values(rolePolicies(tpl) as Record<string, Resource>)
    .filter((policy) => (policy.Properties.Roles as { Ref: string }[]).some((role) => role.Ref === roleRef))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

/** The object-key suffixes (`/…/*`) `action` is allowed on, from statements whose resources are `Fn::Join`s or strings. */
function keysAllowed(statements: Statement[], action: string): string[] {
  const matches = (granted: string) => granted === action || (granted.endsWith('*') && action.startsWith(granted.slice(0, -1)));
  return statements
    .filter((statement) => statement.Effect === 'Allow' && [statement.Action].flat().some(matches))
    .flatMap((statement) => [statement.Resource].flat())
    .map((resource) => {
      const parts = typeof resource === 'string' ? [resource] : ((resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1] ?? []);
      const last = parts[parts.length - 1];
      // `<bucket ARN>/<key pattern>`: the bucket ARN itself (no slash) grants no key.
      return typeof last === 'string' && last.includes('/') ? last.slice(last.indexOf('/')) : '';
    })
    .filter((suffix) => suffix !== '');
}

const exportRoleRef = (() => {
  const [, fn] = only(template, 'AWS::Lambda::Function', {
    Environment: { Variables: Match.objectLike({ POWERTOOLS_SERVICE_NAME: SERVICE_NAMES.export }) },
  });
  return (fn.Properties.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
})();

describe('Glue tables', () => {
  it('has a contract entry for every table of tables.ts and a Glue table for each, nothing more', () => {
    const names = Object.values(template.findResources('AWS::Glue::Table') as Record<string, Resource>).map(
      (table) => table.Properties.TableInput.Name as string,
    );

    expect(TABLES.map((def) => def.name).sort()).toEqual(Object.keys(CONTRACT).sort());
    expect(names.sort()).toEqual(Object.keys(CONTRACT).sort());
  });

  it.each(TABLES.map((def) => [def.name, def] as const))('defines %s with the contract columns, in order, with Glue types', (name, def) => {
    const columns = glueTable(name).StorageDescriptor.Columns as { Name: string; Type: string; Comment: string }[];

    const icebergOnly = ICEBERG_ONLY[name] ?? [];
    const declared = def.columns.filter((column) => column.tableFormat === undefined);

    expect(def.columns.filter((column) => column.tableFormat === 'iceberg').map((column) => column.name)).toEqual(icebergOnly);
    expect(columns.map((column) => [column.Name, column.Type])).toEqual(CONTRACT[name]?.filter(([column]) => !icebergOnly.includes(column)));
    expect(columns.map((column) => column.Comment)).toEqual(declared.map((column) => `${column.comment} [${policyLabel(def, column, resolvePolicy({}))}]`));
  });

  it("names each column's personal-data policy in its comment", () => {
    const comment = (table: string, name: string) =>
      (glueTable(table).StorageDescriptor.Columns as { Name: string; Comment: string }[]).find((c) => c.Name === name)?.Comment;
    expect(comment('feedback', 'contact')).toMatch(/\[hmac, personal data\]$/);
    expect(comment('feedback', 'comment')).toMatch(/\[mask, personal data\]$/);
    expect(comment('searches', 'search_query')).toMatch(/\[mask, personal data\]$/);
    // Issue 42: page paths and URLs are cleaned (the `path` policy), and the catalog says so.
    expect(comment('visitors_pages', 'path')).toMatch(/\[path\]$/);
    expect(comment('assistant_conversations', 'page_url')).toMatch(/\[path\]$/);
    expect(comment('visitors_pages', 'human')).toMatch(/\[keep\]$/);
    expect(comment('feedback', 'unknown_fields')).toMatch(/\[mask\]$/);
  });

  it.each(TABLES.map((def) => [def.name, def] as const))('marks exactly the contract nullable columns of %s optional', (name, def) => {
    const optional = def.columns.filter((column) => column.optional === true).map((column) => column.name);

    expect(optional).toEqual(NULLABLE[name] ?? []);
  });

  it.each(TABLES.map((def) => [def.name, def] as const))('comments every column of %s in a few words Glue accepts', (_name, def) => {
    for (const column of def.columns) {
      expect(column.comment.length, column.name).toBeGreaterThan(5);
      expect(commentWithPolicy(def, column, resolvePolicy({})).length, column.name).toBeLessThanOrEqual(255);
    }
  });

  it.each(TABLES.map((def) => [def.name, def] as const))('projects the dt partitions of %s under its own prefix', (name, def) => {
    const input = glueTable(name);
    const [bucketId] = only(template, 'AWS::S3::Bucket', { VersioningConfiguration: { Status: 'Enabled' } });

    expect(input.PartitionKeys).toEqual([expect.objectContaining({ Name: 'dt', Type: 'string' })]);
    expect(input.Parameters).toMatchObject({
      'projection.enabled': 'true',
      'projection.dt.type': 'date',
      'projection.dt.format': 'yyyy-MM-dd',
      'projection.dt.range': '2020-01-01,NOW',
      'projection.dt.interval': '1',
      'projection.dt.interval.unit': 'DAYS',
      'storage.location.template': { 'Fn::Join': ['', ['s3://', { Ref: bucketId }, `/mintlify/${def.prefix}/dt=\${dt}/`]] },
    });
    expect(input.StorageDescriptor.Location).toEqual({ 'Fn::Join': ['', ['s3://', { Ref: bucketId }, `/mintlify/${def.prefix}/`]] });
  });

  it('starts the projection at the partitionProjectionStart context option, for every table', () => {
    const { template: older } = synthStack({ projectIds: 'proj_a', partitionProjectionStart: '2019-06-15' });
    const tables = Object.values(older.findResources('AWS::Glue::Table') as Record<string, Resource>);

    expect(tables).toHaveLength(TABLES.length);
    for (const table of tables) expect(table.Properties.TableInput.Parameters['projection.dt.range']).toBe('2019-06-15,NOW');
  });

  it.each(
    Object.values(DATASET_TABLES)
      .flat()
      .map((def) => [def.name] as const),
  )('reads %s as Parquet', (name) => {
    expect(glueTable(name).StorageDescriptor.SerdeInfo.SerializationLibrary).toBe('org.apache.hadoop.hive.ql.io.parquet.serde.ParquetHiveSerDe');
  });
});

describe('saved Athena queries', () => {
  const queries = Object.values(template.findResources('AWS::Athena::NamedQuery') as Record<string, Resource>).map((query) => query.Properties);
  const byName = (name: string) => {
    const found = queries.filter((query) => query.Name === name);
    expect(found, name).toHaveLength(1);
    return found[0] as Record<string, any>;
  };

  it('keeps the existing queries and adds three over searches, assistant and feedback and one over the run log', () => {
    expect(queries.map((query) => query.Name).sort()).toEqual(
      [
        "Yesterday's top pages",
        'Human vs AI visitors, last 30 days',
        'Follow-up outcomes by status',
        'Searches nobody clicked',
        'Unanswered assistant questions by category',
        'Pages with the most negative feedback',
        'Last 14 runs',
      ].sort(),
    );
  });

  it('lists the 14 latest export runs newest first with their unit counts, requests, 429s, budget wait, backlog and failures', () => {
    const sql = byName('Last 14 runs').QueryString as string;
    const shown = [
      'units_done',
      'units_partial',
      'units_failed',
      'units_skipped',
      'requests',
      'rate_limited',
      'budget_wait_ms',
      'backlog_requests',
      'failures',
    ];
    const select = sql.slice(0, sql.indexOf('FROM'));

    expect(sql).toContain(`FROM ${EXPORT_RUNS.name}\n`);
    expect(sql).toMatch(/ORDER BY started_at DESC\s+LIMIT 14;$/);
    expect(sql).toMatch(/WHERE dt >= date_format\(current_date - interval '\d+' day/);
    for (const column of shown) {
      expect(select, column).toMatch(new RegExp(`\\b${column}\\b`));
      expect(
        EXPORT_RUNS.columns.map((def) => def.name),
        column,
      ).toContain(column);
    }
  });

  it("finds searches nobody clicked: terms with no click on any day, by searches (the report's definition)", () => {
    const sql = byName('Searches nobody clicked').QueryString as string;

    expect(sql).toContain(`FROM ${SEARCHES.name}`);
    expect(sql).toMatch(/HAVING count\(top_clicked_page\) = 0/);
    expect(sql).toMatch(/WHERE dt >= date_format\(current_date - interval '\d+' day/);
    expect(sql).toMatch(/ORDER BY hits DESC/);
  });

  it('groups unanswered assistant questions by category with example queries', () => {
    const sql = byName('Unanswered assistant questions by category').QueryString as string;

    expect(sql).toContain(`FROM ${ASSISTANT_CONVERSATIONS.name}`);
    expect(sql).toContain("resolution_status = 'unanswered'");
    expect(sql).toMatch(/coalesce\(query_category, ''\)/);
    expect(sql).toMatch(/array_agg\(last_text ORDER BY n\) AS example_queries, array_agg\(times ORDER BY n\) AS example_counts/);
  });

  it('ranks pages by thumbs-down, with comments of not-helpful feedback, from every feedback item', () => {
    const sql = byName('Pages with the most negative feedback').QueryString as string;

    // feedback_by_page keeps at most 100 pages a day: summing it would undercount (issue 15).
    expect(sql).not.toContain(FEEDBACK_BY_PAGE.name);
    expect(sql).toContain(`FROM ${FEEDBACK.name}`);
    expect(sql).toContain('helpful = false');
    expect(sql).toMatch(/ORDER BY v\.thumbs_down DESC/);
  });

  it('runs every saved query in the warehouse database and workgroup', () => {
    const [workGroupId] = only(template, 'AWS::Athena::WorkGroup', { Name: 'mintlify-exporter' });
    const [databaseId] = only(template, 'AWS::Glue::Database', { DatabaseInput: Match.objectLike({ Name: 'mintlify_analytics' }) });
    for (const query of queries) {
      expect(query, query.Name).toMatchObject({ Database: { Ref: databaseId }, WorkGroup: { Ref: workGroupId } });
    }
  });
});

describe('export S3 grant', () => {
  const statements = statementsOfRole(template, exportRoleRef);
  const tablePrefixes = [...new Set(Object.values(DATASET_TABLES).flatMap((defs) => defs.map((def: TableDef) => def.prefix)))];

  it('lets the export write, read and delete checkpoints under _staging/*', () => {
    for (const action of ['s3:PutObject', 's3:GetObject', 's3:DeleteObject']) {
      expect(keysAllowed(statements, action), action).toContain('/mintlify/_staging/*');
    }
  });

  it('lets the export write and replace every dataset table and every dataset manifest', () => {
    const replaceable = [
      ...tablePrefixes.map((prefix) => `/mintlify/${prefix}/*`),
      '/mintlify/_manifests/*',
      '/mintlify/_staging/*',
      // Derived (issue 50): the index of units and the monthly roll-ups the export keeps.
      '/mintlify/_index/*',
      '/mintlify/_rollups/*',
    ];

    expect(keysAllowed(statements, 's3:DeleteObject').sort()).toEqual(replaceable.sort());
    // It also reads the erasure records (never writes or deletes them), the records of expired units (retention), and
    // its run records (folded into the run log's monthly index under _index/).
    expect(keysAllowed(statements, 's3:GetObject').sort()).toEqual(
      [...replaceable, `/mintlify/${EXPORT_RUNS.prefix}/*`, '/mintlify/_privacy/erasures/*', '/mintlify/_privacy/expired/*'].sort(),
    );
    expect(keysAllowed(statements, 's3:PutObject')).toEqual(expect.arrayContaining(replaceable));
  });

  it('lets the export put its run records under export_runs/* and read them back (the run log index), never delete them', () => {
    const runLog = `/mintlify/${EXPORT_RUNS.prefix}/*`;

    expect(keysAllowed(statements, 's3:PutObject').sort()).toEqual(
      [
        ...tablePrefixes.map((prefix) => `/mintlify/${prefix}/*`),
        '/mintlify/_manifests/*',
        '/mintlify/_staging/*',
        '/mintlify/_index/*',
        '/mintlify/_rollups/*',
        runLog,
        '/mintlify/_privacy/expired/*',
      ].sort(),
    );
    expect(keysAllowed(statements, 's3:GetObject')).toContain(runLog);
    expect(keysAllowed(statements, 's3:DeleteObject')).not.toContain(runLog);
  });

  it('gives the export nothing under the follow-up outcomes or the Athena results', () => {
    const text = JSON.stringify(statements);

    expect(text).not.toContain(`/${FOLLOWUP_OUTCOMES.prefix}/`);
    expect(text).not.toContain('athena-results');
  });

  it('scopes the grant to the app prefix of an existing bucket, and to the bucket root without a prefix', () => {
    const keysFor = (props: { bucketName?: string; prefix?: string }) =>
      withApp(CDK_JSON_CONTEXT, (app) => {
        const stack = new Stack(app, 'GrantTest');
        const warehouse = new Warehouse(stack, 'Warehouse', props);
        const role = new iam.Role(stack, 'Role', { assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com') });
        warehouse.grantExportReadWrite(role);
        const tpl = Template.fromStack(stack);
        const roleId = stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
        return keysAllowed(statementsOfRole(tpl, roleId), 's3:PutObject').sort();
      });

    const patterns = [...exportKeyPatterns(), `${EXPORT_RUNS.prefix}/*`, '_privacy/expired/*'];

    expect(keysFor({ bucketName: 'corp-data-lake', prefix: 'analytics/mintlify' })).toEqual(patterns.map((pattern) => `/analytics/mintlify/${pattern}`).sort());
    expect(keysFor({ prefix: '' })).toEqual(patterns.map((pattern) => `/${pattern}`).sort());
  });
});
