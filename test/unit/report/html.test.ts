import { describe, expect, it } from 'vitest';
import { previousPeriod } from '../../../functions/warehouse/period.js';
import { formatCount, formatShare } from '../../../functions/shared/format.js';
import { userText } from '../../../functions/report/html.js';
import { escapeHtml } from '../../../functions/report/page/template.js';
import { reportFileOf } from '../../../functions/report/targets.js';
import { reportPeriod } from '../../../functions/cli/report.js';
import { ConfigError } from '../../../functions/shared/errors.js';
import { parseLakeTarget } from '../../../functions/warehouse/lake/target.js';

describe('escapeHtml', () => {
  it('escapes the five characters that can end text or an attribute', () => {
    expect(escapeHtml(`<a href="x" title='y'>&amp;</a>`)).toBe('&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;amp;&lt;/a&gt;');
  });
});

describe('userText', () => {
  it('masks e-mail addresses, including non-ASCII and plus addresses', () => {
    expect(userText('write to renée.dupont@example.fr or dev+docs@example.org please')).toBe('write to [email] or [email] please');
  });

  it('removes terminal controls and bidirectional overrides, and folds whitespace (readerText)', () => {
    expect(userText('a\u001b[31mb\tc\n\nd')).toBe('a[31mb c d');
    expect(userText('/files/\u202Egnp.exe')).toBe('/files/gnp.exe');
  });

  it('cuts long text with an ellipsis at the limit', () => {
    expect(userText('x'.repeat(200), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it("renders a 1 MB value of A's or of emoji cut to its limit (cut first, then a linear mask: its time is npm run bench -- masking)", () => {
    for (const value of ['A'.repeat(1 << 20), '😀'.repeat(1 << 19), `${'a.b'.repeat(300_000)}@`, '@a.'.repeat(350_000), 'x@'.repeat(500_000)]) {
      const shown = userText(value);
      expect(shown.length).toBeLessThanOrEqual(160);
      expect(shown.endsWith('…')).toBe(true);
    }
  });

  it('never cuts an emoji in half', () => {
    const shown = userText('😀'.repeat(100), 10);
    expect(shown).toBe(`${'😀'.repeat(4)}…`);
  });

  it('masks an address that straddles the cut, and an address whose end was cut away before cleaning', () => {
    expect(userText(`${'word '.repeat(30)}someone.private@example.com and more`, 160)).not.toContain('someone');
    expect(userText(`${'word '.repeat(30)}someone.private@example.com and more`, 160)).toContain('[email]');
    const huge = `${' '.repeat(1_800)}hello someone.private@exam${'ple'.repeat(1_000)}`;
    expect(userText(huge)).toBe('hello [email]…');
  });

  it('keeps what is not an address: handles, scoped packages, an @ with no dot after it', () => {
    expect(userText('npm i @scope/pkg; ping @alice; v2@latest')).toBe('npm i @scope/pkg; ping @alice; v2@latest');
  });
});

describe('numbers', () => {
  it('shows counts in full with thousands separators and shares to a tenth of a per cent', () => {
    expect(formatCount(1234567)).toBe('1,234,567');
    expect(formatShare(0.12345)).toBe('12.3 %');
    expect(formatShare(null)).toBe('—');
  });
});

describe('periods and files', () => {
  const now = Date.parse('2026-10-20T06:00:00Z');

  it('defaults to the last 30 due days and compares with the 30 before', () => {
    const period = reportPeriod({}, now, 2);
    expect(period).toMatchObject({ from: '2026-09-20', to: '2026-10-20' });
    expect(period.days).toHaveLength(30);
    expect(previousPeriod(period)).toMatchObject({ from: '2026-08-21', to: '2026-09-20' });
  });

  it('takes --from/--to as given (--to exclusive) and refuses a day not over yet', () => {
    expect(reportPeriod({ from: '2026-10-01', to: '2026-10-08' }, now, 2).days).toHaveLength(7);
    expect(() => reportPeriod({ from: '2026-10-19', to: '2026-10-22' }, now, 2)).toThrow(ConfigError);
  });

  it('writes into the local destination, or the current folder for S3, unless --file says', () => {
    expect(reportFileOf(parseLakeTarget('./data', '--out', '/home/me'), undefined, '/home/me')).toBe('/home/me/data/report.html');
    expect(reportFileOf(parseLakeTarget('file:///srv/lake', '--out', '/home/me'), undefined, '/home/me')).toBe('/srv/lake/report.html');
    expect(reportFileOf(parseLakeTarget('s3://bucket/prefix', '--out', '/home/me'), undefined, '/home/me')).toBe('/home/me/report.html');
    expect(reportFileOf(parseLakeTarget('s3://bucket/prefix', '--out', '/home/me'), 'out/weekly.html', '/home/me')).toBe('/home/me/out/weekly.html');
  });
});
