/**
 * `listingStretches` (functions/warehouse/lake/rollups-read.ts) and `monthsBlockPrefix` (lake/layout.ts): a table
 * folder's months before the lake began listed by the fewest key prefixes that hold exactly them — never one running on
 * into a month outside them.
 */
import { describe, expect, it } from 'vitest';
import { monthsBlockPrefix } from '../../../functions/warehouse/lake/layout.js';
import { listingStretches, monthStretches } from '../../../functions/warehouse/lake/rollups-read.js';

/** What each listing asks for: a block of months, or a month. */
const asked = (stretches: readonly ({ from: string; to: string } & ({ month: string } | { block: string }))[]) =>
  stretches.map((stretch) => ('block' in stretch ? `block ${stretch.block} ${stretch.from}..${stretch.to}` : `month ${stretch.month}`));

describe('listingStretches', () => {
  // A year's report: the year before it and the year itself, from 5 October 2024 (a window starting inside a month).
  const window = monthStretches({ from: '2024-10-05', to: '2026-10-01' });

  it('lists the months without a manifest by whole years, January to September, October to December, then months', () => {
    // The lake began in October 2025: October 2024 to September 2025 have no manifest.
    const out = listingStretches(window, (month) => month < '2025-10');
    expect(asked(out)).toEqual([
      'block 2024-1 2024-10-05..2025-01-01',
      'block 2025-0 2025-01-01..2025-10-01',
      ...window.filter((stretch) => stretch.month >= '2025-10').map((stretch) => `month ${stretch.month}`),
    ]);
  });

  it('uses a whole year when the run holds one, and single months at a run’s ragged ends', () => {
    const stretches = monthStretches({ from: '2023-11-01', to: '2025-03-01' });
    expect(asked(listingStretches(stretches, () => true))).toEqual([
      'month 2023-11',
      'month 2023-12',
      'block 2024- 2024-01-01..2025-01-01',
      'month 2025-01',
      'month 2025-02',
    ]);
  });

  it('never joins across a month left out (held whole by its roll-up) nor across a month with a manifest', () => {
    const empty = (month: string) => month !== '2025-05';
    const listed = monthStretches({ from: '2025-01-01', to: '2026-01-01' }).filter((stretch) => stretch.month !== '2025-11');
    expect(asked(listingStretches(listed, empty))).toEqual([
      'month 2025-01',
      'month 2025-02',
      'month 2025-03',
      'month 2025-04',
      'month 2025-05',
      'month 2025-06',
      'month 2025-07',
      'month 2025-08',
      'month 2025-09',
      'month 2025-10',
      'month 2025-12',
    ]);
  });

  it('lists every month on its own when each has a manifest, and nothing for nothing', () => {
    expect(listingStretches(window, () => false)).toEqual(window);
    expect(listingStretches([], () => true)).toEqual([]);
  });
});

describe('monthsBlockPrefix', () => {
  it('is the prefix of exactly the block’s months, and refuses anything else', () => {
    expect(monthsBlockPrefix('views_pages/', '2025-')).toBe('views_pages/dt=2025-');
    expect(monthsBlockPrefix('views_pages', '2025-0')).toBe('views_pages/dt=2025-0');
    expect(monthsBlockPrefix('views_pages', '2025-1')).toBe('views_pages/dt=2025-1');
    expect(monthsBlockPrefix('views_pages', '2025-07')).toBe('views_pages/dt=2025-07');
    for (const bad of ['2025', '2025-13', '2025-2', '25-01', '2025-01-01', '../x'])
      expect(() => monthsBlockPrefix('views_pages', bad), bad).toThrow(/not a block/);
  });
});
