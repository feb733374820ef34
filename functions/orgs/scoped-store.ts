/**
 * One organisation's part of the shared store: every key under `orgs/<id>/`. The budget ledger,
 * the unit leases and the backlog of the export are written once for one organisation; run
 * through this store they become that organisation's own (DESIGN: a ledger per organisation),
 * in the one DynamoDB table or local folder the deployment already has.
 */
import type { SharedStore } from '../shared/storage/shared-store.js';
import { orgPrefix } from './organisations.js';

export function scopedStore(store: SharedStore, orgId: string): SharedStore {
  const prefix = `${orgPrefix(orgId)}/`;
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
