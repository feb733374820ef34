/**
 * The Secrets Manager secret holding the Mintlify admin API key. The key never appears in the
 * template: a new secret is created with a random placeholder (which the functions refuse,
 * since it does not start with `mint_`, with a message saying to put the real key in), or an
 * existing secret is referenced by ARN.
 */
import { Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { asInterface } from './as-interface.js';

/** Props of {@link ApiKeySecret}. */
export interface ApiKeySecretProps {
  /**
   * Complete ARN of an existing secret whose SecretString is the key (or `{"apiKey": "…"}`),
   * as the console shows it: with the 6-character suffix Secrets Manager appends to the name.
   * (Telling a complete ARN from a partial one by its shape is unreliable, so only complete
   * ARNs are accepted; the grant is then on that exact secret.)
   * @default - a new secret is created; put the key in it after the first deploy
   */
  readonly secretArn?: string | undefined;
}

export class ApiKeySecret extends Construct {
  readonly secret: secretsmanager.ISecret;

  constructor(scope: Construct, id: string, props: ApiKeySecretProps = {}) {
    super(scope, id);
    if (props.secretArn === undefined) {
      const secret = new secretsmanager.Secret(this, 'Secret', {
        description: 'Mintlify admin API key (mint_…). Created with a random placeholder: replace it with `aws secretsmanager put-secret-value`.',
      });
      Validations.of(secret).acknowledge({
        id: 'AwsSolutions-SMG4',
        reason:
          'The value is a Mintlify admin API key issued on the Mintlify dashboard; Secrets Manager cannot rotate it. Rotation is manual (create a new key, put-secret-value, revoke the old one).',
      });
      this.secret = asInterface<secretsmanager.ISecret>(secret);
    } else {
      this.secret = secretsmanager.Secret.fromSecretCompleteArn(this, 'Secret', props.secretArn);
    }
  }
}
