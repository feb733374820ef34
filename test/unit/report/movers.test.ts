/**
 * What moved between the report's period and the one before, for one ranking (report/movers.ts):
 * what is new, what rose and what fell the most, on typed rankings in milliseconds. A ranking is
 * cut at a limit: a thing below the cut is unknown, not zero.
 */
import { describe, expect, it } from 'vitest';
import { MOVERS_SHOWN, type Move, moversOf, type Ranked } from '../../../functions/report/movers.js';

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

  it('lists the biggest rises and falls of things in both periods by how much they moved, leaving out what did not move', () => {
    const current = ranking([
      ['/a', 120],
      ['/b', 40],
      ['/c', 90],
      ['/d', 30],
      ['/e', 70],
    ]);
    const previous = ranking([
      ['/a', 100],
      ['/b', 100],
      ['/c', 30],
      ['/d', 35],
      ['/e', 70],
    ]);

    const movers = moversOf(current, previous, LIMIT);

    expect(moves(movers.risers)).toEqual(['proj_a /c 30->90', 'proj_a /a 100->120']);
    expect(moves(movers.fallers)).toEqual(['proj_a /b 100->40', 'proj_a /d 35->30']);
    expect(movers.new).toEqual([]);
  });

  it('calls a thing new only when the ranking before was complete (fewer rows than the cut), biggest first', () => {
    const current = ranking([
      ['/a', 10],
      ['/new-small', 5],
      ['/new-big', 80],
    ]);
    const complete = ranking([['/a', 10]]);
    const cut = ranking([
      ['/a', 10],
      ['/b', 9],
      ['/c', 8],
    ]);

    expect(moves(moversOf(current, complete, 3).new)).toEqual(['proj_a /new-big 0->80', 'proj_a /new-small 0->5']);
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
    const previous = ranking(keys.map((key) => [key, 100] as const));
    const current = ranking([...keys.map((key, i) => [key, 100 + (i + 1) * 10] as const), ...keys.map((key, i) => [`${key}-new`, i + 1] as const)]);

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
      ['fresh', 9],
      ['lapsed', 7],
      ['kept', 5],
    ]);
    const previous = ranking([['kept', 5]]);
    const searchedBefore = new Set(['lapsed', 'kept']);

    const movers = moversOf(current, previous, LIMIT, (r) => searchedBefore.has(r.key));

    expect(moves(movers.new)).toEqual(['proj_a fresh 0->9']);
    expect(moves(movers.lapsed)).toEqual(['proj_a lapsed 0->7']);
  });
});
