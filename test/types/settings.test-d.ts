/**
 * The settings' type machinery (functions/settings/config.ts) that adding a setting relies on:
 * what each function's configuration holds, what `requireSettings` narrows, and the environment
 * names infra may set for a Lambda. Checked by vitest's typecheck (the `types` project) and `tsc`.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { requireSettings, type ConfigEnvironment, type ConfigOf, type EnvNameOf, type RequiredIn } from '../../functions/settings/config.js';

describe('ConfigOf', () => {
  it("holds only the fields the function reads: the follow-up Lambda has no export's organisations queue", () => {
    expectTypeOf<ConfigOf<'follow-up'>>().not.toHaveProperty('orgsQueueUrl');
    expectTypeOf<ConfigOf<'export'>>().toHaveProperty('orgsQueueUrl');
    expectTypeOf<ConfigOf<'insights'>>().not.toHaveProperty('orgsFile');
    expectTypeOf<ConfigOf<'cli'>>().toHaveProperty('orgsFile');
  });

  it('keeps an optional setting optional and a defaulted one present', () => {
    expectTypeOf<ConfigOf<'export'>['stateTable']>().toEqualTypeOf<string | undefined>();
    expectTypeOf<ConfigOf<'export'>['settleHours']>().toEqualTypeOf<number>();
  });
});

describe('requireSettings', () => {
  it("narrows what the function's Lambda refuses to start without", () => {
    expectTypeOf<RequiredIn<'follow-up'>>().toEqualTypeOf<'followUpStateTable' | 'followUpDeadLetterQueueUrl'>();
    const config = {} as ConfigOf<'follow-up'>;
    const required = requireSettings(config, 'follow-up');
    expectTypeOf(required.followUpStateTable).toEqualTypeOf<string>();
    expectTypeOf(config.followUpStateTable).toEqualTypeOf<string | undefined>();
  });

  it('narrows only the fields named in `only`', () => {
    const config = {} as ConfigOf<'follow-up'>;
    const some = requireSettings(config, 'follow-up', ['followUpStateTable']);
    expectTypeOf(some.followUpStateTable).toEqualTypeOf<string>();
    expectTypeOf(some.followUpDeadLetterQueueUrl).toEqualTypeOf<string | undefined>();
    // @ts-expect-error: the insights check does not require the follow-up table
    requireSettings(config, 'insights', ['followUpStateTable']);
  });
});

describe("a Lambda's environment", () => {
  it('names only the variables the function reads', () => {
    expectTypeOf<'EXPORT_ORGS_QUEUE_URL'>().toExtend<EnvNameOf<'export'>>();
    expectTypeOf<'EXPORT_ORGS_QUEUE_URL'>().not.toExtend<EnvNameOf<'follow-up'>>();
    // @ts-expect-error: infra cannot give the follow-up Lambda the export's queue
    const environment: ConfigEnvironment<'follow-up'> = { EXPORT_ORGS_QUEUE_URL: 'https://sqs.example/q' };
    expectTypeOf(environment).toBeObject();
  });
});
