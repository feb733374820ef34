/**
 * Role: IAM in the bundle tests. The emulators check no permission, so a missing grant would
 * pass every test and fail in AWS. `startIamGuard` puts a loopback proxy in front of each
 * emulator a bundle talks to (S3, SQS, SNS, DynamoDB, Secrets Manager, Glue, Athena); every request is mapped
 * to its IAM action, resource ARN and condition keys and evaluated, with a real policy engine
 * (`@cloud-copilot/iam-simulate`, strict mode), against the synthesized template's policies of
 * that function's role and the resource's own policy (bucket, topic, queue, secret). An allowed
 * request is forwarded unchanged; a denied one is answered as AWS answers it (AccessDenied,
 * naming the action and resource) and recorded in `denied`, so a test fails naming the call.
 * A request the guard cannot map is denied too: nothing passes unchecked. A read of a missing
 * key is answered as S3 answers it: 404 only when the role may list that key's prefix
 * (`s3:ListBucket` with `s3:prefix` = the key), 403 AccessDenied otherwise.
 *
 * What it does not model: KMS (the emulators encrypt nothing, so `kms:*` of an encrypted topic
 * is never asked), service control and permission-boundary policies (the stack has none),
 * VPC endpoints, and the Lambda service's own calls (CloudWatch Logs, the event source's
 * ReceiveMessage/DeleteMessage, which the bundle does not make itself). Condition keys set:
 * `aws:SecureTransport` (true: in AWS every call is HTTPS), `aws:PrincipalArn`, `s3:prefix`
 * and `s3:delimiter` (listing), `dynamodb:LeadingKeys` (the partition key of each item a
 * request names; a Scan names none). Athena authorizes a call on a query against the query's
 * workgroup: the guard learns it from the StartQueryExecution it let through (a query it did
 * not see started is denied). What Athena then does with the caller's rights — read Glue and
 * S3, write the Iceberg tables — is not proxied (test/infra/iceberg.test.ts evaluates those).
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { runSimulation } from '@cloud-copilot/iam-simulate';
import { TEST_REGION } from '../../scripts/lib/s3-sqs.js';

/** The account of every ARN in the tests: fauxqs's own (its queue and topic ARNs name it). */
export const TEST_ACCOUNT = '000000000000';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Resources = Record<string, Resource>;
export type PolicyDocument = { Version?: string; Statement: PolicyStatement[] };
export type PolicyStatement = {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: string | string[];
  Principal?: unknown;
  Condition?: Record<string, Record<string, string | string[]>>;
};

/** The services a guard can stand in front of, by the SDK's `AWS_ENDPOINT_URL_<SERVICE>` name. */
export type GuardedService = 'S3' | 'SQS' | 'SNS' | 'DYNAMODB' | 'SECRETS_MANAGER' | 'GLUE' | 'ATHENA';

/** One request as IAM sees it. */
export interface IamCall {
  readonly action: string;
  readonly resource: string;
  readonly context: Readonly<Record<string, string | string[]>>;
}

/**
 * Bindings of the template's resources to the emulators' ones, learned from the function's
 * environment: a variable the template builds from `Ref`s (e.g. `s3://${Ref Bucket}/mintlify`)
 * and the value the test gives it (`s3://bucket-123/mintlify`) tell what each `Ref` stands for.
 */
