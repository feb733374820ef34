/**
 * The key of the personal-data `hmac` columns (docs/privacy.md): a Secrets Manager secret the
 * stack generates (`{"key": "<64 random characters>"}`), read by the export function only.
 * The key never appears in the template. It is kept when the stack is deleted: without it no
 * address can be matched again (`forget`), and new values would start a new series.
 */
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

/** The field of the secret's JSON that holds the key (functions/shared/personal-data-key.ts reads it). */
export const PERSONAL_DATA_KEY_FIELD = 'key';

export class PersonalDataKey extends Construct {
  readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      description: 'Key of the personal-data hmac columns of mintlify-exporter (generated; rotating it starts a new series of values, see docs/privacy.md)',
      generateSecretString: {
        secretStringTemplate: '{}',
        generateStringKey: PERSONAL_DATA_KEY_FIELD,
        passwordLength: 64,
        excludePunctuation: true,
      },
      removalPolicy: RemovalPolicy.RETAIN,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotating the HMAC key changes every hashed value from then on (a new series: old and new days no longer join), so rotation is a decision, not a schedule: docs/privacy.md, "Rotating the key".',
    });
  }

  /** Lets `grantee` read the key (secretsmanager:GetSecretValue and DescribeSecret on this secret only). */
  grantRead(grantee: iam.IGrantable): iam.Grant {
    return this.secret.grantRead(grantee);
  }
}
