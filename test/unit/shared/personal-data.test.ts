import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createRedactor } from '../../../functions/shared/api/redact.js';
import { ConfigError } from '../../../functions/shared/errors.js';
import { hmacOf, isEmailAddress, keyIdOf, maskDeep, maskText } from '../../../functions/shared/personal-data/index.js';
import { parsePolicyOverrides, resolvePolicy } from '../../../functions/warehouse/column-policy.js';

describe('maskText', () => {
  it('replaces e-mail addresses and keeps the rest of the sentence', () => {
    expect(maskText('Write to renée.dupont@example.fr or dev+docs@example.org, thanks!')).toBe('Write to [email] or [email], thanks!');
  });

  it('replaces phone numbers in the usual notations', () => {
    expect(maskText('Call +1 (555) 010-9999 or 020 7946 0958 or +44-20-7946-0958 today')).toBe('Call [phone] or [phone] or [phone] today');
  });

  it('leaves dates, times, versions, IP addresses and short numbers alone', () => {
    const text = 'On 2026-11-27 10:30 version 1.2.3 from 192.168.100.200 sent 401 after 1500 ms';
    expect(maskText(text)).toBe(text);
  });

  it('replaces API keys, bearer tokens and key=value secrets', () => {
    expect(maskText('curl -H "Authorization: Bearer mint_9f8e7d6c5b4a3210" with key sk_live_51HxQ2cKz8L0v9aB1c2D3e4F')).toBe(
      'curl -H "Authorization: Bearer [secret]" with key [secret]',
    );
    expect(maskText('my api_key=Zq9XbT2mK8vL1pRw and password: hunter22!')).toBe('my api_key=[secret] and password: [secret]');
    expect(maskText('token ghp_1234567890abcdefghijABCDEFGHIJ123456 and AKIAIOSFODNN7EXAMPLE here')).toBe('token [secret] and [secret] here');
    expect(maskText('jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U ok')).toBe('jwt [secret] ok');
  });

  it('keeps ordinary long words, slugs and paths', () => {
    const text = 'See /docs/api-reference/v1/endpoints-list-all and Donaudampfschifffahrtsgesellschaft';
    expect(maskText(text)).toBe(text);
  });

  it('replaces a short phone number when a word such as call, phone or tel leads it', () => {
    expect(maskText('call me on 5550199 after six, or tel: 79460958')).toBe('call me on [phone] after six, or tel: [phone]');
    expect(maskText('Phone number 0612 3456')).toBe('Phone number [phone]');
  });

  it('leaves short digit runs alone without such a lead: counts, ids, order numbers', () => {
    const text = 'Order 5550199 shipped; we served 1234567 requests, call 3 times then wait 1500000 ms. Build 20261127 is out.';
    expect(maskText(text)).toBe(text);
  });

  it('replaces an address written out with at and dot', () => {
    expect(maskText('write to ana at example dot com please')).toBe('write to [email] please');
    expect(maskText('ana.silva [at] example [dot] co [dot] uk, or bob(at)example.org.')).toBe('[email], or [email].');
  });

  it('leaves at and dot in ordinary docs text alone', () => {
    const text = 'The API is available at docs.example.com and at api dot example — look at the dot com era; at least one dot is needed; meet at noon dot.';
    expect(maskText(text)).toBe(text);
  });

  it('replaces phone numbers written in Arabic-Indic, Devanagari or full-width digits', () => {
    expect(maskText('اتصل ٠٥٥ ١٢٣ ٤٥٦٧ شكرا')).toBe('اتصل [phone] شكرا');
    expect(maskText('कॉल करें ९८७६५ ४३२१० धन्यवाद')).toBe('कॉल करें [phone] धन्यवाद');
    expect(maskText('電話 ０９０-１２３４-５６７８ まで')).toBe('電話 [phone] まで');
  });

  it('leaves dates and short numbers in those digits alone', () => {
    const text = 'في ٢٠٢٦-١١-٢٧ الساعة ١٠:٣٠ — ２０２６年 ３ 件';
    expect(maskText(text)).toBe(text);
  });

  it('masks a 1 MB text of any make-up without failing (its time and linearity: npm run bench -- masking)', () => {
    const sentence = 'Mail me at ana.silva@example.com or call +1 555 010 9999, key mint_abcdef123456 — merci ! ';
    const inputs = [
      sentence.repeat(Math.ceil(1_048_576 / sentence.length)),
      'a'.repeat(1_048_576),
      '1 '.repeat(524_288),
      'a@'.repeat(524_288),
      'x.'.repeat(524_288),
      'at '.repeat(349_525),
      ' x at y dot'.repeat(95_326),
      'a at dot '.repeat(116_509),
      `call ${'1'.repeat(20)} `.repeat(40_330),
      '٠ '.repeat(524_288),
      `${'A1b'.repeat(349_525)}`,
    ];
    for (const input of inputs) {
      const masked = maskText(input);
      expect(typeof masked, JSON.stringify(input.slice(0, 12))).toBe('string');
      expect(masked.length, JSON.stringify(input.slice(0, 12))).toBeGreaterThan(0);
    }
    expect(maskText(inputs[0] as string)).not.toContain('ana.silva@example.com');
  });
});

