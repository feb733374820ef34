/**
 * What moved between the report's period and the one before, for one ranking (report/movers.ts):
 * what is new, what rose and what fell the most, on typed rankings in milliseconds. A ranking is
 * cut at a limit: a thing below the cut is unknown, not zero. Only a change beyond chance at its
 * counts moves, measured per day exported.
 */
import { describe, expect, it } from 'vitest';
import { MOVERS_SHOWN, type Move, moversOf, perDayChange, type Ranked } from '../../../functions/report/movers.js';

/** A ranking of paths of one project, from `[path, value]` pairs. */
const ranking = (rows: readonly (readonly [string, number])[], projectId = 'proj_a'): Ranked[] =>
  rows.map(([key, value]) => ({ projectId, key, label: key, value }));
const moves = (list: readonly Move[]) => list.map((m) => `${m.projectId} ${m.key} ${m.previous}->${m.current}`);
const LIMIT = 10;

describe('movers of a ranking', () => {
  it('says nothing moved when the period before has no data', () => {
    const movers = moversOf(ranking([['/a', 50]]), [], LIMIT);
    expect(movers).toEqual({ new: [], lapsed: [], risers: [], fallers: [] });
  });

  it('lists the biggest rises and falls of things in both periods by how much they moved, leaving out what did not move beyond chance', () => {
    const current = ranking([
      ['/a', 1200],
      ['/b', 400],
      ['/c', 900],
      ['/d', 500],
      ['/e', 70],
      ['/f', 106],
    ]);
    const previous = ranking([
      ['/a', 1000],
      ['/b', 1000],
      ['/c', 300],
      ['/d', 700],
      ['/e', 70],
      ['/f', 100],
    ]);

    const movers = moversOf(current, previous, LIMIT);

    expect(moves(movers.risers)).toEqual(['proj_a /c 300->900', 'proj_a /a 1000->1200']);
    expect(moves(movers.fallers)).toEqual(['proj_a /b 1000->400', 'proj_a /d 700->500']);
    expect(movers.new).toEqual([]);
  });

  it('lists neither a +0.6 % change nor a small one that chance gives, but a real jump at the same counts', () => {
    const current = ranking([
      ['/steady', 503],
      ['/small', 12],
      ['/jump', 160],
    ]);
    const previous = ranking([
      ['/steady', 500],
      ['/small', 8],
      ['/jump', 80],
    ]);

    const movers = moversOf(current, previous, LIMIT);

    expect(moves(movers.risers)).toEqual(['proj_a /jump 80->160']);
    expect(movers.fallers).toEqual([]);
  });

  it('compares a project over the days each period has exported: a period missing a day does not fall by a day', () => {
    // 29 days exported against 30: 29 × 1,000 views against 30 × 1,000 is no fall; 29 × 1,500 against 30 × 1,000 is a rise.
    const current = ranking([
      ['/same', 29_000],
      ['/up', 43_500],
    ]);
    const previous = ranking([
      ['/same', 30_000],
      ['/up', 30_000],
    ]);
    const days = { current: 29, previous: 30 };

    const movers = moversOf(current, previous, LIMIT, undefined, () => days);
    const asTotals = moversOf(current, previous, LIMIT);

    expect(movers.fallers).toEqual([]);
    expect(movers.risers).toEqual([{ projectId: 'proj_a', key: '/up', label: '/up', current: 43_500, previous: 30_000, days }]);
    expect(perDayChange(movers.risers[0] as Move)).toBe(500);
    // Compared as totals the missing day would read as a fall of 1,000 views.
    expect(moves(asTotals.fallers)).toEqual(['proj_a /same 30000->29000']);
  });

  it('calls a thing new only when the ranking before was complete (fewer rows than the cut), biggest first', () => {
    const current = ranking([
      ['/a', 10],
      ['/new-small', 5],
      ['/new-big', 80],
      ['/new-12', 12],
    ]);
    const complete = ranking([['/a', 10]]);
    const cut = ranking([
      ['/a', 10],
      ['/b', 9],
      ['/c', 8],
    ]);

    // 5 views from none is what chance gives (fewer than NOISE.minCount): not new.
    expect(moves(moversOf(current, complete, 3).new)).toEqual(['proj_a /new-big 0->80', 'proj_a /new-12 0->12']);
    // With the ranking before cut at 3 rows, /new-big may have been just below the cut: not new.
    expect(moversOf(current, cut, 3).new).toEqual([]);
  });

  it('lets a thing that left a complete ranking fall to nothing, but not one that left a ranking cut at the limit', () => {
    const previous = ranking([
      ['/a', 10],
      ['/gone', 60],
    ]);
    const complete = ranking([['/a', 10]]);
    const cut = ranking([
      ['/a', 10],
      ['/x', 3],
      ['/y', 2],
    ]);

    expect(moves(moversOf(complete, previous, 3).fallers)).toEqual(['proj_a /gone 60->0']);
    // The current ranking holds 3 rows of 3: /gone may sit just below the cut, so it is not a faller.
    expect(moversOf(cut, previous, 3).fallers).toEqual([]);
  });

  it(`shows at most ${MOVERS_SHOWN} of each kind, the largest`, () => {
    const keys = Array.from({ length: 8 }, (_, i) => `/p${i}`);
    const previous = ranking(keys.map((key) => [key, 1000] as const));
    const current = ranking([...keys.map((key, i) => [key, 1000 + (i + 1) * 100] as const), ...keys.map((key, i) => [`${key}-new`, (i + 1) * 10] as const)]);

    const movers = moversOf(current, previous, 100);

    expect(movers.risers.map((m) => m.key)).toEqual(['/p7', '/p6', '/p5', '/p4', '/p3']);
    expect(movers.new.map((m) => m.key)).toEqual(['/p7-new', '/p6-new', '/p5-new', '/p4-new', '/p3-new']);
  });

  it('keeps the same key of two projects apart and breaks ties by project, then key', () => {
    const current = [
      ...ranking(
        [
          ['/a', 50],
          ['/b', 50],
        ],
        'proj_b',
      ),
      ...ranking(
        [
          ['/b', 50],
          ['/a', 50],
        ],
        'proj_a',
      ),
    ];
    const previous = [
      ...ranking(
        [
          ['/a', 20],
          ['/b', 10],
        ],
        'proj_b',
      ),
      ...ranking(
        [
          ['/b', 10],
          ['/a', 10],
        ],
        'proj_a',
      ),
    ];

    const movers = moversOf(current, previous, LIMIT);

    expect(moves(movers.risers)).toEqual(['proj_a /a 10->50', 'proj_a /b 10->50', 'proj_b /b 10->50', 'proj_b /a 20->50']);
  });

  it('carries the label as shown, apart from the key it matches on', () => {
    const current: Ranked[] = [{ projectId: 'proj_a', key: 'install cli', label: 'Install CLI', value: 30 }];
    const previous: Ranked[] = [{ projectId: 'proj_a', key: 'install cli', label: 'install CLI', value: 10 }];

    expect(moversOf(current, previous, LIMIT).risers).toEqual([{ projectId: 'proj_a', key: 'install cli', label: 'Install CLI', current: 30, previous: 10 }]);
  });
});

describe('searches new to the unclicked list', () => {
  it('lists a search searched (and clicked) in the period before as no longer clicked, not as new', () => {
    const current = ranking([
      ['fresh', 19],
      ['lapsed', 17],
      ['unsure', 15],
      ['kept', 5],
    ]);
    const previous = ranking([['kept', 5]]);
    const searchedBefore = new Set(['lapsed', 'kept']);

    const movers = moversOf(current, previous, LIMIT, (r) => (r.key === 'unsure' ? 'unsure' : searchedBefore.has(r.key) ? 'lapsed' : 'absent'));

    expect(moves(movers.new)).toEqual(['proj_a fresh 0->19']);
    expect(moves(movers.lapsed)).toEqual(['proj_a lapsed 0->17']);
  });
});
