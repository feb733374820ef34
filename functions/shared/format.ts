/**
 * How a number reads, in every text the project writes (the report's page, the weekly digest,
 * anomaly messages, gap sentences, terminal lines): counts with en-US grouping, shares and
 * percents, signed changes and plurals. One home, so the page and the digest cannot drift apart.
 */

const COUNT = new Intl.NumberFormat('en-US');
const ONE_DECIMAL = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });

/**
 * `12,345`: exact, with thousands separators (up to 3 decimals, as `toLocaleString('en-US')`);
 * with `oneDecimal`, at most one decimal (`2.5` for a median of two days).
 */
export function formatCount(value: number, options: { readonly oneDecimal?: boolean } = {}): string {
  return (options.oneDecimal ? ONE_DECIMAL : COUNT).format(value);
}

/** `12.3 %` of a share (0.123), or `—` when there is nothing to divide. */
export function formatShare(value: number | null): string {
  return value === null ? '—' : `${(value * 100).toFixed(1)} %`;
}

/** `38 %`: `part` of `whole` in whole percent; `0 %` of nothing. */
export function percent(part: number, whole: number): string {
  return `${whole === 0 ? 0 : Math.round((100 * part) / whole)} %`;
}

/** The minus sign of the page (U+2212, typographic) and of plain-text messages (ASCII). */
export type MinusSign = '−' | '-';

/** `+12`, `−3`, `±0` of a change, with `text` the magnitude as shown (a leading `-` is dropped). */
export function signed(value: number, text: string, minus: MinusSign = '−'): string {
  return value > 0 ? `+${text}` : value < 0 ? `${minus}${text.replace(/^-/, '')}` : '±0';
}

/**
 * The relative change from `previous` to `current` in whole percent: `+12 %`, `−40 %`, `0 %`
 * (also when it rounds to nothing), `new` from 0, `0 %` from 0 to 0.
 */
export function formatChange(current: number, previous: number, minus: MinusSign = '−'): string {
  if (previous === 0) return current === 0 ? '0 %' : 'new';
  const change = Math.round((100 * (current - previous)) / previous);
  return change === 0 ? '0 %' : signed(change, `${Math.abs(change)} %`, minus);
}

/** `1 question`, `3 questions`, `2 searches` (`many` for an irregular plural); the number as is. */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
