/**
 * Role: the synthesized stack. Builds it in-process for template tests, with the context of cdk.json (feature flags
 * included, so the template is the one `cdk synth` makes) and bundling skipped (a synth takes
 * tens of milliseconds instead of running esbuild).
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { MintlifyExporterStack, configFromContext } from '../../infra/stack.js';

/** The `context` block of the repository's cdk.json. */
export const CDK_JSON_CONTEXT: Record<string, unknown> = (
  JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')) as { context: Record<string, unknown> }
).context;

export interface SynthResult {
  readonly app: App;
  readonly stack: MintlifyExporterStack;
  readonly template: Template;
}

/** Synthesizes `MintlifyExporter` with the given CDK context (as `-c key=value` would pass it). */
export function synthStack(context: Record<string, unknown> = {}): SynthResult {
  const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context } });
  const stack = new MintlifyExporterStack(app, 'MintlifyExporter', { config: configFromContext(app) });
  return { app, stack, template: Template.fromStack(stack) };
}
