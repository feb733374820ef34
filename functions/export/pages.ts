/**
 * Where a unit's pages come from, as async generators its export (`unit.ts`) consumes:
 *
 * - `stagedPages`: the pages earlier runs staged, read back and replayed through the pager's
 *   stop rules — which rebuilds its duplicate detection — up to where the checkpoint stands.
 *
 * Nothing here stages a page, writes a checkpoint or a row: the consumer does, page by page.
 * A checkpoint that no longer fits the day's data ends a generator with `RestartUnit`.
 */
import { DestinationError } from '../shared/errors.js';
import type { DatasetDef } from './datasets.js';
import { INITIAL_STATE, type Pager, type PagerState } from './paging.js';
import type { Checkpoint, UnitStaging } from './staging.js';

/** The checkpoint no longer fits the day's data: the unit starts over (caught by `exportUnit`). */
export class RestartUnit extends Error {}

/** A page an earlier run staged, accepted again by the pager. */
export interface StagedPage {
  readonly page: unknown;
  /** Its position: pages staged before it. */
  readonly index: number;
}

/**
 * The pages `checkpoint` counts, read back from the staging and replayed through `pager` (which
 * is then where the checkpoint stands). A page that cannot be read, or a checkpoint whose
 * position does not follow from its pages, restarts the unit.
 */
export async function* stagedPages(
  checkpoint: Checkpoint,
  staging: Pick<UnitStaging, 'readPage'>,
  pager: Pager,
  def: Pick<DatasetDef, 'view'>,
): AsyncGenerator<StagedPage, void, undefined> {
  let state: PagerState = INITIAL_STATE;
  for (let index = 0; index < checkpoint.state.pages; index++) {
    let page: unknown;
    try {
      page = await staging.readPage(index);
    } catch (error) {
      if (error instanceof DestinationError) throw new RestartUnit(error.message);
      throw error;
    }
    state = pager.accept(state, def.view(page)).state;
    yield { page, index };
  }
  // The position the staged pages lead to must be the checkpoint's: a checkpoint that points
  // elsewhere (written by another version, edited, half of a crash) would skip or repeat rows
  // silently.
  if (state.offset !== checkpoint.state.offset || state.cursor !== checkpoint.state.cursor) {
    throw new RestartUnit(
      `the checkpoint's position (${positionText(checkpoint.state)}) does not follow from its ${checkpoint.state.pages} staged page(s) (${positionText(state)})`,
    );
  }
}

/** `offset 500` or `cursor "abc"`, for messages. */
function positionText(state: PagerState): string {
  if (state.cursor !== undefined) return `cursor ${JSON.stringify(state.cursor.slice(0, 40))}`;
  return state.offset !== undefined ? `offset ${state.offset}` : `${state.pages} page(s)`;
}
