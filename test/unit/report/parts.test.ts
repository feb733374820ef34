/**
 * The change cell and the movers of an unclicked search: a search new to the unclicked list but
 * searched (and clicked) in the period before reads "no longer clicked", not "new".
 */
import { describe, expect, it } from 'vitest';
import type { Move } from '../../../functions/report/movers.js';
import { changeCell, moversBlock } from '../../../functions/report/page/parts.js';

const move = (key: string, current: number): Move => ({ projectId: 'proj_a', key, label: key, current, previous: 0 });

describe('an unclicked search new to the list', () => {
  it('reads "new" by default and "no longer clicked" when told it was searched before', () => {
    expect(String(changeCell(27, 0, 'more-is-bad'))).toContain('>new<');
    const lapsed = String(changeCell(27, 0, 'more-is-bad', 'no longer clicked'));
    expect(lapsed).toContain('>no longer clicked<');
    expect(lapsed).not.toContain('>new<');
  });

  it('neither badges nor colours a change chance gives at its counts, but colours a real jump', () => {
    const small = String(changeCell(12, 8, 'more-is-bad'));
    const steady = String(changeCell(503, 500, 'more-is-good'));
    const fewNew = String(changeCell(5, 0, 'more-is-bad'));

    expect(small).toContain('data-tone="flat"');
    expect(steady).toContain('data-tone="flat"');
    expect(steady).toContain('+3');
    expect(fewNew).not.toContain('new');
    expect(String(changeCell(160, 80, 'more-is-bad'))).toContain('data-tone="bad"');
    // The same counts over 15 days against 30: a per-day fall, not a rise.
    expect(String(changeCell(60, 80, 'more-is-good', 'new', { current: 15, previous: 30 }))).toContain('data-tone="flat"');
  });

  it('lists the movers that were there before under their own heading, apart from the new ones', () => {
    const block = String(
      moversBlock(
        { new: [move('fresh', 9)], lapsed: [move('lapsed', 7)], risers: [], fallers: [] },
        (m) => m.label,
        'searches',
        'more-is-bad',
        'No longer clicked',
      ),
    );
    expect(block).toMatch(/<h3>New this period<\/h3><ul><li>fresh /);
    expect(block).toMatch(/<h3>No longer clicked<\/h3><ul><li>lapsed /);
  });
});
