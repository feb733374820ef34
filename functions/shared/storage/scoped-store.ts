/**
 * A part of the shared store: every key under `prefix` (an organisation's `orgs/<id>/`). The
 * budget ledger, the unit leases and the backlog of the export are written once for one
 * organisation; run through this store they become that organisation's own (DESIGN: a ledger
 * per organisation), in the one DynamoDB table or local folder the deployment already has.
 */
import { checkStoreKey, type SharedStore } from './shared-store.js';

/** The part of `store` under `prefix` (which ends with `/`). */
export function scopedStore(store: SharedStore, prefix: string): SharedStore {
  if (!prefix.endsWith('/')) throw new RangeError(`a store scope ends with "/" (got "${prefix}")`);
  checkStoreKey(`${prefix}x`);
  return {
    description: `${store.description} (${prefix})`,
    get: (key) => store.get(`${prefix}${key}`),
    update: (key, change) => store.update(`${prefix}${key}`, change),
    list: async <T>(keyPrefix: string) => {
      const found = await store.list<T>(`${prefix}${keyPrefix}`);
      return found.map(({ key, value }) => ({ key: key.slice(prefix.length), value }));
    },
  };
}

/** The scope of organisation `id` in the shared store (and, in a lake, its folder). */
export function orgScope(id: string): string {
  return `orgs/${id}/`;
}
