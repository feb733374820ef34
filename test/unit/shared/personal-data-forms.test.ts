/**
 * One detector for every written form (issue 42): a table of each form readers and browsers
 * produce, and properties that generate addresses, phone numbers and keys in those forms inside
 * random text — none survives, every other word does.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hmacOf, identityOf, isEmailAddress, legacyHmacOf, maskPath, maskText } from '../../../functions/shared/personal-data/index.js';

const KEY = 'k'.repeat(32);

describe('every written form of an address, a phone number and a key', () => {
  const FORMS: readonly (readonly [string, string, string])[] = [
    ['a full-width at-sign (Japanese or Chinese keyboards)', 'write to ana＠example.com today', 'write to [email] today'],
    ['a small commercial at', 'write to bob﹫example.org today', 'write to [email] today'],
    ['an ideographic full stop in the domain', 'write to carol@example。com today', 'write to [email] today'],
    ['a half-width ideographic full stop', 'write to carol@example｡com today', 'write to [email] today'],
    ['an address written all in full-width', 'write to ｃａｒｏｌ＠ｅｘａｍｐｌｅ．ｃｏｍ today', 'write to [email] today'],
    ['a percent-encoded at-sign', 'write to dave%40example.com today', 'write to [email] today'],
    ['an HTML decimal entity', 'write to erin&#64;example.com today', 'write to [email] today'],
    ['an HTML hex entity', 'write to erin&#x40;example.com today', 'write to [email] today'],
    ['an HTML named entity', 'write to erin&commat;example.com today', 'write to [email] today'],
    ['spaces around the at-sign', 'write to frank @ example.com today', 'write to [email] today'],
    ['a quoted local part', 'write to "grace smith"@example.com today', 'write to [email] today'],
    ['an IP literal domain', 'write to heidi@[192.168.0.1] today', 'write to [email] today'],
    ['an IPv6 literal domain', 'write to heidi@[IPv6:2001:db8::1] today', 'write to [email] today'],
    ['a zero-width space inside', 'write to ivan\u200b@example.com today', 'write to [email] today'],
    ['an IDN domain', 'write to judy@bücher.de today', 'write to [email] today'],
    ['full-width digits with ideographic spaces', 'call ０９０\u3000１２３４\u3000５６７８ today', 'call [phone] today'],
    ['Arabic-Indic digits', 'call ٠٥٥٥ ١٢٣ ٤٥٦٧ today', 'call [phone] today'],
    ['Thai digits', 'call ๐๘๑ ๒๓๔ ๕๖๗๘ today', 'call [phone] today'],
    ['a Stripe key without a digit', 'key sk_live_abcdefghijklmnopqrstuvwx today', 'key [secret] today'],
    ['a GitHub token without a digit', 'key ghp_abcdefghijklmnopqrstuvwxyzABCDEFGHIJ today', 'key [secret] today'],
    ['a fine-grained GitHub token', 'key github_pat_abcdefghijklmnopqrstuvwxyz today', 'key [secret] today'],
    ['a Slack bot token', 'key xoxb-abcdefghijklmnop today', 'key [secret] today'],
    ['an AWS access key id', 'key AKIAABCDEFGHIJKLMNOP today', 'key [secret] today'],
    ['a Google API key', 'key AIzaabcdefghijklmnopqrstuvwxyzABCDEFG today', 'key [secret] today'],
    ['a GitLab token', 'key glpat-abcdefghijklmnopqrst today', 'key [secret] today'],
    ['a full-width key prefix', 'key ｓｋ＿ｌｉｖｅ＿ａｂｃｄｅｆｇｈｉｊｋｌｍｎｏｐｑｒｓｔ today', 'key [secret] today'],
  ];
  it.each(FORMS)('masks %s', (_, text, masked) => {
    expect(maskText(text)).toBe(masked);
  });

  it('leaves ordinary words with those characters alone', () => {
    const text = 'Meet @ noon, 5 % 40 people, R&D, 。Done. skip the sky, ghost gh_ pages, AKIA is short, 2026-11-28 ０３ ٣';
    expect(maskText(text)).toBe(text);
  });
});

// --- generated forms ----------------------------------------------------------------------------

/** Ordinary words: lower-case letters, none of the words that lead a phone number or spell an address. */
const LEADS = new Set([
  'at',
  'dot',
  'call',
  'tel',
  'phone',
  'cell',
  'fax',
  'sms',
  'bearer',
  'token',
  'secret',
  'password',
  'pwd',
  'me',
  'on',
  'is',
  'no',
  'us',
  'my',
]);
const word = fc
  .string({ unit: fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzéüñçø'), minLength: 2, maxLength: 9 })
  .filter((w) => !LEADS.has(w) && !/^(?:sk|pk|rk|gh|xo|gl|np|hf|mi)/.test(w));
const alnum = (chars: string, min: number, max: number) => fc.string({ unit: fc.constantFrom(...chars), minLength: min, maxLength: max });
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const fullWidth = (text: string) => text.replace(/[!-~]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0));

const address = fc.record({
  local: fc.tuple(alnum(LOWER, 1, 1), alnum(`${LOWER}${DIGITS}._`, 1, 10)).map(([a, b]) => `${a}${b.replace(/[._]+$/, '')}`),
  domain: fc.array(alnum(LOWER, 2, 8), { minLength: 1, maxLength: 2 }),
  tld: fc.constantFrom('com', 'org', 'io', 'de', 'jp', 'fr'),
});
const ADDRESS_FORMS: Readonly<Record<string, (a: { local: string; domain: string[]; tld: string }) => string>> = {
  plain: (a) => `${a.local}@${a.domain.join('.')}.${a.tld}`,
  fullWidthAt: (a) => `${a.local}＠${a.domain.join('.')}.${a.tld}`,
  smallAt: (a) => `${a.local}﹫${a.domain.join('.')}.${a.tld}`,
  ideographicStops: (a) => `${a.local}@${a.domain.join('。')}。${a.tld}`,
  allFullWidth: (a) => fullWidth(`${a.local}@${a.domain.join('.')}.${a.tld}`),
  percent: (a) => `${a.local}%40${a.domain.join('.')}.${a.tld}`,
  decimalEntity: (a) => `${a.local}&#64;${a.domain.join('.')}.${a.tld}`,
  hexEntity: (a) => `${a.local}&#x40;${a.domain.join('.')}.${a.tld}`,
  namedEntity: (a) => `${a.local}&commat;${a.domain.join('.')}.${a.tld}`,
  spaced: (a) => `${a.local} @ ${a.domain.join('.')}.${a.tld}`,
  quoted: (a) => `"${a.local} ${a.tld}"@${a.domain.join('.')}.${a.tld}`,
  ipLiteral: (a) => `${a.local}@[10.${a.local.length}.0.1]`,
  zeroWidth: (a) => `${a.local}\u200b@\u200d${a.domain.join('.')}.${a.tld}`,
  idn: (a) => `${a.local}@bü${a.domain.join('.')}.${a.tld}`,
};

/** Digits of a script, from '0'. */
const SCRIPTS: Readonly<Record<string, number>> = {
  ascii: 0x30,
  fullWidth: 0xff10,
  arabicIndic: 0x660,
  persian: 0x6f0,
  devanagari: 0x966,
  bengali: 0x9e6,
  thai: 0xe50,
};
const phone = fc.record({
  groups: fc.tuple(alnum(DIGITS, 2, 3), alnum(DIGITS, 3, 4), alnum(DIGITS, 4, 4)),
  plus: fc.boolean(),
  script: fc.constantFrom(...Object.keys(SCRIPTS)),
  separator: fc.constantFrom(' ', '-', '\u3000', '\u00a0'),
});
const phoneText = (p: { groups: [string, string, string]; plus: boolean; script: string; separator: string }) =>
  `${p.plus ? '+' : ''}${p.groups.join(p.separator).replace(/\d/g, (d) => String.fromCharCode((SCRIPTS[p.script] as number) + Number(d)))}`;

const KEY_FORMS: readonly { prefix: string; chars: string; min: number; max: number }[] = [
  { prefix: 'sk_live_', chars: `${LOWER}ABCDEFGH`, min: 16, max: 30 },
  { prefix: 'sk_test_', chars: `${LOWER}${DIGITS}`, min: 16, max: 30 },
  { prefix: 'ghp_', chars: `${LOWER}ABCDEFGHIJKLMNOP`, min: 36, max: 36 },
  { prefix: 'github_pat_', chars: `${LOWER}${DIGITS}_`, min: 22, max: 40 },
  { prefix: 'xoxb-', chars: `${LOWER}${DIGITS}-`, min: 12, max: 30 },
  { prefix: 'glpat-', chars: `${LOWER}ABCDEFGH`, min: 20, max: 20 },
  { prefix: 'AKIA', chars: 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', min: 16, max: 16 },
  { prefix: 'AIza', chars: `${LOWER}ABCDEFGH-_`, min: 35, max: 35 },
];
const key = fc.integer({ min: 0, max: KEY_FORMS.length - 1 }).chain((i) => {
  const form = KEY_FORMS[i] as (typeof KEY_FORMS)[number];
  return alnum(form.chars, form.min, form.max).map((body) => `${form.prefix}${body}`);
});

/** A personal value in one of its forms, with the mask it must become. */
const personal = fc.oneof(
  fc
    .tuple(address, fc.constantFrom(...Object.keys(ADDRESS_FORMS)))
    .map(([a, form]) => ({ text: (ADDRESS_FORMS[form] as (a: unknown) => string)(a), mask: '[email]' })),
  phone.map((p) => ({ text: phoneText(p), mask: '[phone]' })),
  key.map((k) => ({ text: k, mask: '[secret]' })),
);

describe('generated forms inside random text', () => {
  it('none survives masking, and every other word does', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 8 }), fc.array(word, { maxLength: 8 }), personal, (before, after, value) => {
        const text = [...before, value.text, ...after].join(' ');
        expect(maskText(text)).toBe([...before, value.mask, ...after].join(' '));
      }),
      { numRuns: 2000 },
    );
  });

  it('none survives in a path segment, and the other segments do', () => {
    fc.assert(
      fc.property(fc.array(word, { minLength: 1, maxLength: 4 }), personal, fc.option(word), (segments, value, query) => {
        const path = `/${[...segments, encodeURIComponent(value.text)].join('/')}${query === null ? '' : `?email=${encodeURIComponent(value.text)}#${query}`}`;
        expect(maskPath(path)).toBe(`/${[...segments, value.mask].join('/')}`);
      }),
      { numRuns: 1000 },
    );
  });

  it('gives every form of one address the HMAC of its plain form', () => {
    const forms = ['plain', 'fullWidthAt', 'smallAt', 'ideographicStops', 'allFullWidth', 'percent', 'decimalEntity', 'hexEntity', 'namedEntity'];
    fc.assert(
      fc.property(address, fc.constantFrom(...forms), fc.boolean(), (a, form, upper) => {
        const written = (ADDRESS_FORMS[form] as (a: unknown) => string)(a);
        const shown = ` ${upper ? written.toUpperCase() : written}\t`;
        expect(hmacOf(KEY, shown)).toBe(hmacOf(KEY, (ADDRESS_FORMS['plain'] as (a: unknown) => string)(a)));
      }),
      { numRuns: 500 },
    );
  });
});

