/**
 * The CDK app: builds the App and the stack, and runs cdk-nag's AWS Solutions checks on it
 * (a finding that is not acknowledged with a reason fails the synth).
 *
 * Configuration is CDK context, `cdk deploy -c key=value` (or a "context" entry in cdk.json):
 * docs/deploy.md lists every option, generated from the validators of infra/stack.ts
 * (`ContextSchema`) and the meanings in infra/context-options.ts. A value the stack cannot use
 * is one line naming the option, the value and what is accepted, and the app exits 2.
 *
 * The API key itself is never a context value: it goes into the secret after the first deploy.
 */
import { App } from 'aws-cdk-lib';
import { addExporterStack, ContextConfigError, configFromContext, type ExporterConfig } from './stack.js';

const app = new App();
const stackName: unknown = app.node.tryGetContext('stackName');
let config: ExporterConfig | undefined;
try {
  config = configFromContext(app);
} catch (error) {
  if (!(error instanceof ContextConfigError)) throw error;
  // A mistyped -c value: its one line, not a stack trace; exit 2 like the CLI's configuration mistakes.
  process.stderr.write(`${error.message}\n`);
  process.exitCode = 2;
}
if (config) addExporterStack(app, typeof stackName === 'string' && stackName !== '' ? stackName : 'MintlifyExporter', config);
