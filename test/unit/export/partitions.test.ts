/**
 * registerDays (functions/warehouse/partitions.ts) on a narrow fake of the Glue client's `send`:
 * the call shapes Glue limits (100 partitions a call, one GetTable a table), and a table whose
 * partition keys a unit cannot fill. The calls over HTTP, the grants and the retries across
 * runs are tested against the Glue stand-in (test/integration/export/handler-partitions/export-partitions.test.ts).
 */
import { BatchCreatePartitionCommand, GetTableCommand } from '@aws-sdk/client-glue';
import { describe, expect, it } from 'vitest';
import { MAX_PARTITIONS_PER_CALL, registerDays, type GlueSend } from '../../../functions/warehouse/partitions.js';
import { addDays } from '../../../functions/shared/dates.js';

/** A Glue whose table is partitioned by `keys`, recording each command's name and partition count. */
function fakeGlue(keys: readonly string[], location = 's3://b/p/t', template?: string) {
  const calls: string[] = [];
  const inputs: unknown[] = [];
  const glue = {
    send: async (command: unknown) => {
      if (command instanceof GetTableCommand) {
        calls.push('GetTable');
        return {
          Table: {
            StorageDescriptor: { Location: location },
            PartitionKeys: keys.map((Name) => ({ Name })),
            ...(template ? { Parameters: { 'storage.location.template': template } } : {}),
          },
        };
      }
      if (command instanceof BatchCreatePartitionCommand) {
        calls.push(`BatchCreatePartition ${command.input.PartitionInputList?.length}`);
        inputs.push(...(command.input.PartitionInputList ?? []));
        return {};
      }
      throw new Error('unexpected command');
    },
  } as unknown as GlueSend;
  return { glue, calls, inputs };
}

describe('registerDays', () => {
  it('reads the table once and creates at most 100 partitions a call, each at its dt= folder', async () => {
    const { glue, calls } = fakeGlue(['dt']);
    const days = Array.from({ length: 250 }, (_, i) => addDays('2026-01-01', i));

    const result = await registerDays(glue, 'db', 't', days);

    expect(MAX_PARTITIONS_PER_CALL).toBe(100);
    expect(calls).toEqual(['GetTable', 'BatchCreatePartition 100', 'BatchCreatePartition 100', 'BatchCreatePartition 50']);
    expect(result.registered).toEqual(days);
    expect(result.failed).toEqual([]);
  });

  it('refuses, in words, a table partitioned by a key a unit does not name, and creates nothing', async () => {
    const { glue, calls } = fakeGlue(['org', 'dt']);

    const result = await registerDays(glue, 'db', 't', ['2026-01-01']);

    expect(calls).toEqual(['GetTable']);
    expect(result.failed).toEqual([{ day: '2026-01-01', error: 'db.t: the table is partitioned by org, dt; a unit names dt, not org' }]);
    expect(result.unreachable).toBeUndefined();
  });

  it("registers (org, dt) of an organisation's run at its own folder, orgs/<id>/<table>/dt=…/", async () => {
    const { glue, inputs } = fakeGlue(['org', 'dt'], 's3://b/p/orgs/', `s3://b/p/orgs/\${org}/visitors_pages/dt=\${dt}/`);

    const result = await registerDays(glue, 'db', 'visitors_pages', ['2026-01-01'], new Map(), 'acme');

    expect(result.failed).toEqual([]);
    expect(inputs).toEqual([{ Values: ['acme', '2026-01-01'], StorageDescriptor: { Location: 's3://b/p/orgs/acme/visitors_pages/dt=2026-01-01/' } }]);
  });
});