describe('maskPath', () => {
  it.each([
    ['/profile/oscar@example.com', '/profile/[email]'],
    ['/signup?email=mallory@example.com#top', '/signup'],
    ['/u/oscar&#64;example.com', '/u/[email]'],
    ['/u/oscar%40example.com/edit', '/u/[email]/edit'],
    ['/call/+44 20 7946 0958', '/call/[phone]'],
    ['/reset/sk_live_abcdefghijklmnopqrstu', '/reset/[secret]'],
    ['https://docs.acme.com/guide?utm=x', 'https://docs.acme.com/guide'],
    ['/docs/quickstart', '/docs/quickstart'],
  ])('cleans %j to %j', (path, cleaned) => {
    expect(maskPath(path)).toBe(cleaned);
  });

  it('answers the same for a segment seen before, also once more segments than it remembers have passed', () => {
    // Segments are remembered (a day's paths share most of theirs), up to a bound: each path
    // read three times across 10,000 distinct segments, the answer never changes.
    const paths = Array.from({ length: 5_000 }, (_, i) => `/docs/s${i}/${i % 3 === 0 ? `u${i}@example.com` : `page-${i}`}`);
    const expected = (p: string, i: number) => (i % 3 === 0 ? p.replace(/u\d+@example\.com$/, '[email]') : p);
    for (let pass = 0; pass < 3; pass++) {
      paths.forEach((p, i) => {
        expect(maskPath(p)).toBe(expected(p, i));
      });
    }
  });
});

