/**
 * The synthesized functions as Lambda runs them, for the bundle tests (test/infra/) and the
 * benchmarks that time a function (bench/). `synthAssembly` runs the real `cdk synth`
 * (CLI, local esbuild, cdk-nag) into a temp folder; `functionEnvironment` gives a function's
 * environment from the template with its tokens replaced; `invokeBundle` loads a bundle in a
 * separate Node process that may only connect to loopback and runs its handler.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { TEST_REGION } from './s3-sqs.js';

const run = promisify(execFile);
const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const STACK = 'MintlifyExporter';

type Resource = { Type: string; Properties: Record<string, unknown> };
type Resources = Record<string, Resource>;

export interface Assembly {
  readonly outDir: string;
  /** What `cdk synth` printed (cdk-nag findings would be here). */
  readonly output: string;
  readonly resources: Resources;
  /** The folder of the asset CDK names `displayName` (e.g. `Export/Handler/Function/Code`). */
  assetDir(displayName: string): string;
  /** The folder of the code of the function described `description` (functions may share one asset). */
  functionAssetDir(description: string): string;
  close(): Promise<void>;
}

/**
 * `cdk synth -q` with `-c key=value` for each of `context`, into a fresh temp folder; of the
 * checkout at `root` (a benchmark's "before": another commit's tree with its node_modules). @default this repository
 */
