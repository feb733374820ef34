/**
 * The digest's link to the week's page: a CloudFront signed URL (canned policy) of the
 * distribution over `reports/` (infra/constructs/report-links.ts), signed with the private key
 * kept in Secrets Manager, valid `LINK_SECONDS` (7 days) — however long the function's own
 * session lasts, unlike a pre-signed S3 URL, which dies with the role session that signed it.
 * The distribution serves only signed requests: nobody without the link reads the page.
 */
import { getSignedUrl } from '@aws-sdk/cloudfront-signer';
import { REPORTS_PREFIX } from './keys.js';

/** How long the digest's link works: 7 days. */
export const LINK_SECONDS = 7 * 24 * 3600;

export interface PageLink {
  readonly url: string;
  /** When the link stops working (ISO 8601, whole seconds: the signed policy's own time). */
  readonly expiresAt: string;
}

/** The link of the page at `key` (relative to the destination, under `reports/`), signed at `now`. */
export type LinkSigner = (key: string, now: number) => Promise<PageLink>;

export interface CloudFrontLinkSettings {
  /** `https://d111.cloudfront.net`: the distribution, whose origin path is the reports folder. */
  readonly baseUrl: string;
  /** The CloudFront public key's id. */
  readonly keyPairId: string;
  /** The PEM private key of that public key (read from Secrets Manager when asked). */
  readonly privateKey: () => Promise<string>;
}

export function cloudFrontLinks(settings: CloudFrontLinkSettings): LinkSigner {
  return async (key, now) => {
    if (!key.startsWith(REPORTS_PREFIX)) throw new Error(`the page ${key} is not under ${REPORTS_PREFIX}: the distribution serves nothing else`);
    const path = key.slice(REPORTS_PREFIX.length).split('/').map(encodeURIComponent).join('/');
    const expires = Math.floor(now / 1000) + LINK_SECONDS;
    const url = getSignedUrl({
      url: `${settings.baseUrl}/${path}`,
      keyPairId: settings.keyPairId,
      privateKey: await settings.privateKey(),
      dateLessThan: new Date(expires * 1000),
    });
    return { url, expiresAt: new Date(expires * 1000).toISOString() };
  };
}
