/**
 * What a run learns as it goes (runUnits): the pages of the units it completes refresh the
 * estimates of the units still to do — the same dataset and project (no longer a guess), or, for
 * a guess, the same dataset (still a guess, but another project's pages rather than a typical day).
 */
import type { PlannedUnit } from './plan.js';

/** The estimates of one run's units as the run now knows them. */
export interface EstimateBook {
  /** A completed unit's pages. */
  learn(unit: Pick<PlannedUnit, 'dataset' | 'projectId'>, pages: number): void;
  /** The requests `unit` is now expected to need. */
  estimate(unit: PlannedUnit): number;
  /** Whether `unit`'s estimate is still a guess (nothing learnt of its project's dataset). */
  stillGuess(unit: PlannedUnit): boolean;
  /** `unit` with its estimate as the run now knows it: a guess no longer once its project's dataset is learnt, a typical day no longer once its dataset is. */
  refreshed(unit: PlannedUnit): PlannedUnit;
  /** The requests of the planned units from `position` on. */
  remainingFrom(position: number): number;
  /** How many of the planned units from `position` on are still a guess. */
  guessesFrom(position: number): number;
}

/** The book of a run over `planned` (in the run's order), with nothing learnt yet. */
export function createEstimateBook(planned: readonly PlannedUnit[]): EstimateBook {
  const learnt = new Map<string, number>();
  const learntOfDataset = new Map<string, number>();
  const estimate = (u: PlannedUnit): number => {
    const full = learnt.get(`${u.dataset}/${u.projectId}`) ?? (u.guess ? learntOfDataset.get(u.dataset) : undefined);
    return full === undefined ? u.estimate : Math.max(1, full);
  };
  const stillGuess = (u: PlannedUnit): boolean => u.guess === true && !learnt.has(`${u.dataset}/${u.projectId}`);
  return {
    learn(unit, pages) {
      learnt.set(`${unit.dataset}/${unit.projectId}`, pages);
      learntOfDataset.set(unit.dataset, Math.max(learntOfDataset.get(unit.dataset) ?? 0, pages));
    },
    estimate,
    stillGuess,
    refreshed(u) {
      const { guess: _guess, typical: _typical, ...rest } = u;
      const typical = u.typical === true && !learntOfDataset.has(u.dataset);
      return { ...rest, estimate: estimate(u), ...(stillGuess(u) ? { guess: true as const } : {}), ...(typical ? { typical: true as const } : {}) };
    },
    remainingFrom: (position) => planned.slice(position).reduce((sum, u) => sum + estimate(u), 0),
    guessesFrom: (position) => planned.slice(position).filter(stillGuess).length,
  };
}
