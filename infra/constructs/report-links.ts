/**
 * The digest's link: a CloudFront distribution over the reports folder only (origin path
 * `/<prefix>/reports`, origin access control: the bucket lets this distribution read
 * `<prefix>/reports/*` and nothing else), serving only URLs signed by a key of its key group.
 * The weekly report signs the week's page for 7 days with the private key kept in a Secrets
 * Manager secret — the link works for as long as the digest says, and nobody without it reads
 * the page.
 *
 * The key pair: CloudFront needs the public key in the template, and a private key must never
 * be in a template, so neither is made at synth. The operator makes the pair once (`openssl`,
 * docs/deploy.md), deploys with the public key as context `reportLinkPublicKey`, and puts the
 * private key in the secret (`ReportLinkKeySecretArn` output). Until then the secret holds a
 * placeholder, the weekly report fails with one line saying so, and the alarm tells.
 */
import { Stack, Validations } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as s3 from 'aws-cdk-lib/aws-s3';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { asInterface } from './as-interface.js';

/** Props of {@link ReportLinks}. */
export interface ReportLinksProps {
  readonly bucket: s3.IBucket;
  /** `''` or the app's prefix with a trailing slash (Warehouse.keyPrefix). */
  readonly keyPrefix: string;
  /** The folder of the pages under the prefix, ending with `/` (`reports/`). */
  readonly reports: string;
  /** PEM of the RSA public key (2048 bits) whose private key signs the links. */
  readonly publicKeyPem: string;
}

export class ReportLinks extends Construct {
  readonly distribution: cloudfront.Distribution;
  readonly publicKey: cloudfront.PublicKey;
  readonly keyGroup: cloudfront.KeyGroup;
  /** Holds the PEM private key (put there by the operator). */
  readonly privateKeySecret: secretsmanager.ISecret;
  /** `https://<distribution domain>`: REPORT_LINK_URL. */
  readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: ReportLinksProps) {
    super(scope, id);
    const folder = `${props.keyPrefix}${props.reports}`.replace(/\/$/, '');

    const secret = new secretsmanager.Secret(this, 'PrivateKey', {
      description: 'PEM private key that signs the weekly digest links (CloudFront key group of the report distribution). Put it in after the first deploy.',
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'A CloudFront signing key: rotating it means a new public key in the key group and the new private key here, a deployment (docs/deploy.md); Secrets Manager cannot do that alone.',
    });
    this.privateKeySecret = asInterface<secretsmanager.ISecret>(secret);

    this.publicKey = new cloudfront.PublicKey(this, 'PublicKey', {
      encodedKey: props.publicKeyPem.trim(),
      comment: 'Verifies the weekly digest links of mintlify-exporter',
    });
    this.keyGroup = new cloudfront.KeyGroup(this, 'KeyGroup', { items: [this.publicKey], comment: 'mintlify-exporter report links' });

    const oac = new cloudfront.S3OriginAccessControl(this, 'OriginAccess', { description: 'mintlify-exporter reports: signed S3 requests' });
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: 'mintlify-exporter weekly reports (signed URLs only)',
      defaultBehavior: {
        // The bucket is read through origin access control (the bucket policy below), so the
        // origin is the plain bucket: CDK's OAC origin would grant every object of the bucket.
        origin: origins.S3BucketOrigin.withBucketDefaults(props.bucket, { originPath: `/${folder}`, originAccessControlId: oac.originAccessControlId }),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        trustedKeyGroups: [this.keyGroup],
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
      },
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
    });
    const stack = Stack.of(this);
    props.bucket.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'ReportDistributionReadsReports',
        principals: [new iam.ServicePrincipal('cloudfront.amazonaws.com')],
        actions: ['s3:GetObject'],
        resources: [props.bucket.arnForObjects(`${folder}/*`)],
        conditions: {
          StringEquals: { 'AWS:SourceArn': `arn:${stack.partition}:cloudfront::${stack.account}:distribution/${this.distribution.distributionId}` },
        },
      }),
    );
    this.baseUrl = `https://${this.distribution.distributionDomainName}`;

    Validations.of(this.distribution).acknowledge(
      {
        id: 'AwsSolutions-CFR1',
        reason: 'The readers of the weekly report are wherever the docs team is; every request needs a signed URL, so a geo restriction adds nothing.',
      },
      {
        id: 'AwsSolutions-CFR2',
        reason: 'Only signed URLs are served (trusted key group), GET and HEAD of static pages: there is nothing for a WAF to filter.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason: "A handful of signed page views a week; the bucket's own server access log already records every read of the origin.",
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          'The default cloudfront.net certificate (no custom domain); CloudFront then negotiates TLS 1.2+ with current viewers, and the links are HTTPS only.',
      },
    );
  }

  /** Lets `grantee` read the private key (the weekly report signs with it). */
  grantSign(grantee: iam.IGrantable): void {
    this.privateKeySecret.grantRead(grantee);
  }
}
