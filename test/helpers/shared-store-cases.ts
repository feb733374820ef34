/**
 * Role: the shared-store contract cases. The contract every SharedStore keeps, and the two layers built on it — the export's leases
 * and the follow-up records — as test cases run against each implementation (memory in the
 * unit tests, a local directory and dynalite in the integration tests). `makeStore` must
 * return a fresh, empty store each call.
 */
import { describe, expect, it } from 'vitest';
import { createStateStore, type StateDraft } from '../../functions/follow-up/state.js';
import { ConfigError } from '../../functions/shared/errors.js';
import { LeaseLostError } from '../../functions/shared/pacing/errors.js';
import { createLeases, LEASE_SKEW_TOLERANCE_MS } from '../../functions/shared/pacing/leases.js';
import type { SharedStore } from '../../functions/shared/storage/shared-store.js';

type MakeStore = () => SharedStore | Promise<SharedStore>;

interface Counter {
  readonly n: number;
}

const increment = (current: Counter | undefined) => {
  const n = (current?.n ?? 0) + 1;
  return { value: { n }, result: n };
};

export function describeSharedStoreContract(name: string, makeStore: MakeStore): void {
  describe(`${name} shared store`, () => {
    it('returns undefined for a key never written', async () => {
      const store = await makeStore();
      expect(await store.get('budget/ledger')).toBeUndefined();
    });

    it('stores the value a change returns and resolves with its result', async () => {
      const store = await makeStore();
      const result = await store.update<{ a: number }, string>('doc/one', () => ({ value: { a: 1 }, result: 'done' }));
      expect(result).toBe('done');
      expect(await store.get('doc/one')).toEqual({ a: 1 });
    });

    it('gives the change the current document', async () => {
      const store = await makeStore();
      await store.update('doc/one', () => ({ value: { a: 1 }, result: undefined }));
      const seen = await store.update<{ a: number }, { a: number } | undefined>('doc/one', (current) => ({ value: current, result: current }));
      expect(seen).toEqual({ a: 1 });
    });

    it('deletes the document when the change returns undefined', async () => {
      const store = await makeStore();
      await store.update('doc/one', () => ({ value: { a: 1 }, result: undefined }));
      await store.update('doc/one', () => ({ value: undefined, result: undefined }));
      expect(await store.get('doc/one')).toBeUndefined();
      expect(await store.list('doc/')).toEqual([]);
    });

    it('lists every document under a prefix and nothing else', async () => {
      const store = await makeStore();
      for (const key of ['lease/a', 'lease/b/c', 'leases', 'budget/ledger']) {
        await store.update(key, () => ({ value: { key }, result: undefined }));
      }
      const listed = await store.list<{ key: string }>('lease/');
      expect(listed.map((entry) => entry.key).sort()).toEqual(['lease/a', 'lease/b/c']);
      expect(listed.every((entry) => entry.value.key === entry.key)).toBe(true);
      expect(await store.list('lease')).toHaveLength(3);
      expect(await store.list('')).toHaveLength(4);
    });

    it('keeps keys that differ only in case, or only in escaped characters, apart', async () => {
      const store = await makeStore();
      const keys = ['unit/A', 'unit/a', 'unit/a.b', 'unit/a-b', 'unit/a:b', 'unit/a#b', 'unit/a=b'];
      for (const key of keys) await store.update(key, () => ({ value: key, result: undefined }));
      for (const key of keys) expect(await store.get(key)).toBe(key);
    });

    it('keeps a key longer than a file name can be', async () => {
      const store = await makeStore();
      const long = `backlog/${'X'.repeat(400)}`;
      await store.update(long, () => ({ value: 1, result: undefined }));
      expect(await store.get(long)).toBe(1);
      expect((await store.list('backlog/')).map((entry) => entry.key)).toEqual([long]);
    });

    it('rejects keys with an empty, "." or ".." segment or a character outside the set', async () => {
      const store = await makeStore();
      for (const key of ['', '/a', 'a/', 'a//b', 'a/./b', 'a/../b', '..', 'a b', 'a\\b', 'é', 'x'.repeat(513)]) {
        await expect(store.get(key), key).rejects.toBeInstanceOf(ConfigError);
        await expect(
          store.update(key, () => ({ value: 1, result: undefined })),
          key,
        ).rejects.toBeInstanceOf(ConfigError);
      }
    });

    it('does not let a caller change a stored document through an object it passed or got', async () => {
      const store = await makeStore();
      const value = { list: [1] };
      await store.update('doc/one', () => ({ value, result: undefined }));
      value.list.push(2);
      const got = await store.get<{ list: number[] }>('doc/one');
      got?.list.push(3);
      expect(await store.get('doc/one')).toEqual({ list: [1] });
    });

    it('loses no increment when many updates of one key run at once', async () => {
      const store = await makeStore();
      const results = await Promise.all(Array.from({ length: 25 }, () => store.update('counter', increment)));
      expect(await store.get('counter')).toEqual({ n: 25 });
      expect([...results].sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    });
  });

  describe(`leases on the ${name} shared store`, () => {
    const T0 = 1_700_000_000_000;
    const TTL = 60_000;
    const setup = async () => {
      const store = await makeStore();
      const clock = { t: T0 };
      const now = () => clock.t;
      return {
        store,
        clock,
        mine: createLeases(store, { owner: 'host-a:1:aaaa', ttlMs: TTL, now }),
        theirs: createLeases(store, { owner: 'host-b:2:bbbb', ttlMs: TTL, now }),
      };
    };

    it('acquires a free unit and shows its holder until it expires', async () => {
      const { mine, clock } = await setup();
      const lease = await mine.tryAcquire('visitors/2025-01-15/proj');
      expect(lease?.owner).toBe('host-a:1:aaaa');
      expect(await mine.holder('visitors/2025-01-15/proj')).toEqual({ owner: 'host-a:1:aaaa', expiresAt: T0 + TTL });
      clock.t = T0 + TTL + LEASE_SKEW_TOLERANCE_MS;
      expect(await mine.holder('visitors/2025-01-15/proj')).toBeUndefined();
    });

    it('refuses a unit another owner holds', async () => {
      const { mine, theirs } = await setup();
      await theirs.tryAcquire('unit');
      expect(await mine.tryAcquire('unit')).toBeUndefined();
    });

    it('does not take a lease that expired less than the skew tolerance ago (a clock a little fast)', async () => {
      const { mine, theirs, clock } = await setup();
      await theirs.tryAcquire('unit');
      clock.t = T0 + TTL + LEASE_SKEW_TOLERANCE_MS - 1;
      expect(await mine.tryAcquire('unit')).toBeUndefined();
    });

    it('takes over a unit whose lease expired', async () => {
      const { mine, theirs, clock } = await setup();
      await theirs.tryAcquire('unit');
      clock.t = T0 + TTL + LEASE_SKEW_TOLERANCE_MS;
      expect((await mine.tryAcquire('unit'))?.owner).toBe('host-a:1:aaaa');
      expect((await mine.holder('unit'))?.owner).toBe('host-a:1:aaaa');
    });

    it('renews a lease for another ttl, even one that expired while nobody took it', async () => {
      const { mine, theirs, clock } = await setup();
      const lease = await mine.tryAcquire('unit');
      clock.t = T0 + TTL + 5;
      await lease?.renew();
      expect(await mine.holder('unit')).toEqual({ owner: 'host-a:1:aaaa', expiresAt: T0 + 2 * TTL + 5 });
      expect(await theirs.tryAcquire('unit')).toBeUndefined();
    });

    it('throws LeaseLostError on renewing a lease another owner took over, and leaves theirs alone', async () => {
      const { mine, theirs, clock } = await setup();
      const lease = await mine.tryAcquire('unit');
      clock.t = T0 + TTL + LEASE_SKEW_TOLERANCE_MS;
      await theirs.tryAcquire('unit');
      await expect(lease?.renew()).rejects.toBeInstanceOf(LeaseLostError);
      await expect(lease?.renew()).rejects.toThrow(/held by host-b:2:bbbb/);
      await lease?.release();
      expect((await mine.holder('unit'))?.owner).toBe('host-b:2:bbbb');
    });

    it('throws LeaseLostError on renewing a lease that is gone', async () => {
      const { mine } = await setup();
      const lease = await mine.tryAcquire('unit');
      await lease?.release();
      await expect(lease?.renew()).rejects.toBeInstanceOf(LeaseLostError);
    });

    it('frees the unit on release, and a second release is no error', async () => {
      const { mine, theirs } = await setup();
      const lease = await mine.tryAcquire('unit');
      await lease?.release();
      await lease?.release();
      expect(await mine.holder('unit')).toBeUndefined();
      expect(await theirs.tryAcquire('unit')).toBeDefined();
    });

    it('invalidates an old handle when its owner acquires the unit again after losing it', async () => {
      const { mine, theirs, clock } = await setup();
      const first = await mine.tryAcquire('unit');
      clock.t = T0 + TTL;
      const taken = await theirs.tryAcquire('unit');
      await taken?.release();
      await mine.tryAcquire('unit');
      await expect(first?.renew()).rejects.toBeInstanceOf(LeaseLostError);
    });

    it('lets exactly one of many concurrent acquirers win a unit', async () => {
      const { store } = await setup();
      const contenders = Array.from({ length: 8 }, (_, i) => createLeases(store, { owner: `host:${i}:x`, ttlMs: TTL, now: () => T0 }));
      const won = await Promise.all(contenders.map((leases) => leases.tryAcquire('unit')));
      expect(won.filter(Boolean)).toHaveLength(1);
    });
  });

  describeStateStoreContract(name, makeStore);
}

const common = { requestId: 'req-1', projectId: 'p', jobId: 'j', promptLength: 1, promptSha256: 'x', failures: 0, attempts: 0, expiresAt: 0 };
const claimed = (owner = 'o'): StateDraft => ({
  ...common,
  phase: 'claimed',
  owner,
  leaseExpiresAt: 0,
  pendingSince: 0,
  before: { status: 'completed', prLink: null },
});
const pending = (): StateDraft => ({ ...common, phase: 'pending', pendingSince: 0 });

/** The follow-up records' compare-and-swap on a store (any store: objects only, keyed by request id). */
export function describeStateStoreContract(name: string, makeStore: MakeStore): void {
  describe(`follow-up records on the ${name} shared store`, () => {
    it('reads a record never written as undefined', async () => {
      const store = createStateStore(await makeStore());
      expect(await store.get('req-1')).toBeUndefined();
    });

    it('lets exactly one of many concurrent creators claim a request', async () => {
      const store = createStateStore(await makeStore());
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => store.put(claimed(`o${i}`), undefined)));
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await store.get('req-1')).toEqual(results.find(Boolean));
      expect((await store.get('req-1'))?.version).toBe(1);
    });

    it('updates only from the expected version', async () => {
      const store = createStateStore(await makeStore());
      await store.put(claimed(), undefined);
      const [a, b] = await Promise.all([store.put(pending(), 1), store.put(claimed('other'), 1)]);
      expect([a, b].filter(Boolean)).toHaveLength(1);
      expect(await store.put(pending(), 1)).toBeUndefined();
      expect(await store.put(pending(), undefined)).toBeUndefined();
      expect((await store.get('req-1'))?.version).toBe(2);
    });

    it('returns the record as stored, every field of its phase kept', async () => {
      const store = createStateStore(await makeStore());
      const written = await store.put(
        { ...common, phase: 'done', outcome: 'completed', prLink: 'https://github.com/o/r/pull/1', polls: 3, finishedAt: 5, sentAt: 4 },
        undefined,
      );
      expect(written).toMatchObject({ phase: 'done', version: 1 });
      expect(await store.get('req-1')).toEqual(written);
    });
  });
}
