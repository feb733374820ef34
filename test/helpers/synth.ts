/**
 * Role: the synthesized stack. Builds it in-process for template tests, with the context of cdk.json (feature flags
 * included, so the template is the one `cdk synth` makes) and bundling skipped (a synth takes
 * tens of milliseconds instead of running esbuild); and, for the bundle tests, the whole cloud
 * assembly in-process (`synthAssemblyInProcess`: the functions bundled, cdk-nag's checks run).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { addExporterStack, MintlifyExporterStack, configFromContext } from '../../infra/stack.js';
import { readAssembly, STACK, type Assembly } from '../../scripts/lib/bundles.js';
import { cachedLake } from './lake-cache.js';

/** The `context` block of the repository's cdk.json. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }
).context;

export interface SynthResult {
  readonly app: App;
  readonly stack: MintlifyExporterStack;
  readonly template: Template;
}

/**
 * Runs `use` with a CDK App of `context`. An App makes its cloud-assembly folder as it is
 * constructed — without `outdir`, a new `cdk.out…` in the temp folder that nothing removes —
 * so this one gets a folder of ours, removed when `use` returns or throws (what `use` needs of
 * the synth, a Template, is in memory by then).
 */
export function withApp<T>(context: Record<string, unknown>, use: (app: App) => T): T {
  const outdir = mkdtempSync(join(tmpdir(), 'mintlify-cdk-'));
  try {
    return use(new App({ outdir, context }));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/** Synthesizes `MintlifyExporter` with the given CDK context (as `-c key=value` would pass it). */
export function synthStack(context: Record<string, unknown> = {}): SynthResult {
  return withApp({ ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context }, (app) => {
    const stack = new MintlifyExporterStack(app, 'MintlifyExporter', { config: configFromContext(app) });
    return { app, stack, template: Template.fromStack(stack) };
  });
}

/** Each context's template, synthesized once per process: the files of a worker share their modules (vitest.config.ts). */
const templates = new Map<string, Record<string, unknown>>();

/**
 * The template of `context` for a test that only reads it: synthesized once per process and
 * context, each call a Template of its own copy (a test that changes the stack or its JSON
 * takes `synthStack`). Most template tests read the default deployment's.
 */
export function synthTemplate(context: Record<string, unknown> = {}): Template {
  const key = JSON.stringify(context);
  let json = templates.get(key);
  if (json === undefined) {
    json = synthStack(context).template.toJSON();
    templates.set(key, json);
  }
  return Template.fromJSON(structuredClone(json));
}

/**
 * The identity policies of the stack's roles, by logical id: their inline policies and the
 * managed policies CDK attaches to a role when its statements outgrow one inline policy
 * (`…OverflowPolicy…`, 10,240 characters): both have `Roles` and a `PolicyDocument`.
 */
export function rolePolicies(template: Template): ReturnType<Template['findResources']> {
  return { ...template.findResources('AWS::IAM::Policy'), ...template.findResources('AWS::IAM::ManagedPolicy') };
}

/**
 * The cloud assembly of `context` as `cdk synth -c key=value` writes it — the stack as
 * infra/app.ts adds it (`addExporterStack`: cdk-nag's AWS Solutions checks on, an unacknowledged
 * finding fails the synth), the functions bundled by esbuild — made in this process, once per
 * content of the tree and context (about 20 s of CPU: esbuild and the DuckDB copies), kept with
 * the lakes (lake-cache.ts, keyed also by infra/, cdk.json and tsconfig.json, which a lake does
 * not read), and each call given its own copy, which `close()` removes. One bundle test
 * (synth-bundle.test.ts) runs the real CLI. `output` is the checks' report, empty when they pass.
 */
export async function synthAssemblyInProcess(context: Record<string, string>): Promise<Assembly> {
  const { root } = await cachedLake(`synth-${await synthKey(context)}`, async (outDir) => {
    const app = new App({ outdir: outDir, context: { ...CDK_JSON_CONTEXT, ...context } });
    addExporterStack(app, STACK, configFromContext(app));
    app.synth();
  });
  return readAssembly(root, '');
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/**
 * sha256 of `context` and of what a synth reads that a lake's key leaves out: infra/, cdk.json,
 * tsconfig.json (with the lake's own key, of functions/ and package-lock.json, what a synth's cache is named by).
 */
export async function synthKey(context: Record<string, string>): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify(Object.entries(context).sort()));
  const infra = (await readdir(join(REPO, 'infra'), { recursive: true, withFileTypes: true }))
    .filter((entry) => entry.isFile())
    .map((entry) => relative(REPO, join(entry.parentPath, entry.name)));
  for (const file of [...infra.sort(), 'cdk.json', 'tsconfig.json'])
    hash
      .update(`${file}\u0000`)
      .update(await readFile(join(REPO, file)))
      .update('\u0000');
  return hash.digest('hex').slice(0, 16);
}