describe('one person, one HMAC', () => {
  it('folds NFKC, case, spaces and an IDN domain to one value', () => {
    const forms = ['Ana@Bücher.de', ' ana@xn--bcher-kva.de ', 'ana@bu\u0308cher.de', 'ＡＮＡ＠ＢÜＣＨＥＲ．ＤＥ', 'ana@bücher。de'];
    expect(new Set(forms.map(identityOf))).toEqual(new Set(['ana@xn--bcher-kva.de']));
    expect(new Set(forms.map((form) => hmacOf(KEY, form))).size).toBe(1);
  });

  it('hashes a plain ASCII address as releases before did (the change touches only other forms)', () => {
    expect(hmacOf(KEY, ' Ana@Example.com ')).toBe(legacyHmacOf(KEY, 'ana@example.com'));
    expect(hmacOf(KEY, 'ana@bücher.de')).not.toBe(legacyHmacOf(KEY, 'ana@bücher.de'));
  });

  it('accepts every form of an address as an address', () => {
    for (const form of ['ana@bücher.de', 'ana@bu\u0308cher.de', 'ａｎａ＠ｅｘａｍｐｌｅ．ｃｏｍ', 'ana@example。com', 'ana@xn--bcher-kva.de'])
      expect(isEmailAddress(form), form).toBe(true);
    expect(isEmailAddress('not an address')).toBe(false);
  });
});