export function bindingsFromEnvironment(resources: Resources, fn: Resource, values: Record<string, string>): Record<string, string> {
  const variables = (fn.Properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
  const bindings: Record<string, string> = {};
  for (const [name, token] of Object.entries(variables)) {
    const value = values[name];
    if (typeof token === 'string' || value === undefined) continue;
    const parts = joinParts(token);
    if (parts === undefined) continue;
    const refs = parts.filter((part): part is { Ref: string } => typeof part === 'object' && part !== null && 'Ref' in part);
    if (refs.length !== 1) continue;
    const index = parts.indexOf(refs[0]!);
    const before = parts.slice(0, index).join('');
    const after = parts.slice(index + 1).join('');
    if (parts.some((part, i) => i !== index && typeof part !== 'string')) continue;
    if (!value.startsWith(before) || !value.endsWith(after)) throw new Error(`${name}: "${value}" does not fit its template value ${JSON.stringify(token)}`);
    const logicalId = refs[0]!.Ref;
    if (!(logicalId in resources)) continue;
    bindings[logicalId] = value.slice(before.length, value.length - after.length);
  }
  return bindings;
}

function joinParts(token: unknown): unknown[] | undefined {
  if (typeof token !== 'object' || token === null) return undefined;
  if ('Ref' in token) return [token];
  const join = (token as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join'];
  if (join && join[0] === '') return join[1];
  return undefined;
}

/** Resolves the template's intrinsic functions to the test's names and ARNs. */
export function resolver(resources: Resources, bindings: Record<string, string>) {
  const arn = (service: string, rest: string) => `arn:aws:${service}:${TEST_REGION}:${TEST_ACCOUNT}:${rest}`;
  function ref(logicalId: string): string {
    const pseudo: Record<string, string> = {
      'AWS::Partition': 'aws',
      'AWS::Region': TEST_REGION,
      'AWS::AccountId': TEST_ACCOUNT,
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': 'MintlifyExporter',
    };
    if (logicalId in pseudo) return pseudo[logicalId]!;
    const bound = bindings[logicalId];
    if (bound !== undefined) return bound;
    // Unbound: a name that matches nothing the emulators hold.
    const type = resources[logicalId]?.Type;
    if (type === 'AWS::SNS::Topic') return arn('sns', `unbound-${logicalId}`);
    if (type === 'AWS::SecretsManager::Secret') return arn('secretsmanager', `secret:unbound-${logicalId}`);
    if (type === 'AWS::SQS::Queue') return `http://127.0.0.1/${TEST_ACCOUNT}/unbound-${logicalId}`;
    return `unbound-${logicalId.toLowerCase()}`;
  }
  function getAtt(logicalId: string, attribute: string): string {
    const type = resources[logicalId]?.Type;
    const name = ref(logicalId);
    if (type === 'AWS::S3::Bucket' && attribute === 'Arn') return `arn:aws:s3:::${name}`;
    if (type === 'AWS::DynamoDB::Table' && attribute === 'Arn') return arn('dynamodb', `table/${name}`);
    if (type === 'AWS::SQS::Queue' && attribute === 'Arn') return arn('sqs', name.slice(name.lastIndexOf('/') + 1));
    if (type === 'AWS::SQS::Queue' && attribute === 'QueueName') return name.slice(name.lastIndexOf('/') + 1);
    if (type === 'AWS::SNS::Topic' && attribute === 'TopicArn') return name;
    if (type === 'AWS::KMS::Key' && attribute === 'Arn') return arn('kms', `key/${logicalId}`);
    if (type === 'AWS::IAM::Role' && attribute === 'Arn') return `arn:aws:iam::${TEST_ACCOUNT}:role/${logicalId}`;
    if (type === 'AWS::CloudFront::Distribution' && attribute === 'Id') return `DIST${logicalId.slice(0, 8).toUpperCase()}`;
    return `arn:aws:unresolved:${TEST_REGION}:${TEST_ACCOUNT}:${logicalId}/${attribute}`;
  }
  function resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(resolve);
    if (typeof value !== 'object' || value === null) return value;
    const entries = Object.entries(value);
    if (entries.length === 1) {
      const [key, arg] = entries[0]!;
      if (key === 'Ref') return ref(String(arg));
      if (key === 'Fn::GetAtt') {
        const [logicalId, attribute] = Array.isArray(arg) ? arg : String(arg).split('.');
        return getAtt(String(logicalId), String(attribute));
      }
      if (key === 'Fn::Join') {
        const [separator, parts] = arg as [string, unknown[]];
        return (resolve(parts) as unknown[]).map(String).join(separator);
      }
      if (key === 'Fn::Sub') {
        const text = Array.isArray(arg) ? String(arg[0]) : String(arg);
        return text.replace(/\$\{([^}]+)\}/g, (_, name: string) => (name.includes('.') ? getAtt(...(name.split('.') as [string, string])) : ref(name)));
      }
      if (key.startsWith('Fn::')) throw new Error(`iam guard: ${key} in a policy is not resolved`);
    }
    return Object.fromEntries(entries.map(([key, inner]) => [key, resolve(inner)]));
  }
  return { resolve, ref, getAtt };
}

