/**
 * The CDK app: builds the App and the stack, and runs cdk-nag's AWS Solutions checks on it
 * (a finding that is not acknowledged with a reason fails the synth).
 *
 * Configuration — CDK context, `cdk deploy -c key=value` (or a "context" entry in cdk.json):
 *
 * | key             | meaning                                                                 | default                          |
 * |-----------------|-------------------------------------------------------------------------|----------------------------------|
 * | projectIds      | Mintlify project ids to export, comma-separated (`proj_a,proj_b`)        | none: the export has nothing to do |
 * | schedule        | EventBridge expression of the export runs, UTC                           | `cron(5 * * * ? *)` (hourly)      |
 * | datasets        | datasets to export, comma-separated (`visitors,views,…`)                 | every dataset                     |
 * | feedbackContact | `true` writes feedback's contact e-mail addresses (personal data)        | `false`                           |
 * | budget          | analytics requests per sliding window, shared by every run (`90/1h`)     | `90/1h`                           |
 * | settleHours     | hours after a UTC day ends before it is exported                          | `2`                               |
 * | bucketName      | existing S3 bucket to write into (not managed by this stack)             | a new versioned, encrypted bucket |
 * | prefix          | key prefix of everything written: `s3://<bucket>/<prefix>/visitors_…`   | `mintlify`                        |
 * | apiKeySecretArn | complete ARN of an existing Secrets Manager secret holding the key       | a new secret (put the key in it)  |
 * | alarmEmail      | e-mail subscribed to the alarm topic (confirm the subscription mail)     | no subscription                   |
 * | apiUrl          | Mintlify API base URL (https)                                            | `https://api.mintlify.com`        |
 * | logLevel        | Powertools log level of both functions: DEBUG, INFO, WARN, ERROR         | `INFO`                            |
 * | maxReceiveCount | receives before SQS dead-letters a follow-up (last-resort net)          | `1000`                            |
 * | outcomeEmail    | e-mail subscribed to the follow-up outcomes topic (failed, uncertain, rejected) | no subscription          |
 * | reportSchedule  | EventBridge expression of the weekly report, UTC                         | `cron(0 6 ? * MON *)` (Monday 06:00) |
 * | reportEmail     | e-mail subscribed to the insights topic (weekly digest, anomalies, stale) | no subscription                  |
 * | anomalyDrop     | a day's figure below this times its usual level is an anomaly           | `0.5`                             |
 * | anomalyRise     | a day's figure above this times its usual level is an anomaly           | `3`                               |
 * | stackName       | CloudFormation stack name (deploy twice with two names for two setups)   | `MintlifyExporter`                |
 *
 * The API key itself is never a context value: it goes into the secret after the first deploy.
 */
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { MintlifyExporterStack, configFromContext } from './stack.js';

const app = new App();
const stackName: unknown = app.node.tryGetContext('stackName');
new MintlifyExporterStack(app, typeof stackName === 'string' && stackName !== '' ? stackName : 'MintlifyExporter', {
  description: 'mintlify-exporter: hourly Mintlify analytics export to Parquet, follow-up prompt consumer',
  config: configFromContext(app),
});
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