// --- round seven: wherever an address ends, every escape ------------------------------------------

/** What may follow an address directly (issue 57): the domain's labels end there. */
const GLUE = ['%', '-', '_', '~', '$', '+', '|', '^', '{', '%20', '%E0', "'", '}', '*', '`'] as const;

describe('an address ends where its domain does, whatever follows', () => {
  it.each(GLUE)('masks an address followed by %j in text and in a path segment', (glue) => {
    expect(maskText(`thanks ana@example.com${glue}thanks`)).toBe(`thanks [email]${glue}thanks`);
    expect(maskPath(`/u/ana@example.com${glue}thanks/edit`)).toBe('/u/[email]/edit');
  });

  it.each([
    ['a broken escape after an encoded at-sign (end to end: the form that reached feedback.path)', '/u/olga%40example.com%E0', '/u/[email]'],
    ['a double escape', '/u/olga%2540example.com', '/u/[email]'],
    ['a triple escape', '/u/olga%252540example.com', '/u/[email]'],
    ['an escaped dot and a broken escape before', '/u/%E0olga%40example%2Ecom', '/u/[email]'],
    ['a UTF-8 escape of the full-width at-sign', '/u/olga%EF%BC%A0example.com', '/u/[email]'],
    ['a decimal entity with leading zeros', '/u/olga&#0064;example.com', '/u/[email]'],
    ['a hex entity in upper case with leading zeros', '/u/olga&#X0040;example.com', '/u/[email]'],
    ['an entity encoded twice', '/u/olga&amp;#64;example.com', '/u/[email]'],
    ['a key in an escaped query string', '/reset%3Ftoken%3DQzWxEcRvTbYnUmIkOlPa', '/[secret]'],
    ['a punycode top-level domain', '/u/olga@example.xn--p1ai', '/u/[email]'],
  ])('masks %s in a path', (_, path, masked) => {
    expect(maskPath(path)).toBe(masked);
  });

  it.each([
    ['a broken escape after the address', 'mail olga%40example.com%E0 now', 'mail [email]%E0 now'],
    ['a double escape', 'mail olga%2540example.com now', 'mail [email] now'],
    ['a decimal entity with leading zeros', 'mail olga&#0064;example.com now', 'mail [email] now'],
    ['a hex entity', 'mail olga&#x40;example.com now', 'mail [email] now'],
    ['an entity without its semicolon', 'mail olga&#64example.com now', 'mail [email] now'],
    ['an escaped equals sign after a secret name', 'open /reset?token%3DQzWxEcRvTbYnUmIkOlPa now', 'open /reset?token%3D[secret] now'],
    ['a key named in a query string', 'open /cb?state=x&code=QzWxEcRvTbYnUmIkOlPa now', 'open /cb?state=x&code=[secret] now'],
    ['a prefixed token name', 'reset_token=QzWxEcRvTbYnUmIkOlPa', 'reset_token=[secret]'],
    ['a punycode top-level domain', 'mail olga@xn--80ak6aa92e.xn--p1ai now', 'mail [email] now'],
    ['a phone with hyphens (U+2010)', 'call +44\u201020\u20107946\u20100958 now', 'call [phone] now'],
    ['a phone with non-breaking hyphens (U+2011)', 'call 020\u20117946\u20110958 now', 'call [phone] now'],
    ['a phone with en dashes (U+2013)', 'call 020\u20137946\u20130958 now', 'call [phone] now'],
    ['a phone with minus signs (U+2212)', 'call +1\u2212555\u2212010\u22129999 now', 'call [phone] now'],
  ])('masks %s in text', (_, text, masked) => {
    expect(maskText(text)).toBe(masked);
  });

  it('leaves words with those characters alone: a date with Unicode dashes, a key word in prose, a domain with no address', () => {
    const text = 'On 2026\u201311\u201328 the key: navigation; see xn--p1ai and 100%E0 of docs.example.com-style names, code=short';
    expect(maskText(text)).toBe(text);
  });

  it('gives an address written with entities or escapes the HMAC of its plain form', () => {
    for (const form of ['olga&#0064;example.com', 'olga%2540example.com', 'olga&#X40;example.com', 'olga%40example%2Ecom'])
      expect(hmacOf(KEY, form), form).toBe(hmacOf(KEY, 'olga@example.com'));
  });

  it('accepts an address with a punycode top-level domain, or written with entities, for forget', () => {
    for (const form of ['olga@example.xn--p1ai', 'olga@xn--80ak6aa92e.xn--p1ai', 'olga&#0064;example.com']) expect(isEmailAddress(form), form).toBe(true);
    expect(isEmailAddress('olga@example.xn--')).toBe(false);
  });
});