export async function synthAssembly(context: Record<string, string>, root: string = REPO_ROOT): Promise<Assembly> {
  const outDir = await mkdtemp(join(tmpdir(), 'mintlify-synth-'));
  const { stdout, stderr } = await run(
    'npx',
    ['cdk', 'synth', '-q', '-o', outDir, ...Object.entries(context).flatMap(([key, value]) => ['-c', `${key}=${value}`])],
    {
      cwd: root,
      env: { ...process.env, CDK_DISABLE_VERSION_CHECK: 'true' },
      timeout: 240_000,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  return readAssembly(outDir, stdout + stderr, root);
}

/**
 * The cloud assembly a synth wrote into `outDir` (the stack's template and assets), with
 * `output` as what the synth printed, its bundles resolving `@aws-sdk/*` from `root`'s
 * node_modules; its `close()` removes `outDir`.
 */
export async function readAssembly(outDir: string, output: string, root: string = REPO_ROOT): Promise<Assembly> {
  const template = JSON.parse(await readFile(join(outDir, `${STACK}.template.json`), 'utf8')) as { Resources: Resources };
  // Bundles keep `@aws-sdk/*` external (the Lambda runtime provides it); locally the
  // repository's node_modules plays that part.
  await symlink(join(root, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  const assets = JSON.parse(await readFile(join(outDir, `${STACK}.assets.json`), 'utf8')) as {
    files: Record<string, { displayName?: string; source: { path: string } }>;
  };
  return {
    outDir,
    output,
    resources: template.Resources,
    assetDir(displayName) {
      const entry = Object.values(assets.files).find((file) => file.displayName === displayName);
      if (!entry) throw new Error(`no asset "${displayName}" in ${STACK}.assets.json`);
      return join(outDir, entry.source.path);
    },
    functionAssetDir(description) {
      const code = functionResource(template.Resources, description).Properties['Code'] as { S3Key?: unknown };
      const hash = typeof code.S3Key === 'string' ? code.S3Key.replace(/\.zip$/, '') : undefined;
      const entry = hash === undefined ? undefined : assets.files[hash];
      if (!entry) throw new Error(`no asset for the function described "${description}…" in ${STACK}.assets.json`);
      return join(outDir, entry.source.path);
    },
    close: () => rm(outDir, { recursive: true, force: true }),
  };
}

/** The function whose description starts with `description`. */
export function functionResource(resources: Resources, description: string): Resource {
  const fn = Object.values(resources).find(
    (resource) => resource.Type === 'AWS::Lambda::Function' && String(resource.Properties['Description'] ?? '').startsWith(description),
  );
  if (!fn) throw new Error(`no function described "${description}…"`);
  return fn;
}

/** The export of its bundle that the function described `description` runs (`index.<export>`). */
export function functionHandler(resources: Resources, description: string): string {
  return String(functionResource(resources, description).Properties['Handler']).replace(/^index\./, '');
}

/** The synthesized environment of the function described `description`, tokens replaced by `tokens`, with the memory size the Lambda runtime adds. */
export function functionEnvironment(resources: Resources, description: string, tokens: Record<string, string>): Record<string, string> {
  const properties = functionResource(resources, description).Properties;
  const variables = (properties['Environment'] as { Variables: Record<string, unknown> }).Variables;
  return {
    // What the Lambda runtime itself sets and the code reads: the function's memory (DuckDB's limit, warehouse/duckdb.ts).
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(properties['MemorySize'] ?? 128),
    ...Object.fromEntries(
      Object.entries(variables).map(([name, value]) => {
        if (typeof value === 'string') return [name, value];
        const replacement = tokens[name];
        if (replacement === undefined) throw new Error(`${description}: ${name} is a CloudFormation token the test does not map`);
        return [name, replacement];
      }),
    ),
  };
}

export interface Invocation {
  readonly result?: unknown;
  readonly error?: string;
  readonly logs: string;
  /** Milliseconds from the process's start to the handler's module loaded (the cold load). */
  readonly loadMs: number;
  /** Milliseconds the handler ran. */
  readonly runMs: number;
  /**
   * The process's own peak resident memory, bytes: the kernel's `VmHWM`, which starts afresh at
   * `exec` (getrusage's maxRSS, the figure where /proc is absent, is kept by Linux across `execve`:
   * a child of a large benchmark process reports its parent's size; bench/README.md, "issue 50").
   */
  readonly maxRssBytes: number;
  /**
   * The most each part of the process's memory reached, sampled every 50 ms while the handler ran
   * (`process.memoryUsage()`): the JavaScript heap, the memory of Buffers and other objects outside
   * it, and the resident set — what RSS holds beyond the two is native (DuckDB's, Node's own).
   */
  readonly memoryPeaks: { readonly heapUsed: number; readonly external: number; readonly rss: number };
  /** CPU time (user and system, every thread of the process: DuckDB's too) from the handler's load to its end. */
  readonly cpuMs?: number;
}

/**
 * Runs `handler(event, context)` of a bundle in a fresh Node process (in `workDir`) with only
 * `env` (plus dummy credentials and no AWS config of this machine). The process may only open
 * connections to loopback: anything else is refused, so a missed endpoint override fails
 * instead of reaching AWS.
 */
export async function invokeBundle(
  workDir: string,
  bundle: string,
  event: unknown,
  env: Record<string, string>,
  exportName = 'handler',
  /** What the handler's context says is left of the invocation. */
  remainingMs = 300_000,
): Promise<Invocation> {
  const runner = join(workDir, `invoke-${Date.now()}-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(
    runner,
    `import { readFileSync } from 'node:fs';
import net from 'node:net';
import { pathToFileURL } from 'node:url';
const loopback = new Set(['127.0.0.1', '::1', 'localhost']);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const options = typeof first === 'object' && first !== null ? first : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined };
  const host = options.host ?? 'localhost';
  if (options.path === undefined && !loopback.has(host)) {
    process.nextTick(() => this.destroy(new Error('bundle test: connection to ' + host + ' refused (loopback only)')));
    return this;
  }
  return connect.apply(this, args);
};
const [bundle, eventJson, exportName, remainingMs] = process.argv.slice(2);
const handler = (await import(pathToFileURL(bundle).href))[exportName];
const loadMs = performance.now();
const cpuAtLoad = process.cpuUsage();
const context = { awsRequestId: 'bundle-request', functionName: 'bundle', getRemainingTimeInMillis: () => Number(remainingMs) };
const cpuMs = () => { const used = process.cpuUsage(cpuAtLoad); return (used.user + used.system) / 1000; };
const memoryPeaks = { heapUsed: 0, external: 0, rss: 0 };
const sampleMemory = () => { const now = process.memoryUsage(); for (const part of Object.keys(memoryPeaks)) memoryPeaks[part] = Math.max(memoryPeaks[part], now[part]); };
// The process's own peak (VmHWM, new at exec), not getrusage's maxRSS, which Linux keeps across execve.
const ownPeakBytes = () => {
  try {
    const peak = /VmHWM:\\s+(\\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'));
    if (peak) return Number(peak[1]) * 1024;
  } catch {
    // Not Linux: getrusage's figure.
  }
  return process.resourceUsage().maxRSS * 1024;
};
const sampler = setInterval(sampleMemory, 50);
sampler.unref();
const out = async (value) => {
  clearInterval(sampler);
  sampleMemory();
  const figures = { loadMs, runMs: performance.now() - loadMs, cpuMs: cpuMs(), maxRssBytes: ownPeakBytes(), memoryPeaks };
  process.stdout.write('\\n@@RESULT ' + JSON.stringify({ ...value, ...figures }) + '\\n');
};
try {
  await out({ result: await handler(JSON.parse(eventJson), context) });
} catch (error) {
  await out({ error: String(error) });
}
`,
  );
  try {
    // BUNDLE_CPU_PROFILE=<folder>: a V8 CPU profile of the process (its module loading, then the handler's run) written there
    // at exit by V8's own --cpu-prof (an inspector session started in the runner answered "No recording profiles found").
    const profileDir = env['BUNDLE_CPU_PROFILE'];
    const profiling = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
    const { stdout, stderr } = await run(process.execPath, [...profiling, runner, bundle, JSON.stringify(event), exportName, String(remainingMs)], {
      env: {
        PATH: process.env['PATH'] ?? '',
        AWS_CONFIG_FILE: join(workDir, 'no-aws-config'),
        AWS_SHARED_CREDENTIALS_FILE: join(workDir, 'no-aws-credentials'),
        AWS_EC2_METADATA_DISABLED: 'true',
        AWS_REGION: TEST_REGION,
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_REQUEST_CHECKSUM_CALCULATION: 'WHEN_REQUIRED',
        AWS_RESPONSE_CHECKSUM_VALIDATION: 'WHEN_REQUIRED',
        ...env,
      },
      timeout: 120_000,
      maxBuffer: 64 * 1024 * 1024,
    });
    const marker = stdout.lastIndexOf('@@RESULT ');
    if (marker < 0) throw new Error(`the bundle printed no result:\n${stdout}\n${stderr}`);
    const parsed = JSON.parse(stdout.slice(marker + 9).trim()) as Omit<Invocation, 'logs'>;
    return { ...parsed, logs: stdout.slice(0, marker) + stderr };
  } finally {
    await rm(runner, { force: true });
  }
}
