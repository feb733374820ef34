/**
 * The unit loop's privacy (functions/export/run-units.ts `UnitLoop`): the run's, prepared once
 * (`prepareRunPrivacy`), never a unit's own given as it is — the optional union R16 removed.
 */
import { describe, expectTypeOf, it } from 'vitest';
import type { Privacy, RunPrivacy } from '../../functions/export/privacy.js';
import type { UnitLoop } from '../../functions/export/run-units.js';

describe("the unit loop's privacy", () => {
  it("is the run's, or prepared by the loop", () => {
    expectTypeOf<UnitLoop['privacy']>().toEqualTypeOf<RunPrivacy | undefined>();
    expectTypeOf<Privacy>().not.toMatchTypeOf<NonNullable<UnitLoop['privacy']>>();
  });
});