/** Each way an address's at-sign or dots may be escaped (issue 57), generated. */
const ESCAPES: Readonly<Record<string, (char: string) => string>> = {
  percent: (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  percentLower: (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  doublePercent: (c) => `%25${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  decimalEntity: (c) => `&#${c.charCodeAt(0)};`,
  zeroPaddedDecimal: (c) => `&#000${c.charCodeAt(0)};`,
  hexEntity: (c) => `&#x${c.charCodeAt(0).toString(16)};`,
  zeroPaddedHex: (c) => `&#X00${c.charCodeAt(0).toString(16).toUpperCase()};`,
  plain: (c) => c,
};
const escapeName = fc.constantFrom(...Object.keys(ESCAPES));
const escaped = (name: string, char: string) => (ESCAPES[name] as (c: string) => string)(char);

describe('generated: every glue character and every escape', () => {
  it('masks an address with each escape of its at-sign and dots, followed by each glue character, in text', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 4 }), address, escapeName, escapeName, fc.constantFrom(...GLUE), word, (before, a, at, dot, glue, after) => {
        const written = `${a.local}${escaped(at, '@')}${[...a.domain, a.tld].join(escaped(dot, '.'))}`;
        const text = [...before, `${written}${glue}${after}`].join(' ');
        expect(maskText(text)).toBe([...before, `[email]${glue}${after}`].join(' '));
      }),
      { numRuns: 2000 },
    );
  });

  it('masks it in a path segment, raw or percent-encoded, with a broken escape after it', () => {
    fc.assert(
      fc.property(
        fc.array(word, { minLength: 1, maxLength: 3 }),
        address,
        escapeName,
        fc.constantFrom(...GLUE),
        fc.boolean(),
        (segments, a, at, glue, encode) => {
          const written = `${a.local}${escaped(at, '@')}${a.domain.join('.')}.${a.tld}${glue}`;
          const segment = encode ? encodeURIComponent(written) : written;
          expect(maskPath(`/${[...segments, segment].join('/')}`)).toBe(`/${[...segments, '[email]'].join('/')}`);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('masks a phone number whose groups are joined by any Unicode dash', () => {
    const dashes = ['\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '\ufe63', '\uff0d'];
    fc.assert(
      fc.property(fc.array(word, { maxLength: 4 }), phone, fc.constantFrom(...dashes), (before, p, dash) => {
        const text = [...before, phoneText({ ...p, separator: dash }), 'thanks'].join(' ');
        expect(maskText(text)).toBe([...before, '[phone]', 'thanks'].join(' '));
      }),
      { numRuns: 1000 },
    );
  });
});