/** The role of the function described `description` and its policies, as the template grants them. */
export function rolePolicies(resources: Resources, description: string, resolve: (value: unknown) => unknown) {
  const [, fn] = functionEntry(resources, description);
  const roleId = ((fn.Properties['Role'] as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'] ?? [])[0];
  if (roleId === undefined) throw new Error(`${description}: its role is not a role of the stack`);
  const role = resources[roleId]!;
  const policies: { name: string; policy: PolicyDocument }[] = [];
  for (const inline of (role.Properties['Policies'] as { PolicyName: string; PolicyDocument: unknown }[] | undefined) ?? []) {
    policies.push({ name: inline.PolicyName, policy: resolve(inline.PolicyDocument) as PolicyDocument });
  }
  if (((role.Properties['ManagedPolicyArns'] as unknown[] | undefined) ?? []).length > 0) {
    throw new Error(`${description}: its role has managed policies, which the guard cannot read`);
  }
  for (const [id, resource] of Object.entries(resources)) {
    // CDK moves what does not fit the role's inline policy (10,240 characters) to a managed policy attached to the role (its overflow policy).
    if (resource.Type !== 'AWS::IAM::Policy' && resource.Type !== 'AWS::IAM::ManagedPolicy') continue;
    const roles = (resource.Properties['Roles'] as { Ref?: string }[] | undefined) ?? [];
    if (roles.some((r) => r.Ref === roleId)) policies.push({ name: id, policy: resolve(resource.Properties['PolicyDocument']) as PolicyDocument });
  }
  return { roleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/${roleId}`, roleId, policies, fn };
}

function functionEntry(resources: Resources, description: string): [string, Resource] {
  const found = Object.entries(resources).find(
    ([, resource]) => resource.Type === 'AWS::Lambda::Function' && String(resource.Properties['Description'] ?? '').startsWith(description),
  );
  if (!found) throw new Error(`no function described "${description}…"`);
  return found;
}

/** The resource policies of the template, by the ARN (or bucket name) of the resource they guard. */
function resourcePolicies(resources: Resources, resolve: (value: unknown) => unknown): Map<string, PolicyDocument> {
  const byResource = new Map<string, PolicyDocument>();
  const add = (key: string, document: unknown) => {
    const policy = resolve(document) as PolicyDocument;
    const existing = byResource.get(key);
    byResource.set(key, existing ? { ...existing, Statement: [...existing.Statement, ...policy.Statement] } : policy);
  };
  for (const resource of Object.values(resources)) {
    const p = resource.Properties;
    if (resource.Type === 'AWS::S3::BucketPolicy') add(`arn:aws:s3:::${resolve(p['Bucket'])}`, p['PolicyDocument']);
    if (resource.Type === 'AWS::SNS::TopicPolicy') for (const topic of p['Topics'] as unknown[]) add(String(resolve(topic)), p['PolicyDocument']);
    if (resource.Type === 'AWS::SQS::QueuePolicy') for (const queue of p['Queues'] as unknown[]) add(queueArn(String(resolve(queue))), p['PolicyDocument']);
    if (resource.Type === 'AWS::SecretsManager::ResourcePolicy') add(String(resolve(p['SecretId'])), p['ResourcePolicy']);
  }
  return byResource;
}

function queueArn(queueUrl: string): string {
  if (queueUrl.startsWith('arn:')) return queueUrl;
  return `arn:aws:sqs:${TEST_REGION}:${TEST_ACCOUNT}:${queueUrl.slice(queueUrl.lastIndexOf('/') + 1)}`;
}

/** A grant a test takes away: `action` on every resource matching `resource`. */
export interface Revocation {
  readonly action: string;
  readonly resource: RegExp;
}

/** `statements` without `revoke.action` on the resources `revoke.resource` matches (other actions and resources stay). */
export function revoked(statements: readonly PolicyStatement[], revoke: Revocation): PolicyStatement[] {
  return statements.flatMap((statement) => {
    const actions = [statement.Action].flat();
    const resources = [statement.Resource ?? []].flat();
    if (statement.Effect !== 'Allow' || !actions.includes(revoke.action) || !resources.some((r) => revoke.resource.test(r))) return [statement];
    const rest = actions.filter((a) => a !== revoke.action);
    const kept = resources.filter((r) => !revoke.resource.test(r));
    return [
      ...(rest.length > 0 ? [{ ...statement, Action: rest }] : []),
      ...(kept.length > 0 ? [{ ...statement, Action: [revoke.action], Resource: kept }] : []),
    ];
  });
}

export interface IamGuard {
  /** `AWS_ENDPOINT_URL_<SERVICE>` of each guarded service: the proxies to give the bundle. */
  readonly env: Record<string, string>;
  /** Every call evaluated, `action on resource`, in order. */
  readonly calls: string[];
  /** The calls refused, `action on resource`, in order. */
  readonly denied: string[];
  close(): Promise<void>;
}

export interface IamGuardOptions {
  readonly resources: Resources;
  /** The function's description (its start), as the template has it. */
  readonly description: string;
  /** The test's values of the function's variables that the template builds from resources. */
  readonly values: Record<string, string>;
  /** Where each service really is (the emulators). */
  readonly upstreams: Partial<Record<GuardedService, string>>;
  /** The state table's partition key attribute. @default 'pk' */
  readonly partitionKey?: string;
  /** Resources no variable names (e.g. the queue of an event source), by logical id: their names. */
  readonly bind?: Record<string, string>;
  /** A grant to take away from the role (a test showing what fails without it). */
  readonly revoke?: Revocation;
}

/** Evaluates one call against a role's policies and the resource's policy. */
export async function evaluateCall(
  call: IamCall,
  roleArn: string,
  policies: readonly { name: string; policy: PolicyDocument }[],
  resourcePolicy: PolicyDocument | undefined,
): Promise<'Allowed' | string> {
  const result = await runSimulation(
    {
      request: {
        principal: roleArn,
        action: call.action,
        resource: { resource: call.resource, accountId: TEST_ACCOUNT },
        contextVariables: { 'aws:SecureTransport': 'true', 'aws:PrincipalArn': roleArn, 'aws:PrincipalAccount': TEST_ACCOUNT, ...call.context },
      },
      identityPolicies: policies.map(({ name, policy }) => ({ name, policy })),
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy } : {}),
    },
    { simulationMode: 'Strict' },
  );
  if (result.resultType === 'error') throw new Error(`iam guard: the simulation of ${call.action} on ${call.resource} failed: ${result.errors.message}`);
  return result.overallResult;
}

export async function startIamGuard(options: IamGuardOptions): Promise<IamGuard> {
  const { resources } = options;
  const [, fn] = functionEntry(resources, options.description);
  const bindings = { ...bindingsFromEnvironment(resources, fn, options.values), ...options.bind };
  const { resolve } = resolver(resources, bindings);
  const role = rolePolicies(resources, options.description, resolve);
  const revoke = options.revoke;
  const policies = revoke
    ? role.policies.map(({ name, policy }) => ({ name, policy: { ...policy, Statement: revoked(policy.Statement, revoke) } }))
    : role.policies;
  const byResource = resourcePolicies(resources, resolve);
  const partitionKey = options.partitionKey ?? 'pk';
  const calls: string[] = [];
  const denied: string[] = [];
  const servers: Server[] = [];
  /** Athena: the workgroup of each query the guard let start. */
  const workgroups = new Map<string, string>();
  const env: Record<string, string> = {};

  for (const [service, upstream] of Object.entries(options.upstreams) as [GuardedService, string][]) {
    const server = createServer((incoming, outgoing) => {
      void handle(service, upstream, incoming, outgoing).catch((error: unknown) => {
        outgoing.statusCode = 500;
        outgoing.end(String(error));
      });
    });
    server.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    env[`AWS_ENDPOINT_URL_${service}`] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async function handle(service: GuardedService, upstream: string, incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const url = new URL(incoming.url ?? '/', 'http://guard');
    let mapped: IamCall[];
    try {
      mapped = mapRequest(service, incoming.method ?? 'GET', url, incoming.headers, body, partitionKey, workgroups);
    } catch (error) {
      mapped = [
        { action: `${service.toLowerCase()}:Unmapped`, resource: `${incoming.method} ${url.pathname}${url.search} (${(error as Error).message})`, context: {} },
      ];
    }
    for (const call of mapped) {
      const named = `${call.action} on ${call.resource}`;
      calls.push(named);
      const outcome = call.action.endsWith(':Unmapped') ? 'Denied' : await evaluateCall(call, role.roleArn, policies, resourcePolicyOf(call.resource));
      if (outcome !== 'Allowed') {
        denied.push(named);
        return refuse(
          service,
          outgoing,
          `User: ${role.roleArn} is not authorized to perform: ${call.action} on resource: ${call.resource} (iam guard: ${outcome})`,
        );
      }
    }
    // S3 answers a read of a missing key 404 only to a caller that may list it (s3:ListBucket,
    // evaluated with s3:prefix = the key), 403 AccessDenied to everyone else.
    const read = mapped.length === 1 && mapped[0]?.action === 's3:GetObject' ? mapped[0] : undefined;
    const started = mapped.length === 1 && mapped[0]?.action === 'athena:StartQueryExecution' ? mapped[0] : undefined;
    const answer = await forward(upstream, incoming, body, outgoing, async () => {
      if (!read) return true;
      const key = read.resource.slice('arn:aws:s3:::'.length);
      const bucket = key.split('/')[0] ?? '';
      const listing: IamCall = { action: 's3:ListBucket', resource: `arn:aws:s3:::${bucket}`, context: { 's3:prefix': key.slice(bucket.length + 1) } };
      const named = `${listing.action} on ${listing.resource} (s3:prefix ${listing.context['s3:prefix']}: the 404 of a missing key)`;
      calls.push(named);
      if ((await evaluateCall(listing, role.roleArn, policies, resourcePolicyOf(listing.resource))) === 'Allowed') return true;
      denied.push(named);
      refuse(
        service,
        outgoing,
        `User: ${role.roleArn} is not authorized to perform: s3:ListBucket on resource: ${listing.resource} (a missing key reads as AccessDenied; iam guard)`,
      );
      return false;
    });
    if (started !== undefined) {
      const id = (JSON.parse(answer.toString('utf8') || '{}') as { QueryExecutionId?: unknown }).QueryExecutionId;
      if (typeof id === 'string') workgroups.set(id, started.resource);
    }
  }

  function resourcePolicyOf(resource: string): PolicyDocument | undefined {
    if (resource.startsWith('arn:aws:s3:::')) return byResource.get(`arn:aws:s3:::${resource.slice(13).split('/')[0]}`);
    return byResource.get(resource);
  }

  return {
    env,
    calls,
    denied,
    close: () => Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve())))).then(() => undefined),
  };
}

/**
 * Forwards the request; an upstream 404 is passed on only when `onNotFound` says so (it answered
 * otherwise). Resolves to the body passed on.
 */
async function forward(
  upstream: string,
  incoming: IncomingMessage,
  body: Buffer,
  outgoing: ServerResponse,
  onNotFound: () => Promise<boolean> = async () => true,
): Promise<Buffer> {
  const target = new URL(upstream);
  const chunks: Buffer[] = [];
  await new Promise<void>((resolve, reject) => {
    const proxied = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host },
      },
      (answer) => {
        const pass = () => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.on('data', (chunk: Buffer) => chunks.push(chunk));
          answer.pipe(outgoing);
          answer.on('end', resolve);
          answer.on('error', reject);
        };
        if (answer.statusCode !== 404) return pass();
        answer.pause();
        onNotFound().then((passOn) => {
          if (passOn) return pass();
          answer.resume();
          answer.on('end', resolve);
        }, reject);
      },
    );
    proxied.on('error', reject);
    proxied.end(body);
  });
  return Buffer.concat(chunks);
}

function refuse(service: GuardedService, outgoing: ServerResponse, message: string): void {
  const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  if (service === 'S3') {
    outgoing.writeHead(403, { 'content-type': 'application/xml' });
    outgoing.end(
      `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>${xml(message)}</Message><RequestId>guard</RequestId></Error>`,
    );
  } else if (service === 'SNS') {
    outgoing.writeHead(403, { 'content-type': 'text/xml' });
    outgoing.end(
      `<ErrorResponse><Error><Type>Sender</Type><Code>AuthorizationError</Code><Message>${xml(message)}</Message></Error><RequestId>guard</RequestId></ErrorResponse>`,
    );
  } else {
    outgoing.writeHead(400, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-query-error': 'AccessDenied;Sender' });
    outgoing.end(JSON.stringify({ __type: 'com.amazon.coral.service#AccessDeniedException', message }));
  }
}

/**
 * The IAM calls one HTTP request makes (S3 REST path-style, SQS/DynamoDB/Secrets Manager/Glue/Athena
 * JSON, SNS query). `workgroups`: the workgroup ARN of each Athena query started so far.
 */
export function mapRequest(
  service: GuardedService,
  method: string,
  url: URL,
  headers: Record<string, string | string[] | undefined>,
  body: Buffer,
  partitionKey = 'pk',
  workgroups: ReadonlyMap<string, string> = new Map(),
): IamCall[] {
  const target = String(headers['x-amz-target'] ?? '');
  const json = () => JSON.parse(body.toString('utf8') || '{}') as Record<string, unknown>;
  switch (service) {
    case 'S3':
      return mapS3(method, url, headers, body);
    case 'SNS': {
      const form = new URLSearchParams(body.toString('utf8'));
      const action = form.get('Action');
      if (action === 'Publish' || action === 'PublishBatch') return [{ action: 'sns:Publish', resource: form.get('TopicArn') ?? '', context: {} }];
      if (action === 'GetTopicAttributes') return [{ action: 'sns:GetTopicAttributes', resource: form.get('TopicArn') ?? '', context: {} }];
      throw new Error(`SNS ${action}`);
    }
    case 'SQS': {
      const operation = target.replace(/^AmazonSQS\./, '');
      const input = json();
      const actions: Record<string, string> = {
        SendMessageBatch: 'SendMessage',
        DeleteMessageBatch: 'DeleteMessage',
        ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
      };
      if (operation === 'GetQueueUrl') return [{ action: 'sqs:GetQueueUrl', resource: queueArn(String(input['QueueName'])), context: {} }];
      if (typeof input['QueueUrl'] !== 'string') throw new Error(`SQS ${operation} without QueueUrl`);
      return [{ action: `sqs:${actions[operation] ?? operation}`, resource: queueArn(input['QueueUrl']), context: {} }];
    }
    case 'SECRETS_MANAGER': {
      const operation = target.replace(/^secretsmanager\./, '');
      // ListSecrets names no resource; a secret asked for by name is authorised against its ARN (name, then a 6-character suffix).
      if (operation === 'ListSecrets') return [{ action: 'secretsmanager:ListSecrets', resource: '*', context: {} }];
      const id = String(json()['SecretId']);
      const resource = id.startsWith('arn:') ? id : `arn:aws:secretsmanager:${TEST_REGION}:${TEST_ACCOUNT}:secret:${id}-AbCdEf`;
      return [{ action: `secretsmanager:${operation}`, resource, context: {} }];
    }
    case 'DYNAMODB':
      return mapDynamo(target.replace(/^DynamoDB_20120810\./, ''), json(), partitionKey);
    case 'GLUE': {
      // Glue authorizes a call on a table on the catalog, the database and the table alike.
      const operation = target.replace(/^AWSGlue\./, '');
      const input = json();
      const database = String(input['DatabaseName'] ?? '');
      const table = input['Name'] ?? input['TableName'];
      const glue = (rest: string) => `arn:aws:glue:${TEST_REGION}:${TEST_ACCOUNT}:${rest}`;
      const resources = [glue('catalog'), glue(`database/${database}`), ...(typeof table === 'string' ? [glue(`table/${database}/${table}`)] : [])];
      return resources.map((resource) => ({ action: `glue:${operation}`, resource, context: {} }));
    }
    case 'ATHENA': {
      // A query is started in a workgroup (`primary` when none is named); a call on a query is authorized on that query's workgroup.
      const operation = target.replace(/^AmazonAthena\./, '');
      const input = json();
      if (operation === 'StartQueryExecution') {
        const workgroup = typeof input['WorkGroup'] === 'string' ? input['WorkGroup'] : 'primary';
        return [{ action: 'athena:StartQueryExecution', resource: `arn:aws:athena:${TEST_REGION}:${TEST_ACCOUNT}:workgroup/${workgroup}`, context: {} }];
      }
      if (operation === 'GetQueryExecution' || operation === 'GetQueryResults' || operation === 'StopQueryExecution') {
        const resource = workgroups.get(String(input['QueryExecutionId']));
        if (resource === undefined) throw new Error(`Athena ${operation} of a query the guard did not see started`);
        return [{ action: `athena:${operation}`, resource, context: {} }];
      }
      throw new Error(`Athena ${operation}`);
    }
  }
}

function mapS3(method: string, url: URL, headers: Record<string, string | string[] | undefined>, body: Buffer): IamCall[] {
  const [bucket = '', ...rest] = url.pathname.replace(/^\//, '').split('/');
  const key = decodeURIComponent(rest.join('/'));
  const query = url.searchParams;
  const object = `arn:aws:s3:::${bucket}/${key}`;
  const bucketArn = `arn:aws:s3:::${bucket}`;
  const call = (action: string, resource: string, context: Record<string, string> = {}): IamCall => ({ action: `s3:${action}`, resource, context });
  if (bucket === '') throw new Error('S3 request without a bucket');
  if (key === '') {
    if (
      method === 'GET' &&
      (query.has('list-type') || [...query.keys()].every((k) => ['prefix', 'delimiter', 'marker', 'max-keys', 'encoding-type'].includes(k)))
    ) {
      const context: Record<string, string> = {};
      if (query.has('prefix')) context['s3:prefix'] = query.get('prefix') ?? '';
      if (query.has('delimiter')) context['s3:delimiter'] = query.get('delimiter') ?? '';
      if (query.has('max-keys')) context['s3:max-keys'] = query.get('max-keys') ?? '';
      return [call('ListBucket', bucketArn, context)];
    }
    if (method === 'GET' && query.has('uploads')) return [call('ListBucketMultipartUploads', bucketArn)];
    if (method === 'GET' && query.has('versions')) return [call('ListBucketVersions', bucketArn)];
    if (method === 'GET' && query.has('location')) return [call('GetBucketLocation', bucketArn)];
    if (method === 'HEAD') return [call('ListBucket', bucketArn)];
    if (method === 'POST' && query.has('delete')) {
      const keys = [...body.toString('utf8').matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) =>
        m[1]!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'),
      );
      return keys.map((k) => call('DeleteObject', `${bucketArn}/${k}`));
    }
    throw new Error(`S3 ${method} on a bucket with ${query.toString()}`);
  }
  if (method === 'GET' || method === 'HEAD') {
    if (query.has('tagging')) return [call('GetObjectTagging', object)];
    if (query.has('uploadId')) return [call('ListMultipartUploadParts', object)];
    return [call(query.has('versionId') ? 'GetObjectVersion' : 'GetObject', object)];
  }
  if (method === 'PUT') {
    if (query.has('tagging')) return [call('PutObjectTagging', object)];
    const copySource = headers['x-amz-copy-source'];
    if (typeof copySource === 'string')
      return [call('GetObject', `arn:aws:s3:::${decodeURIComponent(copySource.replace(/^\//, '').split('?')[0]!)}`), call('PutObject', object)];
    return [call('PutObject', object)];
  }
  if (method === 'POST' && (query.has('uploads') || query.has('uploadId'))) return [call('PutObject', object)];
  if (method === 'DELETE')
    return [call(query.has('uploadId') ? 'AbortMultipartUpload' : query.has('versionId') ? 'DeleteObjectVersion' : 'DeleteObject', object)];
  throw new Error(`S3 ${method} on an object with ${query.toString()}`);
}

type AttributeValue = { S?: string; N?: string; B?: string };

function mapDynamo(operation: string, input: Record<string, unknown>, partitionKey: string): IamCall[] {
  const tableArn = (name: unknown) => `arn:aws:dynamodb:${TEST_REGION}:${TEST_ACCOUNT}:table/${String(name)}`;
  const keyOf = (item: unknown) => {
    const value = (item as Record<string, AttributeValue> | undefined)?.[partitionKey];
    return value?.S ?? value?.N ?? value?.B;
  };
  const call = (table: unknown, keys: (string | undefined)[], action = operation): IamCall => {
    const defined = keys.filter((k): k is string => k !== undefined);
    return { action: `dynamodb:${action}`, resource: tableArn(table), context: defined.length > 0 ? { 'dynamodb:LeadingKeys': defined } : {} };
  };
  switch (operation) {
    case 'GetItem':
    case 'DeleteItem':
    case 'UpdateItem':
      return [call(input['TableName'], [keyOf(input['Key'])])];
    case 'PutItem':
      return [call(input['TableName'], [keyOf(input['Item'])])];
    case 'Query': {
      const names = (input['ExpressionAttributeNames'] as Record<string, string> | undefined) ?? {};
      const values = (input['ExpressionAttributeValues'] as Record<string, AttributeValue> | undefined) ?? {};
      const condition = String(input['KeyConditionExpression'] ?? '');
      let key: string | undefined;
      for (const match of condition.matchAll(/([#\w]+)\s*=\s*(:\w+)/g)) {
        const name = match[1]!.startsWith('#') ? names[match[1]!] : match[1];
        if (name === partitionKey) key = keyOf({ [partitionKey]: values[match[2]!] });
      }
      return [call(input['TableName'], [key])];
    }
    case 'Scan':
    case 'DescribeTable':
      return [call(input['TableName'], [])];
    case 'BatchGetItem':
      return Object.entries(input['RequestItems'] as Record<string, { Keys: unknown[] }>).map(([table, { Keys }]) => call(table, Keys.map(keyOf)));
    case 'BatchWriteItem':
      return Object.entries(input['RequestItems'] as Record<string, { PutRequest?: { Item: unknown }; DeleteRequest?: { Key: unknown } }[]>).flatMap(
        ([table, requests]) => [
          ...(requests.some((r) => r.PutRequest)
            ? [
                call(
                  table,
                  requests.map((r) => (r.PutRequest ? keyOf(r.PutRequest.Item) : undefined)),
                  'BatchWriteItem',
                ),
              ]
            : []),
          ...(requests.some((r) => r.DeleteRequest)
            ? [
                call(
                  table,
                  requests.map((r) => (r.DeleteRequest ? keyOf(r.DeleteRequest.Key) : undefined)),
                  'BatchWriteItem',
                ),
              ]
            : []),
        ],
      );
    default:
      throw new Error(`DynamoDB ${operation}`);
  }
}