describe('maskDeep', () => {
  it('masks the strings inside arrays and objects and leaves other values as they are', () => {
    const big = 12345678901234567890n;
    expect(maskDeep({ note: 'mail a@example.com', n: 5551234567, big, list: ['+1 555 010 9999', true, null] })).toEqual({
      note: 'mail [email]',
      n: 5551234567,
      big,
      list: ['[phone]', true, null],
    });
  });
});

describe('hmacOf', () => {
  it('is the lowercase hex HMAC-SHA256 of the trimmed, lower-cased value', () => {
    const expected = createHmac('sha256', 'k'.repeat(32)).update('ana.silva@example.com').digest('hex');
    expect(hmacOf('k'.repeat(32), '  Ana.Silva@Example.COM ')).toBe(expected);
  });

  it('gives a key id that does not reveal the key and differs between keys', () => {
    expect(keyIdOf('a'.repeat(32))).toMatch(/^[0-9a-f]{12}$/);
    expect(keyIdOf('a'.repeat(32))).not.toBe(keyIdOf('b'.repeat(32)));
  });
});

describe('policy', () => {
  it('defaults contact to hmac, free text to mask and the rest to keep', () => {
    const policy = resolvePolicy({});
    expect(policy.of('feedback', 'contact')).toBe('hmac');
    for (const [table, column] of [
      ['feedback', 'comment'],
      ['feedback', 'code'],
      ['assistant_conversations', 'query'],
      ['assistant_conversations', 'response'],
      ['searches', 'search_query'],
    ] as const) {
      expect(policy.of(table, column)).toBe('mask');
    }
    // Issue 42: paths and URLs are cleaned by default (the `path` policy); the rest stays keep.
    expect(policy.of('feedback', 'path')).toBe('path');
    expect(policy.of('feedback', 'status')).toBe('keep');
  });

  it('takes overrides by table or dataset name', () => {
    const overrides = parsePolicyOverrides('feedback.contact=drop, assistant.response=keep', 'PERSONAL_DATA_POLICY');
    const policy = resolvePolicy(overrides);
    expect(policy.of('feedback', 'contact')).toBe('drop');
    expect(policy.of('assistant_conversations', 'response')).toBe('keep');
  });

  it.each([
    ['feedback.path=hmac', 'feedback.path is a page path, not a personal column: use path, keep or mask'],
    ['feedback.status=keep', 'feedback.status is not a personal or path column'],
    ['feedback.contact=encrypt', 'feedback.contact=encrypt'],
    ['nothing', 'nothing'],
    ['searches.search_query=drop', 'never null'],
  ])('refuses %s in one line naming the fix', (raw, part) => {
    expect(() => parsePolicyOverrides(raw, 'PERSONAL_DATA_POLICY')).toThrow(ConfigError);
    expect(() => parsePolicyOverrides(raw, 'PERSONAL_DATA_POLICY')).toThrow(part);
  });
});

describe('isEmailAddress', () => {
  it.each(['ana.silva@example.com', "j.o'brien@example.ie", 'renée.dupont@example.fr'])('accepts %s', (address) => {
    expect(isEmailAddress(address)).toBe(true);
  });
  it.each(['', 'ana', 'ana@', '@example.com', 'ana@example', 'a b@example.com', 'ana@@example.com'])('refuses %j', (address) => {
    expect(isEmailAddress(address)).toBe(false);
  });
});

describe('what a server quotes back', () => {
  it('is masked before it reaches an error message or a log line', () => {
    const redactor = createRedactor(['mint_the_client_key_123']);

    const scrubbed = redactor.scrub('comment is invalid (got "mail ana.silva@example.com or +1 555 010 9999, key mint_the_client_key_123")');
    const quoted = redactor.redact('"call +44 20 7946 0958"');

    expect(scrubbed).toBe('comment is invalid (got "mail [email] or [phone], key [redacted]")');
    expect(quoted).toBe('"call [phone]"');
  });
});
