import { describe, expect, it } from 'vitest';
import { linkOf, pageLink } from '../../../functions/report/page/parts.js';
import { HOSTILE_LINK_PATHS } from '../../helpers/hostile-text.js';

const SITE = 'https://docs.example.com';

describe('linkOf: a report path becomes a link only to the docs site', () => {
  it.each([
    ...HOSTILE_LINK_PATHS,
    '/%5c%5cevil.example/x',
    '/docs/\u0000x',
    '/docs/\u001b[2Jx',
    '/docs/\u0085x',
    '/docs/%0d%0ax',
    '\\evil.example',
    'https://evil.example/x',
    'javascript:alert(1)',
    // A path its cleaning changed (issue 42): stored masked, or raw in a lake written before the `path` policy.
    '/profile/[email]',
    '/profile/oscar@example.com',
    '/profile/oscar%40example.com',
    '/signup?email=mallory@example.com',
    '/signup?ref=newsletter',
    '/u/ana＠example.com',
  ])('gives no link for %j', (path) => {
    expect(linkOf(path, SITE)).toBeUndefined();
  });

  it('links no path to another origin, whatever it holds', () => {
    for (const path of HOSTILE_LINK_PATHS) {
      const html = pageLink(path, { many: false, siteUrl: SITE }).toString();
      expect(html).not.toMatch(/href="https?:\/\/(?!docs\.example\.com\/)/);
      expect(html).not.toContain('<a');
    }
  });

  it.each([
    ['/docs/quickstart', `${SITE}/docs/quickstart`],
    ['/api-reference/endpoint/get', `${SITE}/api-reference/endpoint/get`],
    ['/guides/setup#install', `${SITE}/guides/setup#install`],
    ['/docs/a b', `${SITE}/docs/a%20b`],
    ['/', `${SITE}/`],
  ])('still links the ordinary path %j', (path, href) => {
    expect(linkOf(path, SITE)).toBe(href);
    expect(pageLink(path, { many: false, siteUrl: SITE }).toString()).toContain(`<a class="path" href="${href}">`);
  });

  it('gives no link without a site', () => {
    expect(linkOf('/docs/quickstart', undefined)).toBeUndefined();
  });
});
