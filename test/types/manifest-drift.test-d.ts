/**
 * A manifest's drift read through its schema (functions/export/manifest.ts `MANIFEST_DRIFT`) is
 * the drift the recorder writes (functions/export/drift.ts `Drift`): the report gets a typed
 * `Drift | undefined`, never `unknown` read defensively (R4).
 */
import type * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import type { Drift } from '../../functions/export/drift.js';
import type { MANIFEST_DRIFT } from '../../functions/export/manifest.js';
import type { UnitView } from '../../functions/export/units.js';
import type { describeUnitDrift } from '../../functions/export/drift-text.js';

describe("a manifest's drift", () => {
  it('reads as the drift the recorder writes', () => {
    expectTypeOf<v.InferOutput<typeof MANIFEST_DRIFT>>().toMatchTypeOf<Drift>();
  });

  it("is what the report's calendar describes, typed", () => {
    expectTypeOf<Extract<UnitView, { state: 'complete' }>['drift']>().toEqualTypeOf<Drift | undefined>();
    expectTypeOf<Parameters<typeof describeUnitDrift>[0]>().toEqualTypeOf<Drift | undefined>();
    expectTypeOf<unknown>().not.toMatchTypeOf<Parameters<typeof describeUnitDrift>[0]>();
  });
});
